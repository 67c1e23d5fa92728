"""A large native trace is read a megabyte of lines at a time, each batch decoded in one call
when every line is a plain span; any batch holding something else is read line by line. Both
readings give the same spans, and a problem deep in the file is told at its own line."""

from __future__ import annotations

import json
import random
from pathlib import Path

import msgspec
import pytest

from hotato.evidence.trace import decode_span, load_trace
from hotato.model.errors import InputError

META = {"_meta": True, "schema": "hotato.voice_trace.v1"}


def _lines(n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    out = []
    for i in range(n):
        roll = rng.random()
        if roll < 0.5:
            span = {
                "type": "tool_call",
                "name": f"t{rng.randrange(5)}",
                "start_sec": i * 0.01,
                "arguments": {"order_id": f"A-{rng.randrange(100)}", "note": "x" * 40},
                "result": rng.choice([{"ok": True}, {"ok": False}, None]),
            }
        elif roll < 0.9:
            span = {"type": "caller_audio_active", "start_sec": i * 0.01, "end_sec": i * 0.01 + 1}
        else:
            span = {"type": "http_exchange", "method": "GET", "url": f"/v1/{i}", "status_code": 200}
        out.append(json.dumps(span))
    return out


def _write(tmp_path: Path, lines: list[str]) -> Path:
    path = tmp_path / "trace.jsonl"
    path.write_text("\n".join([json.dumps(META), *lines]) + "\n", encoding="utf-8")
    return path


def _reference(lines: list[str]) -> list[bytes]:
    """Each line read on its own, as the line-by-line reading does."""
    spans = [decode_span(line.encode()) for line in lines if line.strip()]
    for i, span in enumerate(spans):
        span.index = i
    return [msgspec.json.encode(s) for s in spans]


@pytest.mark.parametrize("seed", [1, 2])
def test_batches_read_as_the_lines_read(tmp_path: Path, seed: int) -> None:
    lines = _lines(30_000, seed)  # several megabytes: many batches
    # a blank line, a line with keys Span does not name (folded under attributes) and
    # spaced JSON, each in a later batch, so those batches are read line by line
    lines.insert(9_000, "")
    lines.insert(15_000, json.dumps({"type": "tool_call", "name": "t1", "ok": False, "x": 1}))
    lines.insert(22_000, '{ "type" : "dtmf" , "digits" : "5" }')
    trace = load_trace(_write(tmp_path, lines))
    assert [msgspec.json.encode(s) for s in trace.spans] == _reference(lines)
    folded = trace.spans[15_000 - 1]  # after the blank line
    assert folded.attributes() == {"ok": False, "x": 1}


def test_a_bad_line_deep_in_the_file_is_told_at_its_line(tmp_path: Path) -> None:
    lines = _lines(30_000, 3)
    lines[25_000] = '{"type": "tool_call", "name": 7}'
    with pytest.raises(InputError) as refused:
        load_trace(_write(tmp_path, lines))
    (problem,) = refused.value.problems
    assert problem.line == 25_000 + 2  # the meta line, then 1-based
    assert problem.path == "$.name"


def test_a_signed_traces_digest_covers_every_byte(tmp_path: Path) -> None:
    import hashlib

    path = _write(tmp_path, _lines(30_000, 4))
    digest = hashlib.sha256()
    load_trace(path, digest)
    assert digest.hexdigest() == hashlib.sha256(path.read_bytes()).hexdigest()
