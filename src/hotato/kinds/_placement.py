"""Order checks over spans whose place in time may be unknown.

A span with no time keeps its place in the file among the timed ones; when the file is not in
time order around it, that place is unknown (`Trace.unplaced`). An order check first answers
from the spans whose place is known. An answer that the unplaced spans could not change
stands; otherwise the check is INCONCLUSIVE, naming them, never a verdict on an order the
trace does not show.
"""

from __future__ import annotations

from collections.abc import Iterable

from hotato.kinds._trace_util import span_ids
from hotato.model.evidence import Span, Trace
from hotato.model.results import Verdict


def unplaced_in(trace: Trace, spans: Iterable[Span]) -> list[Span]:
    """The spans among `spans` whose place in time is unknown, in trace order."""
    unplaced = trace.unplaced
    if not unplaced:
        return []
    return sorted((s for s in spans if s.index in unplaced), key=lambda s: s.index)


def placed(trace: Trace, spans: list[Span]) -> list[Span]:
    """`spans` without the unplaced ones (the list itself when none is)."""
    unplaced = trace.unplaced
    if not unplaced:
        return spans
    return [s for s in spans if s.index not in unplaced]


def unknown_order(what: str, unplaced: list[Span]) -> Verdict:
    """INCONCLUSIVE: `what` depends on where spans with no time were, which cannot be known."""
    ids = span_ids(unplaced)
    return Verdict.inconclusive(
        f"{what} depends on the order of {', '.join(ids)}, which record(s) no time, against the "
        "timed spans; the trace is not written in time order around them, so their place in "
        "the file does not tell it",
        evidence=ids,
    )
