"""termination: how did the call end, according to the trace?"""

from __future__ import annotations

from typing import Literal

from hotato.kinds._base import Evidence, Spec, kind
from hotato.model.evidence import TERMINATION_TYPES, Span
from hotato.model.results import Verdict
from hotato.model.status import Source


class Termination(Spec, tag="termination", frozen=True):
    """Reads the call's last end-of-call span (`call_ended`, `termination`, `hangup`).

    Passes when the call ended with `reason` (compared without case) and by `by` (caller, agent
    or system); with `absent: true`, passes when no matching end was recorded.
    Fails when the trace was read and holds no end-of-call span, or it differs.
    Inconclusive when no trace was supplied.

    Example:
        - id: caller-hung-up
          kind: termination
          by: caller
    """

    reason: str | None = None
    by: Literal["caller", "agent", "system"] | None = None
    absent: bool = False


def _by(span: Span) -> str | None:
    value = span.by or span.attributes().get("by") or span.attributes().get("ended_by")
    if value is None and span.type == "hangup":
        return None
    return str(value).lower() if value is not None else None


def _reason(span: Span) -> str | None:
    value = span.reason or span.attributes().get("reason")
    return str(value) if value is not None else None


def _matches(spec: Termination, span: Span) -> bool:
    if spec.reason is not None and (_reason(span) or "").lower() != spec.reason.lower():
        return False
    return spec.by is None or _by(span) == spec.by


@kind(Termination, reads={Source.TRACE})
def check(spec: Termination, ev: Evidence) -> Verdict:
    assert ev.trace is not None
    ends = ev.trace.of_types(TERMINATION_TYPES)
    last = max(ends, key=lambda s: (s.time or 0.0, s.index)) if ends else None
    observed = {"reason": _reason(last), "by": _by(last)} if last else None
    matched = last is not None and _matches(spec, last)
    want = {k: v for k, v in (("reason", spec.reason), ("by", spec.by)) if v is not None}
    if spec.absent:
        if matched:
            return Verdict.failed(
                f"the call ended {want}, which must not happen",
                observed=observed,
                evidence=[last.id] if last else [],
            )
        return Verdict.passed("the call did not end that way", observed=observed)
    if last is None:
        return Verdict.failed("the trace records no end-of-call span")
    if matched:
        return Verdict.passed(f"the call ended {observed}", observed=observed, evidence=[last.id])
    return Verdict.failed(
        f"the call ended {observed}; expected {want}", observed=observed, evidence=[last.id]
    )
