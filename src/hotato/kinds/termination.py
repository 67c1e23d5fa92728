"""termination: how did the call end, according to the trace?"""

from __future__ import annotations

from hotato.kinds._base import Evidence, Spec, kind
from hotato.kinds._trace_util import span_ids
from hotato.model.evidence import TERMINATION_TYPES, Span
from hotato.model.results import Verdict
from hotato.model.status import Source


class Termination(Spec, tag="termination", frozen=True):
    """Reads the call's end-of-call spans (`call_ended`, `termination`, `call_terminated`,
    `hangup`); who ended it is read from `by` (or `terminated_by`, `ended_by`).

    Passes when any end-of-call span matches `reason` and `by` (each compared without case);
    with `absent: true`, passes when none matches.
    Fails when the trace was read and holds no matching end-of-call span (or, with `absent`,
    holds one).
    Inconclusive when no trace was supplied.

    Example:
        - id: caller-hung-up
          kind: termination
          by: caller
    """

    reason: str | None = None
    by: str | None = None
    absent: bool = False


def _by(span: Span) -> str | None:
    value = span.read("ended_by")
    return str(value).lower() if value is not None else None


def _reason(span: Span) -> str | None:
    value = span.read("reason")
    return str(value) if value is not None else None


def _matches(spec: Termination, span: Span) -> bool:
    if spec.reason is not None and (_reason(span) or "").lower() != spec.reason.lower():
        return False
    return spec.by is None or _by(span) == spec.by.lower()


@kind(Termination, reads={Source.TRACE})
def check(spec: Termination, ev: Evidence) -> Verdict:
    assert ev.trace is not None
    ends = ev.trace.of_types(TERMINATION_TYPES)
    matched = [s for s in ends if _matches(spec, s)]
    observed = [{"reason": _reason(s), "by": _by(s)} for s in ends[:5]] or None
    want = {k: v for k, v in (("reason", spec.reason), ("by", spec.by)) if v is not None}
    if spec.absent:
        if matched:
            return Verdict.failed(
                f"the call ended {want}, which must not happen",
                observed=observed,
                evidence=span_ids(matched),
            )
        return Verdict.passed("the call did not end that way", observed=observed)
    if not ends:
        return Verdict.failed("the trace records no end-of-call span")
    if matched:
        return Verdict.passed(
            f"the call ended {want or observed}",
            observed=observed,
            evidence=span_ids(matched),
        )
    return Verdict.failed(
        f"expected an end-of-call span matching {want}; the trace records {observed}",
        observed=observed,
        evidence=span_ids(ends),
    )
