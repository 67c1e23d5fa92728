"""state: what does the system of record hold after the call? (Authority 2)"""

from __future__ import annotations

from typing import Any

from hotato.kinds._base import Evidence, Spec, kind
from hotato.kinds._state_read import read
from hotato.model.match import dotted, mismatched_fields, missing
from hotato.model.results import Verdict
from hotato.model.state import StateSource, StateUnavailable
from hotato.model.status import Source


class State(Spec, tag="state", frozen=True):
    """Queries the post-call state adapter (your database or API) for one record of `resource`
    matching `filters`, and compares `expect` (dotted paths allowed) type-strictly.

    Passes when the record exists and every expected field matches.
    Fails when the record was read and is absent, or a field differs: a grounded FAIL saying
    what was observed.
    Inconclusive when no state adapter was supplied, or the system of record could not be read
    (the reason names the cause: refused connection, timeout, auth failure, ...).

    Example:
        - id: refund-in-db
          kind: state
          resource: orders
          filters: {order_id: A-3090}
          expect: {refund_status: refunded}
    """

    resource: str
    filters: dict[str, Any] = {}
    expect: dict[str, Any] = {}


def observed_fields(record: dict[str, Any], paths: list[str]) -> dict[str, Any]:
    out = {}
    for path in paths:
        value = record[path] if path in record else dotted(record, path)
        out[path] = None if missing(value) else value
    return out


def judge_state(
    source: StateSource,
    *,
    assertion_id: str,
    kind: str,
    resource: str,
    filters: dict[str, Any],
    expect: dict[str, Any],
) -> Verdict:
    """The three outcomes of a state read: the record matches (PASS), read and absent or
    different (FAIL, saying what was observed), or not readable (INCONCLUSIVE, with the cause).
    Shared by `state` and `outcome`'s state parts."""
    try:
        record = read(
            source,
            source.after,
            assertion_id=assertion_id,
            kind=kind,
            phase="after",
            resource=resource,
            filters=filters,
            expect=expect,
        )
    except StateUnavailable as exc:
        return Verdict.inconclusive(
            f"the system of record could not be read ({exc.cause}): {exc.message}",
            details={"cause": exc.cause},
        )
    if record is None:
        return Verdict.failed(f"no {resource!r} record matches {filters}", observed=None)
    bad = mismatched_fields(expect, record)
    observed = observed_fields(record, list(expect))
    if bad:
        return Verdict.failed(
            f"{resource!r} record present but field(s) {bad} did not match the expected "
            "post-call state",
            observed=observed,
            details={"expected": {k: expect[k] for k in bad}},
        )
    return Verdict.passed(f"{resource!r} record matches {expect}", observed=observed)


@kind(State, reads={Source.STATE})
def check(spec: State, ev: Evidence) -> Verdict:
    assert ev.state is not None
    return judge_state(
        ev.state,
        assertion_id=spec.id,
        kind="state",
        resource=spec.resource,
        filters=spec.filters,
        expect=spec.expect,
    )
