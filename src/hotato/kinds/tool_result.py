"""tool_result: what did the tool return, according to the trace?"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import islice
from typing import Any

from hotato.kinds._base import Evidence, Spec, kind
from hotato.kinds._trace_util import EVIDENCE_LIMIT, as_object, span_ids
from hotato.model.evidence import Span
from hotato.model.match import subset
from hotato.model.results import Verdict
from hotato.model.status import Source


class ToolResult(Spec, tag="tool_result", frozen=True):
    """Reads the returned value recorded on the tool's spans in the trace.

    Passes when a `tool_call` span for `name` recorded a result containing `result_subset`.
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


def recorded_results(spans: list[Span]) -> Iterator[tuple[Span, Any]]:
    """The spans that recorded a result, each with its result (JSON strings read as JSON)."""
    return ((s, as_object(s.read("result"))) for s in spans if s.has_result)


@kind(ToolResult, reads={Source.TRACE})
def check(spec: ToolResult, ev: Evidence) -> Verdict:
    assert ev.trace is not None
    spans = ev.trace.tool_calls.get(spec.name, [])
    if not spans:
        return Verdict.failed(
            f"tool {spec.name!r} produced no result span in the trace", observed=0
        )
    # Results are read lazily and the scan stops at the evidence shown: one match passes.
    hits = (s for s, result in recorded_results(spans) if subset(spec.result_subset, result))
    matched = list(islice(hits, EVIDENCE_LIMIT))
    if matched:
        return Verdict.passed(
            f"tool {spec.name!r} returned a result containing {spec.result_subset}",
            evidence=span_ids(matched),
        )
    known = sum(1 for s in spans if s.has_result)
    if known < len(spans):
        return Verdict.inconclusive(
            f"{len(spans) - known} of {len(spans)} {spec.name!r} span(s) recorded no result; "
            "the returned value is unknown",
            evidence=span_ids(spans),
        )
    observed = [result for _, result in islice(recorded_results(spans), 5)]
    return Verdict.failed(
        f"tool {spec.name!r} ran {len(spans)} time(s) but no result contained {spec.result_subset}",
        observed=observed,
        evidence=span_ids(spans),
    )
