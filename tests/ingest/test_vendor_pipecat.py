"""Pipecat 1.14 as Pipecat records a call. The fixtures are made by
scripts/make_vendor_fixtures.py running pipecat-ai with fake STT, LLM and TTS services and its
own tracing decorators; the cascaded-tool and realtime cases below are spans written by the
OpenTelemetry SDK with the attributes Pipecat's `traced_llm` and Gemini Live tracing set."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from tests.ingest._util import DATA, ingest, of_type, tool
from tests.ingest.sample_agent import OtlpFileExporter

from hotato.evidence.ingest import detect_format

VENDORS = DATA / "vendors"
FILES = ["pipecat_1.14_otlp.json", "pipecat_1.14_otlp.pb"]


@pytest.mark.parametrize("name", FILES)
def test_pipecat_json_and_protobuf_are_pipecat(name: str, tmp_path: Path) -> None:
    assert detect_format(VENDORS / name) == "pipecat"  # protobuf too, not plain otel
    out = tmp_path / "turns.json"
    _, meta, spans = ingest(VENDORS / name, tmp_path / "t.jsonl", "--transcript-out", str(out))
    assert meta["deployment"]["stack"] == "pipecat"
    [turn] = of_type(spans, "turn")  # from the `pipecat.turn` tracer
    assert turn["attributes"]["number"] == 1
    assert [t["text"] for t in json.loads(out.read_text())] == ["Where is order A17?"]


def _export(tmp_path: Path, spans: list[tuple[str, dict[str, object]]]) -> Path:
    exporter = OtlpFileExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": "bot"}))
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer = provider.get_tracer("pipecat")
    for name, attributes in spans:
        with tracer.start_as_current_span(name, attributes=attributes):  # type: ignore[arg-type]
            pass
    path = tmp_path / "spans.otlp.jsonl"
    exporter.write_json_lines(path)
    return path


def test_cascaded_tool_calls_are_read_from_the_next_llm_input(tmp_path: Path) -> None:
    history = [
        {"role": "user", "content": "Where is order A17?"},
        {
            "role": "assistant",
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "lookup_order", "arguments": '{"order_id": "A17"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": '{"status": "shipped"}'},
        {
            "role": "assistant",
            "tool_calls": [
                {
                    "id": "call_2",
                    "type": "function",
                    "function": {"name": "send_sms", "arguments": '{"to": "+15550100"}'},
                }
            ],
        },
    ]
    path = _export(
        tmp_path,
        [
            ("stt", {"transcript": "Where is order A17?", "is_final": False}),
            ("llm", {"input": json.dumps(history[:1]), "output": ""}),
            ("llm", {"input": json.dumps(history[:3]), "output": "It shipped."}),
            ("llm", {"input": json.dumps(history), "output": ""}),
        ],
    )
    out = tmp_path / "turns.json"
    _, _, spans = ingest(path, tmp_path / "t.jsonl", "--transcript-out", str(out))
    assert tool(spans, "lookup_order")["result"] == {"status": "shipped"}  # read once
    sms = tool(spans, "send_sms")
    assert "result" not in sms and sms["arguments"] == {"to": "+15550100"}
    # a segment Pipecat closed without `is_final` is still what the caller said
    turns = json.loads(out.read_text())
    assert [(t["role"], t["text"]) for t in turns] == [
        ("caller", "Where is order A17?"),
        ("agent", "It shipped."),
    ]


def test_realtime_speech_is_in_llm_response_output(tmp_path: Path) -> None:
    path = _export(tmp_path, [("llm_response", {"output": "Your order has shipped."})])
    out = tmp_path / "turns.json"
    ingest(path, tmp_path / "t.jsonl", "--from", "pipecat", "--transcript-out", str(out))
    assert json.loads(out.read_text())[0]["text"] == "Your order has shipped."


def test_google_adk_tool_spans_and_agent_transfer(tmp_path: Path) -> None:
    # Google ADK's own attribute names, and its built-in transfer_to_agent tool
    path = _export(
        tmp_path,
        [
            (
                "execute_tool lookup_order",
                {
                    "gen_ai.operation.name": "execute_tool",
                    "gen_ai.tool.name": "lookup_order",
                    "gcp.vertex.agent.tool_call_args": '{"order_id": "A17"}',
                    "gcp.vertex.agent.tool_response": '{"status": "shipped"}',
                },
            ),
            (
                "execute_tool transfer_to_agent",
                {
                    "gen_ai.operation.name": "execute_tool",
                    "gen_ai.tool.name": "transfer_to_agent",
                    "gcp.vertex.agent.tool_call_args": '{"agent_name": "billing_agent"}',
                },
            ),
        ],
    )
    _, _, spans = ingest(path, tmp_path / "t.jsonl", "--from", "otel")
    lookup = tool(spans, "lookup_order")
    assert lookup["arguments"] == {"order_id": "A17"} and lookup["result"] == {"status": "shipped"}
    [handoff] = of_type(spans, "handoff")
    assert handoff["to"] == "billing_agent"
