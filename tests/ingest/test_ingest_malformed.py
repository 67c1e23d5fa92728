"""Malformed payloads: exit 2, a message naming file, line and JSON path, nothing written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.conftest import hotato
from tests.ingest._util import DATA

CASES = {
    "otlp-bad-time.jsonl": (
        '{"resourceSpans": []}\n'
        '{"resourceSpans": [{"scopeSpans": [{"spans": [{"name": "x", '
        '"startTimeUnixNano": "abc"}]}]}]}\n',
        ":2 $.resourceSpans[0].scopeSpans[0].spans[0].startTimeUnixNano: expected an integer",
    ),
    "otlp-bad-type.jsonl": (
        '{"resourceSpans": [{"scopeSpans": [{"spans": [{"name": "ok"}, {"name": 5}]}]}]}\n',
        ":1 $.resourceSpans[0].scopeSpans[0].spans[1].name: Expected `str`, got `int`",
    ),
    "otlp-bad-int.jsonl": (
        '{"resourceSpans": [{"scopeSpans": [{"spans": [{"name": "t", "attributes": '
        '[{"key": "n", "value": {"intValue": "1.5"}}]}]}]}]}\n',
        ":1 $.resourceSpans[0].scopeSpans[0].spans[0].attributes[0].value.intValue",
    ),
    "vapi-bad.json": (
        json.dumps(
            {
                "message": {
                    "type": "end-of-call-report",
                    "artifact": {
                        "messages": [
                            {"role": "user", "message": "hi", "secondsFromStart": 0},
                            {"role": "tool_calls", "toolCalls": "nope", "secondsFromStart": 1},
                        ]
                    },
                }
            }
        ),
        " $.message.artifact.messages[1].toolCalls: expected an array, got string",
    ),
    "retell-bad.json": (
        json.dumps(
            {
                "call_id": "c",
                "call_status": "ended",
                "transcript_with_tool_calls": [
                    {"role": "tool_call_result", "tool_call_id": "t", "successful": "yes"}
                ],
            }
        ),
        " $.transcript_with_tool_calls[0].successful: expected true or false, got string",
    ),
    "livekit-bad.json": (
        json.dumps(
            {
                "job_id": "j",
                "chat_history": {
                    "items": [
                        {"type": "function_call", "name": "x", "call_id": "a", "created_at": "noon"}
                    ]
                },
            }
        ),
        " $.chat_history.items[0].created_at: expected a timestamp (ISO 8601 or epoch), got 'noon'",
    ),
    "bridge-bad.jsonl": (
        '{"call_id": "c"}\n{"type": "tool_call", "start_sec": "soon"}\n',
        ":2 $.start_sec: 'start_sec' must be a number, got string",
    ),
    "broken.json": ('{\n  "message": {\n    "type": "end-of-call-report",\n    oops\n}', ":4:"),
    "truncated.json": ('{\n  "message": {"type": "end-of-call-report",\n', ":2:"),
    "empty.json": ("", ": the file is empty"),
    "unknown.json": ('{"hello": "world"}', ": unrecognised input"),
    "garbage.bin": ("\x01\x02\x03garbage", ": unrecognised input"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_refused_with_a_located_message(name: str, tmp_path: Path) -> None:
    content, expected = CASES[name]
    src = tmp_path / name
    src.write_text(content)
    out = tmp_path / "voice_trace.jsonl"
    ran = hotato("trace", "ingest", str(src), "--out", str(out))
    assert ran.code == 2, ran.err
    assert "Traceback" not in ran.err
    assert f"{src}{expected}" in ran.err, ran.err
    assert not out.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == [name]  # no temp files left behind


def test_corrupt_protobuf_is_refused(tmp_path: Path) -> None:
    src = tmp_path / "x.pb"
    src.write_bytes(b"\x0a\x05\x12\x03\x12\x01\x00")
    ran = hotato("trace", "ingest", str(src), "--out", str(tmp_path / "o.jsonl"))
    assert ran.code == 2 and "not a valid OTLP protobuf message" in ran.err


def test_an_existing_output_is_untouched_when_input_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "voice_trace.jsonl"
    out.write_text("previous\n")
    src = tmp_path / "bad.json"
    src.write_text('{"hello": 1}')
    ran = hotato("trace", "ingest", str(src), "--out", str(out))
    assert ran.code == 2
    assert out.read_text() == "previous\n"


def test_wrong_named_format_is_refused(tmp_path: Path) -> None:
    ran = hotato(
        "trace",
        "ingest",
        str(DATA / "vapi_end_of_call_report.json"),
        "--from",
        "retell",
        "--out",
        str(tmp_path / "o.jsonl"),
    )
    assert ran.code == 2 and "not a Retell call object" in ran.err
    ran = hotato(
        "trace",
        "ingest",
        str(DATA / "retell_call_ended.json"),
        "--from",
        "otel",
        "--out",
        str(tmp_path / "o.jsonl"),
    )
    assert ran.code == 2 and "expected OTLP/JSON with `resourceSpans`" in ran.err


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--out", "o.jsonl"], "missing INPUT"),
        (["a.json", "--otel", "b.json", "--out", "o.jsonl"], "either INPUT or --otel FILE"),
        (["--otel", "b.json", "--from", "vapi", "--out", "o.jsonl"], "cannot be --from vapi"),
        (["x.json", "--out", "no/such/dir/o.jsonl"], "does not exist"),
        (["x.json", "--from", "twilio", "--out", "o.jsonl"], "Invalid value for '--from'"),
    ],
)
def test_usage_errors_exit_2(argv: list[str], message: str, tmp_path: Path) -> None:
    (tmp_path / "x.json").write_text("{}")
    ran = hotato("trace", "ingest", *argv, cwd=tmp_path)
    assert ran.code == 2 and message in ran.err, ran.err


def test_transcript_out_without_any_spoken_text_writes_nothing(tmp_path: Path) -> None:
    src = tmp_path / "tools.json"
    src.write_text(
        '{"resourceSpans": [{"scopeSpans": [{"spans": [{"name": "execute_tool x", '
        '"startTimeUnixNano": "1"}]}]}]}'
    )
    ran = hotato(
        "trace",
        "ingest",
        str(src),
        "--out",
        str(tmp_path / "t.jsonl"),
        "--transcript-out",
        str(tmp_path / "turns.json"),
    )
    assert ran.code == 2 and "no spoken text" in ran.err
    assert not (tmp_path / "t.jsonl").exists() and not (tmp_path / "turns.json").exists()


def test_protobuf_without_opentelemetry_proto_says_how_to_fix(tmp_path: Path) -> None:
    src = tmp_path / "x.pb"
    src.write_bytes(b"\x0a\x02\x12\x00")
    blocker = tmp_path / "blocker"
    blocker.mkdir()
    (blocker / "sitecustomize.py").write_text(
        "import sys\n"
        "class _Block:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.startswith('opentelemetry.proto'):\n"
        "            raise ImportError('blocked for the test')\n"
        "sys.meta_path.insert(0, _Block())\n"
    )
    import os

    env = {**os.environ, "PYTHONPATH": str(blocker)}
    ran = hotato("trace", "ingest", str(src), "--out", str(tmp_path / "o.jsonl"), env=env)
    assert ran.code == 2, ran.err
    assert "needs the opentelemetry-proto package" in ran.err
