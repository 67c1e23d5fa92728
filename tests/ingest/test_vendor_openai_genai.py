"""An OpenAI chat agent under OpenTelemetry's own GenAI instrumentation
(opentelemetry-instrumentation-openai-v2, tools recorded by opentelemetry-util-genai), exported
by the real OpenTelemetry SDK: scripts/vendor_fixtures/openai_genai_call.py made the fixture.
The model's chat spans ask for tools; only the `execute_tool` spans say a tool ran."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import hotato
from tests.ingest._util import DATA, ingest, of_type, tool

FIXTURE = DATA / "vendors" / "openai_v2_2.4b0_genai_otlp.json"


def test_execute_tool_spans_are_the_tool_calls(tmp_path: Path) -> None:
    _, meta, spans = ingest(FIXTURE, tmp_path / "t.jsonl")
    assert meta["source"] == {"format": "otlp-json", "input_span_count": 4}
    assert [s["name"] for s in of_type(spans, "tool_call")] == ["lookup_order", "issue_refund"]
    lookup = tool(spans, "lookup_order")
    assert lookup["arguments"] == {"order_id": "A17"}
    assert lookup["result"] == {"order_id": "A17", "status": "charged_twice", "total": 40}
    refund = tool(spans, "issue_refund")
    assert refund["status"] == "error" and "result" not in refund
    assert refund["error"] == {"type": "TimeoutError", "message": "payment gateway timed out"}


def test_graded_as_the_instrumentation_recorded_it(tmp_path: Path) -> None:
    spec = tmp_path / "a.yaml"
    spec.write_text(
        "version: 1\nassertions:\n"
        "  - {id: looked-up, kind: tool_result, name: lookup_order, "
        "result_subset: {status: charged_twice}}\n"
        "  - {id: refund-asked, kind: tool_call, name: issue_refund, args_subset: {amount: 40}}\n"
        "  - {id: refund-failed, kind: tool_error, name: issue_refund, error_matches: timed out}\n"
        "  - {id: in-order, kind: tool_call, require_order: [lookup_order, issue_refund]}\n"
        "  - {id: refund-posted, kind: tool_result, name: issue_refund}\n"
    )
    ran = hotato("assert", "run", "--assertions", str(spec), "--trace", str(FIXTURE))
    rows = {
        line.split()[1]: line.split()[0]
        for line in ran.out.splitlines()
        if line.strip().startswith(("PASS", "FAIL", "INCONCLUSIVE"))
    }
    assert rows == {
        "looked-up": "PASS",
        "refund-asked": "PASS",
        "refund-failed": "PASS",
        "in-order": "PASS",
        # it raised: no result was recorded, so what it returned is unknown
        "refund-posted": "INCONCLUSIVE",
    }, ran.out
