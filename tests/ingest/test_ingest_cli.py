"""`hotato trace ingest`: flags, outputs and the `trace` group's wiring."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import hotato
from tests.ingest._util import DATA, read_trace


def test_otel_flag_is_a_synonym_for_from_otel(tmp_path: Path) -> None:
    src = DATA / "livekit_otlp.jsonl"
    a = hotato("trace", "ingest", "--otel", str(src), "--out", str(tmp_path / "a.jsonl"))
    b = hotato("trace", "ingest", str(src), "--from", "otel", "--out", str(tmp_path / "b.jsonl"))
    assert a.code == b.code == 0
    assert (tmp_path / "a.jsonl").read_bytes() == (tmp_path / "b.jsonl").read_bytes()


def test_json_report(tmp_path: Path) -> None:
    ran = hotato(
        "trace",
        "ingest",
        str(DATA / "retell_call_ended.json"),
        "--out",
        str(tmp_path / "t.jsonl"),
        "--transcript-out",
        str(tmp_path / "turns.json"),
        "--format",
        "json",
    )
    assert ran.code == 0, ran.err
    report = json.loads(ran.out)
    assert list(report) == [
        "kind",
        "out",
        "transcript_out",
        "voice_trace",
        "span_count",
        "span_types",
        "turn_count",
        "empty",
        "redacted",
    ]
    assert report["span_types"]["tool_call"] == 3
    assert report["turn_count"] == 4
    assert report["redacted"] == {"text": True, "identifiers": True}
    _, spans = read_trace(tmp_path / "t.jsonl")
    assert len(spans) == report["span_count"]


def test_text_report_names_what_was_redacted(tmp_path: Path) -> None:
    ran = hotato(
        "trace", "ingest", str(DATA / "pipecat_otlp.json"), "--out", str(tmp_path / "t.jsonl")
    )
    assert ran.code == 0
    assert "wrote 10 span(s)" in ran.out and "redacted: span text" in ran.out


def test_written_trace_loads_natively_and_reingests_unchanged(tmp_path: Path) -> None:
    first = tmp_path / "a.jsonl"
    assert (
        hotato(
            "trace", "ingest", str(DATA / "vapi_end_of_call_report.json"), "--out", str(first)
        ).code
        == 0
    )
    again = tmp_path / "b.jsonl"
    ran = hotato("trace", "ingest", str(first), "--out", str(again))
    assert ran.code == 0, ran.err
    _, spans_a = read_trace(first)
    meta_b, spans_b = read_trace(again)
    assert spans_a == spans_b and meta_b["source"]["format"] == "hotato.voice_trace.v1"


def test_trace_group_lists_ingest(tmp_path: Path) -> None:
    ran = hotato("trace", "--help")
    assert ran.code == 0 and "ingest" in ran.out


def test_native_input_is_redacted_like_any_other(tmp_path: Path) -> None:
    src = tmp_path / "native.jsonl"
    src.write_text(
        '{"_meta": true, "schema": "hotato.voice_trace.v1", "call_id": "c-1", '
        '"deployment": {"stack": "twilio", "agent_id": "a-1"}}\n'
        '{"type": "asr_final", "time_sec": 1.0, "text": "my card is 4111", '
        '"attributes": {"transcript": "my card is 4111", "call_id": "c-1", "lang": "en"}}\n'
    )
    out = tmp_path / "t.jsonl"
    assert hotato("trace", "ingest", str(src), "--out", str(out)).code == 0
    meta, [span] = read_trace(out)
    assert meta["call_id"] is None and meta["deployment"]["agent_id"] is None
    assert meta["deployment"]["stack"] == "twilio"
    assert span == {
        "type": "asr_final",
        "time_sec": 1.0,
        "text_redacted": True,
        "attributes": {"lang": "en"},
    }
    assert "4111" not in out.read_text()
