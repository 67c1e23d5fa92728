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
    # Pipecat closed the caller's segment without `is_final` (see the JSON fixture test)
    assert [(t["role"], t["text"]) for t in json.loads(out.read_text())] == [
        ("caller", "Where is order A17?"),
        ("agent", "Your order A17 has shipped. I could not send the text message."),
    ]
    # the tools ran between the two LLM runs; Pipecat shows them in the second run's input
    lookup, sms = tool(spans, "lookup_order"), tool(spans, "send_sms")
    assert lookup["arguments"] == {"order_id": "A17"}
    assert lookup["result"] == {"status": "shipped", "total": 42}
    assert sms["arguments"] == {"to": "+15550100", "body": "A17 shipped"}
    assert sms["status"] == "error" and "result" not in sms  # the function raised
    assert sms["error"] == "The function `send_sms` failed and returned no result."
    first_llm, second_llm = of_type(spans, "llm")
    [stt], [tts] = of_type(spans, "stt"), of_type(spans, "tts")
    assert stt["end_sec"] <= first_llm["start_sec"] < second_llm["start_sec"]
    assert lookup["time_sec"] == sms["time_sec"] == second_llm["start_sec"] < tts["start_sec"]
    times = [s.get("start_sec", s.get("time_sec")) for s in spans]
    assert times == sorted(times)


def test_pipecat_fixture_holds_an_unfinalized_segment_and_both_llm_runs() -> None:
    # what Pipecat itself wrote: the STT segment closed on the user's stop, not finalized
    request = json.loads((VENDORS / FILES[0]).read_text())
    spans = [s for r in request["resourceSpans"] for ss in r["scopeSpans"] for s in ss["spans"]]
    attrs = {
        s["name"] + str(i): {a["key"]: a["value"] for a in s.get("attributes", [])}
        for i, s in enumerate(spans)
    }
    [stt] = [a for k, a in attrs.items() if k.startswith("stt")]
    assert stt["is_final"] == {"boolValue": False} and stt["stt.incomplete"] == {"boolValue": True}
    assert sorted(s["name"] for s in spans) == ["conversation", "llm", "llm", "stt", "tts", "turn"]


def test_pipecat_openai_realtime_fixture(tmp_path: Path) -> None:
    # made by Pipecat's own OpenAIRealtimeLLMService against a fake Realtime server: no tts and
    # no tool spans; the agent's words are on `llm_response`, the tool call and its result in
    # the next `llm_request` span's `input` context
    path = VENDORS / "pipecat_1.14_realtime_otlp.json"
    assert detect_format(path) == "pipecat"
    out = tmp_path / "turns.json"
    _, _, spans = ingest(path, tmp_path / "t.jsonl", "--transcript-out", str(out))
    assert [(t["role"], t["text"]) for t in json.loads(out.read_text())] == [
        ("agent", "Hello, how can I help?"),
        ("agent", "Your order A17 has shipped."),
    ]
    lookup = tool(spans, "lookup_order")
    assert lookup["arguments"] == {"order_id": "A17"} and lookup["result"] == {"status": "shipped"}
    asked, answered = of_type(spans, "llm")[1:]
    assert asked["start_sec"] < lookup["time_sec"] < answered["start_sec"]


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


def test_context_placeholders_are_not_results(tmp_path: Path) -> None:
    # Pipecat's assistant aggregator writes "IN_PROGRESS" while a call runs and "COMPLETED"
    # when the function returned nothing; neither is the tool's result
    call = {
        "role": "assistant",
        "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "hang_up", "arguments": "{}"}},
            {"id": "c2", "type": "function", "function": {"name": "lookup", "arguments": "{}"}},
        ],
    }

    def done(id_: str, content: str) -> dict[str, str]:
        return {"role": "tool", "tool_call_id": id_, "content": content}

    running = [call, done("c1", "COMPLETED"), done("c2", "IN_PROGRESS")]
    settled = [call, done("c1", "COMPLETED"), done("c2", '{"found": true}')]
    path = _export(
        tmp_path,
        [("llm", {"input": json.dumps(running)}), ("llm", {"input": json.dumps(settled)})],
    )
    _, _, spans = ingest(path, tmp_path / "t.jsonl", "--from", "pipecat")
    hang_up = tool(spans, "hang_up")
    assert hang_up["status"] == "ok" and "result" not in hang_up
    assert tool(spans, "lookup")["result"] == {"found": True}


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
