"""handoff: was the call transferred, according to the trace?"""

from __future__ import annotations

from hotato.kinds._base import Evidence, Spec, kind
from hotato.kinds._trace_util import derived, span_ids
from hotato.model.evidence import HANDOFF_TYPES, Span, Trace
from hotato.model.results import Verdict
from hotato.model.status import Source


class Handoff(Spec, tag="handoff", frozen=True):
    """Reads transfer spans (`handoff`, `transfer`) in the trace.

    Passes when a transfer span exists (to the target `to`, compared without case); with
    `absent: true`, passes when there is none.
    Fails when the trace was read and holds no such transfer (or, with `absent`, holds one).
    Inconclusive when no trace was supplied.

    Example:
        - id: escalated
          kind: handoff
          to: human_supervisor
    """

    to: str | None = None
    absent: bool = False


def target(span: Span) -> str | None:
    value = span.read("handoff_to")
    return str(value) if value is not None else None


def _transfers(trace: Trace) -> tuple[list[Span], dict[str, list[Span]], list[str]]:
    """Transfer spans, the same grouped by target (without case), and the targets seen."""
    spans = trace.of_types(HANDOFF_TYPES)
    by_target: dict[str, list[Span]] = {}
    for span in spans:
        by_target.setdefault((target(span) or "").lower(), []).append(span)
    seen = sorted({t for s in spans if (t := target(s))})
    return spans, by_target, seen


@kind(Handoff, reads={Source.TRACE})
def check(spec: Handoff, ev: Evidence) -> Verdict:
    assert ev.trace is not None
    trace = ev.trace
    spans, by_target, seen = derived(trace, "handoff", lambda: _transfers(trace))
    if spec.to is not None:
        spans = by_target.get(spec.to.lower(), [])
    what = f"handoff to {spec.to!r}" if spec.to else "handoff"
    if spec.absent:
        if spans:
            return Verdict.failed(f"a {what} occurred but must not", evidence=span_ids(spans))
        return Verdict.passed(f"no {what} occurred")
    if spans:
        return Verdict.passed(f"{what} occurred", evidence=span_ids(spans))
    tail = f"; transfers seen: {seen}" if seen else ""
    return Verdict.failed(f"no {what} span occurred in the trace{tail}")
