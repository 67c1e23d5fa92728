"""latency: was the slowest tool call (or span) within the bound?"""

from __future__ import annotations

from hotato.kinds._base import Evidence, Spec, kind
from hotato.kinds._trace_util import derived
from hotato.model.evidence import Span
from hotato.model.results import Verdict
from hotato.model.status import Source


class Latency(Spec, tag="latency", frozen=True):
    """Reads `latency_ms` (or end minus start) of `tool` calls or `span_type` spans.

    Passes when the worst measured latency is at most `max_ms`.
    Fails when a measured latency exceeds `max_ms`.
    Inconclusive when no trace was supplied, or nothing matching carries a measurement.

    Example:
        - id: refund-fast
          kind: latency
          tool: issue_refund
          max_ms: 1500
    """

    max_ms: float
    tool: str | None = None
    span_type: str | None = None


def _validate(spec: Latency) -> list[str]:
    if (spec.tool is None) == (spec.span_type is None):
        return ["needs exactly one of 'tool' or 'span_type'"]
    return []


def _slowest(spans: list[Span]) -> tuple[float, Span] | None:
    """The worst measured latency and its span (the first of equals); None if none measured."""
    worst: tuple[float, Span] | None = None
    for span in spans:
        m = span.measured_latency_ms()
        if m is not None and (worst is None or m > worst[0]):
            worst = (m, span)
    return worst


@kind(Latency, reads={Source.TRACE}, validate=_validate)
def check(spec: Latency, ev: Evidence) -> Verdict:
    assert ev.trace is not None
    if spec.tool is not None:
        spans, what = ev.trace.tool_calls.get(spec.tool, []), f"tool {spec.tool!r}"
    else:
        spans, what = ev.trace.by_type.get(str(spec.span_type), []), f"{spec.span_type!r} spans"
    key = ("latency", spec.tool, spec.span_type)
    slowest = derived(ev.trace, key, lambda: _slowest(spans))
    if slowest is None:
        return Verdict.inconclusive(f"no latency was measured for {what} ({len(spans)} span(s))")
    worst, span = slowest
    if worst <= spec.max_ms:
        return Verdict.passed(
            f"worst latency of {what} was {worst:g} ms (bound {spec.max_ms:g} ms)",
            observed=worst,
            evidence=[span.id],
        )
    return Verdict.failed(
        f"worst latency of {what} was {worst:g} ms, over {spec.max_ms:g} ms",
        observed=worst,
        evidence=[span.id],
    )
