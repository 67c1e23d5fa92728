"""sequence: did the steps happen in this order, across tools and span types?"""

from __future__ import annotations

import bisect
from array import array

import msgspec

from hotato.kinds._base import Evidence, Spec, kind
from hotato.kinds._placement import placed, unknown_order, unplaced_in
from hotato.kinds._trace_util import Indexes, derived, span_ids
from hotato.model.evidence import Span, Trace
from hotato.model.results import Verdict
from hotato.model.status import Source


class Step(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    tool: str | None = None
    span_type: str | None = None

    def matches(self, span: Span) -> bool:
        if self.tool is not None:
            return span.type == "tool_call" and span.name == self.tool
        return span.type == self.span_type

    def describe(self) -> dict[str, str]:
        return {"tool": self.tool} if self.tool is not None else {"span_type": str(self.span_type)}


class Sequence(Spec, tag="sequence", frozen=True):
    """Reads every span of the trace in time order (a span with no time keeps its place in
    the file among the timed ones).

    Passes when each step (`{tool: NAME}` or `{span_type: TYPE}`) has a matching span after the
    previous step's span: an in-order subsequence, other spans may sit between.
    Fails when the trace was read and a step has no matching span after the previous one.
    Inconclusive when no trace was supplied, or when the answer depends on where a span with no
    time was and the trace, not written in time order around it, cannot tell.

    Example:
        - id: lookup-before-refund
          kind: sequence
          steps: [{tool: lookup_order}, {tool: issue_refund}]
    """

    steps: tuple[Step, ...]


def _validate(spec: Sequence) -> list[str]:
    problems = []
    if not spec.steps:
        problems.append("'steps' must list at least one step")
    for i, step in enumerate(spec.steps):
        if (step.tool is None) == (step.span_type is None):
            problems.append(f"steps[{i}] needs exactly one of 'tool' or 'span_type'")
    return problems


def _spans(trace: Trace, step: Step) -> list[Span]:
    if step.tool is not None:
        return trace.tool_calls.get(step.tool, [])
    return trace.by_type.get(str(step.span_type), [])


def _places(trace: Trace, step: Step, placed_only: bool) -> list[int] | Indexes:
    """Where the step's spans sit in the trace's time order, ascending (only the spans whose
    place is known, with `placed_only`); once per step per run. An ingested trace is already in
    time order, so a span's place is its index."""

    def build() -> list[int] | Indexes:
        spans = _spans(trace, step)
        ordered = trace.ordered
        if ordered is trace.spans:
            return Indexes(spans)
        if placed_only:
            spans = placed(trace, spans)
        rank = derived(trace, "time_rank", lambda: _ranks(ordered))
        return sorted([rank[s.index] for s in spans])

    key = ("sequence", step.tool, step.span_type, placed_only)
    return derived(trace, key, build)


def _ranks(ordered: list[Span]) -> array[int]:
    rank = array("q", bytes(8 * len(ordered)))
    for place, span in enumerate(ordered):
        rank[span.index] = place
    return rank


def _walk(trace: Trace, steps: tuple[Step, ...], placed_only: bool = False) -> list[Span]:
    """The earliest in-order subsequence: each step's first place after the previous step's;
    the spans of the steps that held."""
    ordered = trace.ordered
    hits: list[Span] = []
    at = -1
    for step in steps:
        places = _places(trace, step, placed_only)
        nxt = bisect.bisect_right(places, at)
        if nxt == len(places):
            break
        at = places[nxt]
        hits.append(ordered[at])
    return hits


def _unsure(spec: Sequence, trace: Trace) -> Verdict | None:
    """The verdict when a step's spans include some whose place is unknown: a PASS that the
    placed spans show, a FAIL when a step has no span at all, else INCONCLUSIVE; None when every
    span the steps name is placed."""
    unplaced = unplaced_in(trace, (s for step in spec.steps for s in _spans(trace, step)))
    if not unplaced:
        return None
    hits = _walk(trace, spec.steps, placed_only=True)
    if len(hits) == len(spec.steps):
        return Verdict.passed(
            f"all {len(spec.steps)} steps occurred in order", evidence=span_ids(hits)
        )
    for i, step in enumerate(spec.steps):
        if not _spans(trace, step):
            return Verdict.failed(
                f"sequence broke at step {i} ({step.describe()}): no matching span occurred "
                "in the trace",
                observed=i,
            )
    return unknown_order(f"the sequence {[s.describe() for s in spec.steps]}", unplaced)


@kind(Sequence, reads={Source.TRACE}, validate=_validate)
def check(spec: Sequence, ev: Evidence) -> Verdict:
    assert ev.trace is not None
    unsure = _unsure(spec, ev.trace)
    if unsure is not None:
        return unsure
    hits = _walk(ev.trace, spec.steps)
    position = len(hits)
    if position == len(spec.steps):
        return Verdict.passed(
            f"all {len(spec.steps)} steps occurred in order", evidence=span_ids(hits)
        )
    step = spec.steps[position]
    after = "after the previous step" if position else "in the trace"
    return Verdict.failed(
        f"sequence broke at step {position} ({step.describe()}): no matching span occurred {after}",
        observed=position,
        evidence=span_ids(hits),
    )
