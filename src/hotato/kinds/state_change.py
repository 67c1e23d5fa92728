"""state_change: did a field move between the before and after snapshots?"""

from __future__ import annotations

from typing import Any

import msgspec

from hotato.kinds._base import Evidence, Spec, kind
from hotato.kinds._state_read import read
from hotato.model.match import dotted, missing, same
from hotato.model.results import Verdict
from hotato.model.state import NoSnapshot, StateReader, StateUnavailable
from hotato.model.status import Source

_UNSET: Any = msgspec.UNSET


class StateChange(Spec, tag="state_change", frozen=True):
    """Reads `field` of one `resource` record (matching `filters`) before the call and after it.

    Passes when the before value equals `from`, the after value equals `to`, and the value
    changed (or stayed, with `changed: false`). With none of the three, `changed: true` is meant.
    Fails when both snapshots were read and the values do not move that way (a record missing
    on one side counts as the field being absent there).
    Inconclusive when no state adapter was supplied, there is no before snapshot for the
    resource (never read as "unchanged"), or the system of record could not be read.

    Example:
        - id: balance-credited
          kind: state_change
          resource: accounts
          filters: {account_id: 77}
          field: balance
          from: 100
          to: 125
    """

    resource: str
    field: str
    filters: dict[str, Any] = {}
    from_: Any = msgspec.field(name="from", default=_UNSET)
    to: Any = _UNSET
    changed: bool | None = None


def _value(record: dict[str, Any] | None, path: str) -> Any:
    if record is None:
        return _UNSET
    value = record[path] if path in record else dotted(record, path)
    return _UNSET if missing(value) else value


def _show(value: Any) -> Any:
    return "<absent>" if value is _UNSET else value


@kind(StateChange, reads={Source.STATE})
def check(spec: StateChange, ev: Evidence) -> Verdict:
    assert ev.state is not None
    if ev.state.before is None:
        return Verdict.inconclusive(
            f"no before snapshot was supplied for {spec.resource!r}; a change cannot be judged "
            "(use --state-before, or a sandbox with before/after)"
        )

    def read_phase(phase: str, reader: StateReader) -> dict[str, Any] | None:
        assert ev.state is not None
        return read(
            ev.state,
            reader,
            assertion_id=spec.id,
            kind="state_change",
            phase=phase,
            resource=spec.resource,
            filters=spec.filters,
            expect={"field": spec.field},
        )

    try:
        before = read_phase("before", ev.state.before)
        after = read_phase("after", ev.state.after)
    except NoSnapshot as exc:
        return Verdict.inconclusive(f"no before snapshot to judge a change by: {exc}")
    except StateUnavailable as exc:
        return Verdict.inconclusive(
            f"the system of record could not be read ({exc.cause}): {exc.message}",
            details={"cause": exc.cause},
        )
    old, new = _value(before, spec.field), _value(after, spec.field)
    observed = {"from": _show(old), "to": _show(new)}
    both_absent = old is _UNSET and new is _UNSET
    moved = not (both_absent or (old is not _UNSET and new is not _UNSET and same(old, new)))
    wrong = []
    if spec.from_ is not _UNSET and (old is _UNSET or not same(spec.from_, old)):
        wrong.append(f"before was {_show(old)!r}, expected {spec.from_!r}")
    if spec.to is not _UNSET and (new is _UNSET or not same(spec.to, new)):
        wrong.append(f"after is {_show(new)!r}, expected {spec.to!r}")
    want_change = spec.changed
    if want_change is None and spec.from_ is _UNSET and spec.to is _UNSET:
        want_change = True
    if want_change is not None and moved != want_change:
        wrong.append("the value changed" if moved else "the value did not change")
    if wrong:
        return Verdict.failed(
            f"{spec.resource}.{spec.field}: " + "; ".join(wrong), observed=observed
        )
    return Verdict.passed(
        f"{spec.resource}.{spec.field} went {_show(old)!r} -> {_show(new)!r}", observed=observed
    )
