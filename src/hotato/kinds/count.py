"""count: how many times did a tool run, a span occur, or a phrase get said?"""

from __future__ import annotations

from hotato.kinds._base import CountBounds, Evidence, Role, Spec, bounds, kind
from hotato.kinds._regex import all_matching_turns, pattern_problems
from hotato.kinds._trace_util import span_ids
from hotato.model.results import Verdict
from hotato.model.status import Source


class Count(Spec, tag="count", frozen=True):
    """Counts one thing: `tool` calls or `span_type` spans in the trace, or turns (of `role`)
    whose text matches `phrase` in the transcript.

    Passes when the number is within `count` (an exact number, or `{min, max}`).
    Fails when the evidence was read and the number is outside the bounds.
    Inconclusive when the trace (for tool / span_type) or transcript (for phrase) was not supplied.

    Example:
        - id: at-most-one-refund
          kind: count
          tool: issue_refund
          count: {max: 1}
    """

    count: int | CountBounds
    tool: str | None = None
    span_type: str | None = None
    phrase: str | None = None
    role: Role | None = None
    case_sensitive: bool = False


def _validate(spec: Count) -> list[str]:
    chosen = [k for k in ("tool", "span_type", "phrase") if getattr(spec, k) is not None]
    problems = []
    if len(chosen) != 1:
        problems.append("needs exactly one of 'tool', 'span_type' or 'phrase'")
    if spec.role is not None and spec.phrase is None:
        problems.append("'role' applies only to 'phrase'")
    return problems + pattern_problems(spec.phrase, case_sensitive=spec.case_sensitive)


def _reads(spec: Count) -> frozenset[Source]:
    return frozenset({Source.TRANSCRIPT if spec.phrase is not None else Source.TRACE})


@kind(Count, reads=_reads, validate=_validate)
def check(spec: Count, ev: Evidence) -> Verdict:
    want = bounds(spec.count)
    evidence: list[str] = []
    if spec.phrase is not None:
        assert ev.transcript is not None
        turns = all_matching_turns(ev.transcript, spec.role, spec.phrase, spec.case_sensitive)
        n, what = len(turns), f"turns matching {spec.phrase!r}"
        evidence = [t.id for t in turns[:20]]
    else:
        assert ev.trace is not None
        if spec.tool is not None:
            spans = ev.trace.tool_calls.get(spec.tool, [])
            what = f"calls of {spec.tool!r}"
        else:
            spans = ev.trace.by_type.get(str(spec.span_type), [])
            what = f"{spec.span_type!r} spans"
        n, evidence = len(spans), span_ids(spans)
    if want.holds(n):
        return Verdict.passed(f"{n} {what}", observed=n, evidence=evidence)
    return Verdict.failed(f"{n} {what}; expected {want.describe()}", observed=n, evidence=evidence)
