"""Traces written by the real OpenTelemetry SDK, exported as OTLP/JSON and OTLP protobuf."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.ingest._util import ingest, of_type, read_trace, tool
from tests.ingest.sample_agent import OtlpFileExporter, run_sample_call

from hotato.evidence.ingest import detect_format, load_any_trace


@pytest.fixture(scope="module")
def exported() -> OtlpFileExporter:
    return run_sample_call()


@pytest.fixture
def otlp_json(exported: OtlpFileExporter, tmp_path: Path) -> Path:
    path = tmp_path / "traces.otlp.jsonl"
    exported.write_json_lines(path)
    return path


def test_genai_tool_spans_become_tool_calls(otlp_json: Path, tmp_path: Path) -> None:
    _, meta, spans = ingest(otlp_json, tmp_path / "t.jsonl")
    assert meta["source"] == {"format": "otlp-json-lines", "input_span_count": 9}
    assert meta["deployment"] == {
        "stack": "otel",
        "agent_id": None,
        "git_sha": "abc123def",
        "config_hash": "sha256:feedbeef",
    }
    lookup = tool(spans, "lookup_order")
    assert lookup["arguments"] == {"order_id": "A17"}
    assert lookup["result"] == {"status": "shipped", "total": 42}
    assert lookup["end_sec"] >= lookup["start_sec"] and "latency_ms" in lookup


def test_errored_tool_has_error_and_no_result(otlp_json: Path, tmp_path: Path) -> None:
    _, _, spans = ingest(otlp_json, tmp_path / "t.jsonl")
    refund = tool(spans, "issue_refund")
    assert refund["status"] == "error"
    assert refund["error"] == {"type": "PaymentDeclined", "message": "card declined"}
    assert "result" not in refund


def test_tool_without_result_attribute_keeps_result_absent(otlp_json: Path) -> None:
    trace = load_any_trace(otlp_json)
    [sms] = trace.tool_calls["send_sms"]
    assert not sms.has_result
    assert sms.arguments() == {"to": "+15550100"}


def test_handoff_http_turns_and_termination(otlp_json: Path, tmp_path: Path) -> None:
    _, _, spans = ingest(otlp_json, tmp_path / "t.jsonl")
    [handoff] = of_type(spans, "handoff")
    assert handoff["to"] == "billing" and handoff["attributes"] == {"from": "triage"}
    [http] = of_type(spans, "http_exchange")
    assert (http["method"], http["url"], http["status_code"]) == (
        "POST",
        "https://api.example.test/refunds",
        201,
    )
    [end] = of_type(spans, "termination")
    assert (end["reason"], end["by"]) == ("customer-ended-call", "caller")
    assert len(of_type(spans, "caller_audio_active")) == 1
    assert len(of_type(spans, "agent_audio_active")) == 1
    starts = [s.get("start_sec", s.get("time_sec")) for s in spans]
    assert starts == sorted(starts)


def test_protobuf_raw_and_framed_give_the_same_spans(
    exported: OtlpFileExporter, otlp_json: Path, tmp_path: Path
) -> None:
    raw, framed = tmp_path / "traces.pb", tmp_path / "traces.framed.pb"
    exported.write_protobuf(raw)
    exported.write_framed_protobuf(framed)
    assert detect_format(raw) == "otel"
    _, _, from_json = ingest(otlp_json, tmp_path / "a.jsonl")
    _, meta_pb, from_pb = ingest(raw, tmp_path / "b.jsonl")
    _, _, from_framed = ingest(framed, tmp_path / "c.jsonl")
    assert meta_pb["source"]["format"] == "otlp-protobuf"
    assert from_pb == from_json == from_framed


def test_identifiers_are_redacted_unless_asked(otlp_json: Path, tmp_path: Path) -> None:
    _, meta, spans = ingest(otlp_json, tmp_path / "a.jsonl")
    assert meta["call_id"] is None and meta["deployment"]["agent_id"] is None
    assert "attributes" not in tool(spans, "lookup_order")
    _, meta, spans = ingest(otlp_json, tmp_path / "b.jsonl", "--include-identifiers")
    assert meta["call_id"] == "conv-123" and meta["deployment"]["agent_id"] == "agent-support-7"
    attrs = tool(spans, "lookup_order")["attributes"]
    assert attrs["tool_call_id"] == "call_1"
    assert len(attrs["trace_id"]) == 32 and len(attrs["span_id"]) == 16
    int(attrs["trace_id"], 16)  # base64 ids from the protobuf JSON mapping come out as hex


def test_same_input_same_bytes(otlp_json: Path, tmp_path: Path) -> None:
    ingest(otlp_json, tmp_path / "a.jsonl")
    ingest(otlp_json, tmp_path / "b.jsonl")
    assert (tmp_path / "a.jsonl").read_bytes() == (tmp_path / "b.jsonl").read_bytes()


def test_load_any_trace_matches_the_written_file(otlp_json: Path, tmp_path: Path) -> None:
    ingest(otlp_json, tmp_path / "t.jsonl")
    from hotato.evidence.trace import load_trace

    written = load_trace(tmp_path / "t.jsonl")
    loaded = load_any_trace(otlp_json, "otel")
    assert [(s.type, s.name, s.start_sec, s.index) for s in loaded.spans] == [
        (s.type, s.name, s.start_sec, s.index) for s in written.spans
    ]
    assert loaded.meta == read_trace(tmp_path / "t.jsonl")[0]
