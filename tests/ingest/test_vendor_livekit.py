"""LiveKit Agents 1.8 as LiveKit itself records a call (fixtures made by
scripts/make_vendor_fixtures.py running livekit-agents with a fake LLM): spans as OTLP/JSON and
protobuf, and the session report. Every one holds the same call: a lookup whose dict result
LiveKit stores as a Python repr, a transfer to another agent, a refund tool that raised."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.conftest import hotato
from tests.ingest._util import DATA, ingest, of_type, tool

VENDORS = DATA / "vendors"
SPANS = ["livekit_1.8_otlp.json", "livekit_1.8_otlp.pb"]
ALL = [*SPANS, "livekit_1.8_session_report.json"]
SAID = [
    "Where is order A17?",
    "Your order A17 has shipped.",
    "I want a refund.",
    "Let me transfer you.",
    "Refund forty two dollars please.",
    "Sorry, the refund failed.",
]


@pytest.mark.parametrize("name", ALL)
def test_every_tool_call_result_and_error(name: str, tmp_path: Path) -> None:
    _, meta, spans = ingest(VENDORS / name, tmp_path / "t.jsonl")
    assert meta["deployment"]["stack"] == "livekit"
    # LiveKit stores str(result): the repr of a dict is read back as the dict
    assert tool(spans, "lookup_order")["result"] == {"status": "shipped", "total": 42}
    refund = tool(spans, "issue_refund")
    assert refund["status"] == "error" and "result" not in refund
    message = refund["error"]["message"] if isinstance(refund["error"], dict) else refund["error"]
    assert message == "card declined"  # not just LiveKit's error class `tool_error`
    assert refund["arguments"] == {"order_id": "A17", "amount": 42}
    times = [s.get("start_sec", s.get("time_sec")) for s in spans]
    assert times == sorted(times)


@pytest.mark.parametrize("name", ALL)
def test_one_transfer_is_one_handoff(name: str, tmp_path: Path) -> None:
    _, _, spans = ingest(VENDORS / name, tmp_path / "t.jsonl")
    [handoff] = of_type(spans, "handoff")  # not the session's first agent, not the tool too
    assert handoff["to"] == "billing" and handoff["attributes"] == {"from": "support"}
    [end] = of_type(spans, "termination")
    assert (end["reason"], end["by"]) == ("user_initiated", "agent")


@pytest.mark.parametrize("name", ALL)
def test_turns_once_each_in_order(name: str, tmp_path: Path) -> None:
    out = tmp_path / "turns.json"
    _, _, spans = ingest(VENDORS / name, tmp_path / "t.jsonl", "--transcript-out", str(out))
    import json

    assert [t["text"] for t in json.loads(out.read_text())] == SAID
    assert len(of_type(spans, "agent_audio_active")) == 3  # one interval per reply, not two


@pytest.mark.parametrize("name", SPANS)
def test_time_to_first_token_counted_once(name: str, tmp_path: Path) -> None:
    _, _, spans = ingest(VENDORS / name, tmp_path / "t.jsonl")
    assert len(of_type(spans, "llm_first_token")) == 6  # one per llm_node, not per request too


def test_an_uploaded_chat_history(tmp_path: Path) -> None:
    import json

    report = json.loads((VENDORS / "livekit_1.8_session_report.json").read_text())
    path = tmp_path / "chat_history.json"
    path.write_text(json.dumps(report["chat_history"]))
    _, meta, spans = ingest(path, tmp_path / "t.jsonl")
    assert meta["source"]["format"] == "livekit-chat-history"
    assert tool(spans, "lookup_order")["result"] == {"status": "shipped", "total": 42}
    assert [h["to"] for h in of_type(spans, "handoff")] == ["billing"]


ASSERTIONS = """\
version: 1
assertions:
  - {id: looked-up, kind: tool_result, name: lookup_order, result_subset: {status: shipped}}
  - {id: refund-failed, kind: tool_error, name: issue_refund}
  - {id: to-billing, kind: handoff, to: billing}
  - {id: said-shipped, kind: phrase, regex: "has shipped", role: agent}
"""


@pytest.mark.parametrize("name", ALL)
def test_assert_run_on_the_export_alone(name: str, tmp_path: Path) -> None:
    spec = tmp_path / "a.yaml"
    spec.write_text(ASSERTIONS)
    ran = hotato("assert", "run", "--assertions", str(spec), "--trace", str(VENDORS / name))
    lines = [line.split()[:2] for line in ran.out.splitlines() if line.strip()]
    assert ["PASS", "looked-up"] in lines and ["PASS", "said-shipped"] in lines, ran.out
    assert ["PASS", "to-billing"] in lines and ["PASS", "refund-failed"] in lines, ran.out
    assert ran.code == 0


def test_a_voice_session_turns_from_user_turn_and_agent_turn(tmp_path: Path) -> None:
    # a voice session (fake audio, streaming STT with an interim and a final, TTS): the
    # caller's words are on user_turn and agent_turn, the agent's on agent_turn, tts_request
    # and tts_stream_adapter; each turn is written once
    import json

    out = tmp_path / "turns.json"
    _, _, spans = ingest(
        VENDORS / "livekit_1.8_voice_otlp.json", tmp_path / "t.jsonl", "--transcript-out", str(out)
    )
    turns = [(t["role"], t["text"]) for t in json.loads(out.read_text())]
    assert turns == [("caller", "Where is order A17?"), ("agent", "Your order A17 has shipped.")]
    assert tool(spans, "lookup_order")["result"] == {"status": "shipped", "total": 42}
    assert len(of_type(spans, "agent_audio_active")) == 1
