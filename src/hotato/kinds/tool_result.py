"""tool_result: what did the tool return, according to the trace?"""

from __future__ import annotations

from typing import Any

from hotato.kinds._base import Evidence, Spec, kind
from hotato.kinds._payloads import results_of
from hotato.kinds._trace_util import EVIDENCE_LIMIT, span_ids
from hotato.model.results import Verdict
from hotato.model.status import Source


class ToolResult(Spec, tag="tool_result", frozen=True):
    """Reads the returned value recorded on the tool's spans in the trace.

    Passes when a `tool_call` span for `name` recorded a result containing `result_subset`;
    without `result_subset`, when one recorded any result at all (a string, a number or null
    is a result too).
    Fails when the trace holds no span for the tool, or every span's recorded result differs.
    Inconclusive when no trace was supplied, or the tool's spans carry no result at all (the
    result is unknown, which is not the same as wrong).

    Example:
        - id: refund-posted
          kind: tool_result
          name: issue_refund
          result_subset: {status: refunded}
    """

    name: str
    result_subset: dict[str, Any] = {}


@kind(ToolResult, reads={Source.TRACE})
def check(spec: ToolResult, ev: Evidence) -> Verdict:
    assert ev.trace is not None
    results = results_of(ev.trace, spec.name)
    spans = results.spans
    if not spans:
        return Verdict.failed(
            f"tool {spec.name!r} produced no result span in the trace", observed=0
        )
    if spec.result_subset:
        matched = [spans[i] for i in results.matching(spec.result_subset, EVIDENCE_LIMIT)]
        what = f"a result containing {spec.result_subset}"
    else:
        matched = [spans[i] for i in results.recorded_positions(EVIDENCE_LIMIT)]
        what = "a result"
    if matched:
        return Verdict.passed(f"tool {spec.name!r} returned {what}", evidence=span_ids(matched))
    if results.recorded < len(spans):
        return Verdict.inconclusive(
            f"{len(spans) - results.recorded} of {len(spans)} {spec.name!r} span(s) recorded no "
            "result; the returned value is unknown",
            evidence=span_ids(spans),
        )
    observed = results.first_recorded(5)
    return Verdict.failed(
        f"tool {spec.name!r} ran {len(spans)} time(s) but no result contained {spec.result_subset}",
        observed=observed,
        evidence=span_ids(spans),
    )
