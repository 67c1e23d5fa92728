"""The plain definition of where spans sit in time, for property tests to hold the indexed
order checks to: a span with no time comes after every timed span written before it and before
every timed span written after it; when those contradict each other (the file is not in time
order around it), its place is unknown. Quadratic and obvious on purpose."""

from __future__ import annotations

import math
from collections.abc import Callable

from hotato.model.evidence import Span, Trace
from hotato.model.status import Status


def _key(span: Span) -> tuple[float, int]:
    assert span.time is not None
    return (span.time, span.index)


def unplaced(trace: Trace) -> frozenset[int]:
    spans = trace.spans
    found = set()
    for i, span in enumerate(spans):
        if span.time is not None:
            continue
        before = [_key(s) for s in spans[:i] if s.time is not None]
        after = [_key(s) for s in spans[i + 1 :] if s.time is not None]
        if any(b > a for b in before for a in after):
            found.add(span.index)
    return frozenset(found)


def ordered(trace: Trace) -> list[Span]:
    """Time order: an untimed span right after the latest timed span written before it."""

    def sort_key(span: Span) -> tuple[float, int]:
        if span.time is not None:
            return (span.time, span.index)
        before = [s for s in trace.spans[: span.index] if s.time is not None]
        return (
            (max(s.time for s in before if s.time is not None), span.index)
            if before
            else (
                -math.inf,
                span.index,
            )
        )

    return sorted(trace.spans, key=sort_key)


def possible_orders(trace: Trace) -> list[list[Span]]:
    """The reference order, and the unplaced spans moved to its start and to its end: orders
    the evidence does not rule out, for holding a grounded verdict to."""
    base = ordered(trace)
    lost = unplaced(trace)
    if not lost:
        return [base]
    kept = [s for s in base if s.index not in lost]
    moved = [s for s in base if s.index in lost]
    return [base, moved + kept, kept + moved]


def status_of(passed: bool) -> Status:
    return Status.PASS if passed else Status.FAIL


def holds_in_every_order(
    trace: Trace, result_status: Status, verdict: Callable[[list[Span]], bool]
) -> bool:
    """A grounded verdict agrees with every possible order; INCONCLUSIVE only when some
    spans are unplaced."""
    statuses = {status_of(verdict(order)) for order in possible_orders(trace)}
    if result_status is Status.INCONCLUSIVE:
        return bool(unplaced(trace))
    return statuses == {result_status}
