"""state: what does the system of record hold after the call? (Authority 2)"""

from __future__ import annotations

from typing import Any

from hotato.kinds._base import Evidence, Spec, kind
from hotato.kinds._state_read import read
from hotato.model.match import dotted, mismatched_fields, missing
from hotato.model.results import Verdict
from hotato.model.state import StateUnavailable
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


@kind(State, reads={Source.STATE})
def check(spec: State, ev: Evidence) -> Verdict:
    assert ev.state is not None
    try:
        record = read(
            ev.state,
            ev.state.after,
            assertion_id=spec.id,
            kind="state",
            phase="after",
            resource=spec.resource,
            filters=spec.filters,
            expect=spec.expect,
        )
    except StateUnavailable as exc:
        return Verdict.inconclusive(
            f"the system of record could not be read ({exc.cause}): {exc.message}",
            details={"cause": exc.cause},
        )
    if record is None:
        return Verdict.failed(f"no {spec.resource!r} record matches {spec.filters}", observed=None)
    bad = mismatched_fields(spec.expect, record)
    observed = observed_fields(record, list(spec.expect))
    if bad:
        return Verdict.failed(
            f"{spec.resource!r} record present but field(s) {bad} did not match the expected "
            "post-call state",
            observed=observed,
            details={"expected": {k: spec.expect[k] for k in bad}},
        )
    return Verdict.passed(f"{spec.resource!r} record matches {spec.expect}", observed=observed)
