"""sequence: did the steps happen in this order, across tools and span types?"""

from __future__ import annotations

import bisect
from array import array

import msgspec

from hotato.kinds._base import Evidence, Spec, kind
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
    """Reads every span of the trace in time order.

    Passes when each step (`{tool: NAME}` or `{span_type: TYPE}`) has a matching span after the
    previous step's span: an in-order subsequence, other spans may sit between.
    Fails when the trace was read and a step has no matching span after the previous one.
    Inconclusive when no trace was supplied.

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


def _places(trace: Trace, step: Step) -> list[int] | Indexes:
    """Where the step's spans sit in the trace's time order, ascending; once per step per run.
    An ingested trace is already in time order, so a span's place is its index."""

    def build() -> list[int] | Indexes:
        spans = (
            trace.tool_calls.get(step.tool, [])
            if step.tool is not None
            else trace.by_type.get(str(step.span_type), [])
        )
        ordered = trace.ordered
        if ordered is trace.spans:
            return Indexes(spans)
        rank = derived(trace, "time_rank", lambda: _ranks(ordered))
        return sorted([rank[s.index] for s in spans])

    key = ("sequence", step.tool, step.span_type)
    return derived(trace, key, build)


def _ranks(ordered: list[Span]) -> array[int]:
    rank = array("q", bytes(8 * len(ordered)))
    for place, span in enumerate(ordered):
        rank[span.index] = place
    return rank


@kind(Sequence, reads={Source.TRACE}, validate=_validate)
def check(spec: Sequence, ev: Evidence) -> Verdict:
    assert ev.trace is not None
    # The earliest in-order subsequence: each step's first place after the previous step's.
    ordered = ev.trace.ordered
    hits: list[Span] = []
    at = -1
    for step in spec.steps:
        places = _places(ev.trace, step)
        nxt = bisect.bisect_right(places, at)
        if nxt == len(places):
            break
        at = places[nxt]
        hits.append(ordered[at])
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
