"""LiveKit, Pipecat, Vapi and Retell files (written from their documented schemas) become the
same evidence model, and grade through `hotato assert run --trace <what the stack exported>`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.conftest import hotato
from tests.ingest._util import DATA, ingest, of_type, tool

from hotato.evidence.ingest import FORMATS, detect_format, load_any_trace

FILES = {
    "livekit_session_report.json": "livekit",
    "livekit_otlp.jsonl": "livekit",
    "pipecat_otlp.json": "pipecat",
    "vapi_end_of_call_report.json": "vapi",
    "retell_call_ended.json": "retell",
}


@pytest.mark.parametrize("name", sorted(FILES))
def test_format_is_detected(name: str) -> None:
    assert detect_format(DATA / name) == FILES[name]
    assert FILES[name] in FORMATS


@pytest.mark.parametrize("name", sorted(FILES))
def test_named_format_gives_the_same_trace_as_detection(name: str) -> None:
    auto = load_any_trace(DATA / name)
    named = load_any_trace(DATA / name, FILES[name])
    assert auto.spans == named.spans and auto.meta == named.meta


def test_livekit_session_report(tmp_path: Path) -> None:
    _, meta, spans = ingest(DATA / "livekit_session_report.json", tmp_path / "t.jsonl")
    assert meta["source"]["format"] == "livekit-session-report"
    lookup = tool(spans, "lookup_account")
    assert lookup["result"] == {"plan": "pro", "status": "active"} and lookup["status"] == "ok"
    assert (lookup["start_sec"], lookup["end_sec"]) == (4.0, 4.3)
    cancel = tool(spans, "cancel_subscription")
    assert cancel["status"] == "error" and cancel["error"] == "billing service timeout"
    assert "result" not in cancel
    [handoff] = of_type(spans, "handoff")
    assert handoff["to"] == "retention_agent"
    [end] = of_type(spans, "termination")
    assert (end["reason"], end["by"], end["time_sec"]) == (
        "participant_disconnected",
        "caller",
        20.0,
    )
    assert [(s["start_sec"], s["end_sec"]) for s in of_type(spans, "caller_audio_active")] == [
        (2.0, 3.5)
    ]


def test_livekit_otel_spans(tmp_path: Path) -> None:
    _, meta, spans = ingest(DATA / "livekit_otlp.jsonl", tmp_path / "t.jsonl")
    assert meta["deployment"]["stack"] == "livekit"
    lookup = tool(spans, "lookup_order")
    assert lookup["result"] == {"status": "in_transit", "eta_days": 2}
    reroute = tool(spans, "reroute_package")
    assert reroute["status"] == "error" and "result" not in reroute
    assert reroute["arguments"] == {"order_id": "A17", "address": "12 Elm St"}
    [first] = of_type(spans, "llm_first_token")
    assert first["latency_ms"] == 350
    [end] = of_type(spans, "termination")
    assert end["by"] == "caller"


def test_pipecat_spans(tmp_path: Path) -> None:
    _, meta, spans = ingest(DATA / "pipecat_otlp.json", tmp_path / "t.jsonl")
    assert meta["deployment"]["stack"] == "pipecat"
    reset = tool(spans, "reset_password")
    assert reset["result"] == {"reset": True, "channel": "email"}
    assert (reset["start_sec"], reset["end_sec"]) == (3.4, 4.62)
    pin = tool(spans, "verify_pin")
    assert pin["status"] == "error" and "result" not in pin
    callback = tool(spans, "schedule_callback")
    assert "result" not in callback and "status" not in callback
    [dtmf] = of_type(spans, "dtmf")
    assert (dtmf["digits"], dtmf["by"]) == ("2468", "caller")
    turns = of_type(spans, "turn")
    assert [t["attributes"]["was_interrupted"] for t in turns] == [False, True]
    assert {s["type"] for s in spans} >= {"stt", "llm", "tts", "llm_first_token"}


def test_vapi_end_of_call_report(tmp_path: Path) -> None:
    _, meta, spans = ingest(DATA / "vapi_end_of_call_report.json", tmp_path / "t.jsonl")
    assert meta["source"] == {"format": "vapi-end-of-call-report", "input_span_count": 12}
    assert tool(spans, "lookup_order")["result"] == {"status": "delivered", "total": 42}
    assert "result" not in tool(spans, "issue_refund")  # the report holds no result for it
    [dtmf] = of_type(spans, "dtmf")
    assert (dtmf["digits"], dtmf["by"]) == ("1w2", "agent")
    [handoff] = of_type(spans, "handoff")
    assert handoff["to"] == "+15550123"
    [end] = of_type(spans, "termination")
    assert (end["reason"], end["by"], end["time_sec"]) == (
        "assistant-forwarded-call",
        "agent",
        52.5,
    )
    assert [(s["start_sec"], s["end_sec"]) for s in of_type(spans, "caller_audio_active")] == [
        (4.0, 6.2),
        (13.0, 15.0),
    ]


def test_retell_call(tmp_path: Path) -> None:
    _, meta, spans = ingest(DATA / "retell_call_ended.json", tmp_path / "t.jsonl")
    assert meta["call_id"] is None and meta["deployment"]["agent_id"] is None
    member = tool(spans, "lookup_member")
    assert member["result"] == {"found": True, "plan": "gold"} and "latency_ms" not in member
    refill = tool(spans, "refill_prescription")
    assert refill["status"] == "error" and refill["error"] == "pharmacy system unavailable"
    [dtmf] = of_type(spans, "dtmf")
    assert (dtmf["digits"], dtmf["by"], dtmf["time_sec"]) == ("427", "caller", 6.2)
    [node] = of_type(spans, "node_transition")
    assert node["to"] == "Refill"
    [handoff] = of_type(spans, "handoff")
    assert handoff["to"] == "+15550199"
    [end] = of_type(spans, "termination")
    assert (end["reason"], end["by"], end["time_sec"]) == ("call_transfer", "agent", 15.791)


def test_identifiers_and_text_only_when_asked(tmp_path: Path) -> None:
    src = DATA / "retell_call_ended.json"
    _, meta, spans = ingest(src, tmp_path / "a.jsonl")
    assert all("text" not in s for s in spans)
    assert of_type(spans, "agent_audio_active")[0]["text_redacted"] is True
    _, meta, spans = ingest(src, tmp_path / "b.jsonl", "--include-text", "--include-identifiers")
    assert meta["call_id"] == "Jabr9TXYYJHfvl6Syypi88rdAHYHmcq6"
    assert meta["deployment"]["agent_id"] == "oBeDLoLOeuAbiuaMFXRtDOLriTJ5tSxD"
    assert of_type(spans, "agent_audio_active")[0]["text"] == "Hi, this is Acme pharmacy."


@pytest.mark.parametrize("name", sorted(FILES))
def test_transcript_out(name: str, tmp_path: Path) -> None:
    ingest(DATA / name, tmp_path / "t.jsonl", "--transcript-out", str(tmp_path / "turns.json"))
    turns = json.loads((tmp_path / "turns.json").read_text())
    assert turns and {t["role"] for t in turns} <= {"caller", "agent", "transfer_target"}
    from hotato.evidence.transcript import load_transcript

    assert load_transcript(tmp_path / "turns.json").turns


ASSERTIONS = """\
version: 1
assertions:
  - {id: refund-called, kind: tool_call, name: issue_refund}
  - {id: refund-result, kind: tool_result, name: issue_refund, result_subset: {status: refunded}}
  - {id: lookup-result, kind: tool_result, name: lookup_order, result_subset: {status: delivered}}
  - {id: transferred, kind: handoff, to: "+15550123"}
  - {id: ended-by-agent, kind: termination, by: agent}
  - {id: keys, kind: dtmf, digits: "1w2"}
"""


def test_assert_run_reads_the_vapi_report_directly(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text(ASSERTIONS)
    ran = hotato(
        "assert",
        "run",
        "--assertions",
        str(tmp_path / "a.yaml"),
        "--trace",
        str(DATA / "vapi_end_of_call_report.json"),
        "--trace-format",
        "vapi",
        "--format",
        "json",
    )
    assert ran.code == 0, ran.err
    statuses = {r["id"]: r["status"] for r in json.loads(ran.out)["results"]}
    assert statuses == {
        "refund-called": "PASS",
        "refund-result": "INCONCLUSIVE",
        "lookup-result": "PASS",
        "transferred": "PASS",
        "ended-by-agent": "PASS",
        "keys": "PASS",
    }
