"""latency: was the slowest tool call (or span) within the bound?"""

from __future__ import annotations

from operator import attrgetter
from typing import Any

from hotato.kinds._base import Evidence, Spec, kind
from hotato.kinds._timing import first_value, is_number, unscorable
from hotato.kinds._trace_util import derived
from hotato.model.evidence import Span
from hotato.model.results import Verdict
from hotato.model.status import Source


class Latency(Spec, tag="latency", frozen=True):
    """Reads `latency_ms` (or end minus start) of `tool` calls or `span_type` spans in the
    trace; or, with `field`, a number at that dotted path in the timing evidence (the object,
    or the first event of a list that holds one), compared with `max` in the field's own unit.

    Passes when the worst measured latency is at most `max_ms` (or the field at most `max`).
    Fails when a measured latency exceeds `max_ms` (or the field exceeds `max`).
    Inconclusive when the trace (or, for `field`, the timing evidence) was not supplied, or
    nothing matching carries a measurement, or the recording could not be scored (the reason
    is given).

    Example:
        - id: refund-fast
          kind: latency
          tool: issue_refund
          max_ms: 1500
        - id: answered-quickly
          kind: latency
          field: response.first_word_s
          max: 1.2
    """

    max_ms: float | None = None
    tool: str | None = None
    span_type: str | None = None
    field: str | None = None
    max: float | None = None


def _validate(spec: Latency) -> list[str]:
    chosen = [k for k in ("tool", "span_type", "field") if getattr(spec, k) is not None]
    if len(chosen) != 1:
        return ["needs exactly one of 'tool', 'span_type' or 'field'"]
    if spec.field is not None:
        if spec.max is None:
            return ["'field' needs 'max' (a bound in the field's own unit)"]
        if spec.max_ms is not None:
            return ["'max_ms' bounds a tool or span_type; with 'field', use 'max'"]
    elif spec.max_ms is None:
        return [f"{chosen[0]!r} needs 'max_ms'"]
    elif spec.max is not None:
        return ["'max' bounds a 'field'; with a tool or span_type, use 'max_ms'"]
    return []


def _reads(spec: Latency) -> frozenset[Source]:
    return frozenset({Source.TIMING if spec.field is not None else Source.TRACE})


def _check_field(spec: Latency, timing: Any) -> Verdict:
    field, bound = str(spec.field), float(spec.max or 0.0)
    measured = first_value(timing, field, is_number)
    if measured is None and (why := unscorable(timing)) is not None:
        return Verdict.inconclusive(why)
    if measured is None:
        return Verdict.inconclusive(f"the timing evidence holds no number at {field!r}")
    if measured <= bound:
        return Verdict.passed(f"{field} was {measured:g} (bound {bound:g})", observed=measured)
    return Verdict.failed(f"{field} was {measured:g}, over {bound:g}", observed=measured)


class Measured:
    """The measured latency of each span of a list, read once: the worst (the first of
    equals) and the first that is negative (evidence that cannot be right)."""

    def __init__(self, spans: list[Span]) -> None:
        ms = list(map(_LATENCY, spans))  # most spans carry latency_ms itself: read in C
        if None in ms:
            ms = [
                m if m is not None else s.measured_latency_ms()
                for m, s in zip(ms, spans, strict=True)
            ]
        known = [m for m in ms if m is not None]
        self.slowest: tuple[float, Span] | None = None
        self.negative: Span | None = None
        if known:
            worst = max(known)
            self.slowest = (worst, spans[ms.index(worst)])
            if min(known) < 0:
                self.negative = next(
                    s for m, s in zip(ms, spans, strict=True) if m is not None and m < 0
                )


_LATENCY = attrgetter("latency_ms")


@kind(Latency, reads=_reads, validate=_validate)
def check(spec: Latency, ev: Evidence) -> Verdict:
    if spec.field is not None:
        return _check_field(spec, ev.timing)
    assert ev.trace is not None
    max_ms = float(spec.max_ms or 0.0)
    if spec.tool is not None:
        spans, what = ev.trace.tool_calls.get(spec.tool, []), f"tool {spec.tool!r}"
    else:
        spans, what = ev.trace.by_type.get(str(spec.span_type), []), f"{spec.span_type!r} spans"
    measured = derived(ev.trace, ("latency", spec.tool, spec.span_type), lambda: Measured(spans))
    slowest, backwards = measured.slowest, measured.negative
    if slowest is None:
        return Verdict.inconclusive(f"no latency was measured for {what} ({len(spans)} span(s))")
    worst, span = slowest
    if backwards is not None:
        return Verdict.inconclusive(
            f"{what}: span {backwards.id} measures a negative latency (it ends before it "
            "starts); bad evidence is not a fast call",
            evidence=[backwards.id],
        )
    if worst <= max_ms:
        return Verdict.passed(
            f"worst latency of {what} was {worst:g} ms (bound {max_ms:g} ms)",
            observed=worst,
            evidence=[span.id],
        )
    return Verdict.failed(
        f"worst latency of {what} was {worst:g} ms, over {max_ms:g} ms",
        observed=worst,
        evidence=[span.id],
    )
