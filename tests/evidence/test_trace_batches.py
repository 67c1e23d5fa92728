"""A large trace is read a megabyte of lines at a time, its spans decoded in runs (one C-level
call per run), a line with keys to fold (hotato 1.x's `ok`, `http.method`, ...) folded within
the run; the first line with something to tell is read on its own, and after a problem every
line is. Both readings give the same spans, and a problem deep in the file is told at its own
line."""

from __future__ import annotations

import json
import random
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from unittest import mock

import msgspec
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from hotato.evidence import trace as trace_module
from hotato.evidence.trace import decode_span, load_trace
from hotato.model.errors import InputError
from hotato.model.evidence import Span, TraceIndexer

META = {"_meta": True, "schema": "hotato.voice_trace.v1"}


def _lines(n: int, seed: int, legacy: bool = False) -> list[str]:
    """`legacy`: about one span in ten as hotato 1.x wrote it, its outcome or its HTTP fields
    at the top level under names Span does not have, so every batch has lines to fold."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        roll = rng.random()
        span: dict[str, Any]
        if roll < 0.5:
            span = {
                "type": "tool_call",
                "name": f"t{rng.randrange(5)}",
                "start_sec": i * 0.01,
                "arguments": {"order_id": f"A-{rng.randrange(100)}", "note": "x" * 40},
                "result": rng.choice([{"ok": True}, {"ok": False}, None]),
            }
            if legacy and rng.random() < 0.15:
                span["ok"] = rng.random() < 0.9
                if not span["ok"]:
                    span["error_message"] = "upstream timed out"
        elif roll < 0.9:
            span = {"type": "caller_audio_active", "start_sec": i * 0.01, "end_sec": i * 0.01 + 1}
        elif legacy and roll < 0.93:
            span = {"type": "http_exchange", "http.method": "GET", "http.url": f"/v1/{i}"}
            span["attributes"] = {"http.status_code": 500}  # the top level's own wins
            span["http.status_code"] = 200
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


@pytest.mark.parametrize(("seed", "legacy"), [(1, False), (2, False), (3, True)])
def test_batches_read_as_the_lines_read(tmp_path: Path, seed: int, legacy: bool) -> None:
    lines = _lines(30_000, seed, legacy)  # several megabytes: many batches
    # a blank line, a line with keys Span does not name (folded under attributes) and
    # spaced JSON, each in a later batch, so those batches are read line by line
    lines.insert(9_000, "")
    lines.insert(15_000, json.dumps({"type": "tool_call", "name": "t1", "ok": False, "x": 1}))
    lines.insert(22_000, '{ "type" : "dtmf" , "digits" : "5" }')
    trace = load_trace(_write(tmp_path, lines))
    assert [msgspec.json.encode(s) for s in trace.spans] == _reference(lines)
    folded = trace.spans[15_000 - 1]  # after the blank line
    assert folded.attributes() == {"ok": False, "x": 1}
    if legacy:
        assert any(s.attributes().get("http.status_code") == 200 for s in trace.spans)


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


# --- any mix of lines: runs read exactly as each line read on its own --------------------------

SETTINGS = settings(
    deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**63 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner),
    max_leaves=6,
)
# Span's own keys, each with a value of its type; `wrong` gives any JSON value instead
OWN = {
    "name": st.none() | st.sampled_from(["lookup", "refund", "caf\u00e9"]),
    "start_sec": st.floats(0, 100) | st.integers(0, 100),
    "time_sec": st.floats(0, 100),
    "latency_ms": st.integers(0, 900),
    "status": st.sampled_from(["ok", "error", 500]),
    "status_code": st.sampled_from([200, 500]),
    "arguments": JSON,
    "result": JSON,
    "error": JSON,
    "attributes": st.dictionaries(st.sampled_from(["ok", "source", "http.url"]), JSON) | JSON,
    "response": JSON,
}
# keys hotato 1.x wrote at the top level, and others no Span field names
EXTRA = st.sampled_from(["ok", "error_message", "http.method", "http.status_code", "http.url", "x"])


@st.composite
def span_lines(draw: st.DrawFn) -> bytes:
    """A span object, its keys in any order (the same key twice now and then), with extras or
    not, a wrong type now and then, compact or spaced."""
    pairs: list[tuple[str, Any]] = [("type", draw(st.sampled_from(["tool_call", "dtmf"])))]
    for key in draw(st.lists(st.sampled_from(sorted(OWN)), max_size=4)):
        wrong = draw(st.integers(0, 15)) == 0
        pairs.append((key, draw(JSON if wrong else OWN[key])))
    pairs += [(key, draw(JSON)) for key in draw(st.lists(EXTRA, max_size=3))]
    pairs = draw(st.permutations(pairs))
    comma, colon = draw(st.sampled_from([(",", ":"), (", ", ": ")]))
    body = comma.join(json.dumps(k) + colon + json.dumps(v) for k, v in pairs)
    return ("{" + body + "}").encode()


BAD = st.sampled_from(
    [
        b"",
        b"   ",
        b"7",
        b'"a span"',
        b"[1, 2]",
        b"null",
        b'{"name": "no type"}',
        b'{"type": 5}',
        b'{"type": "tool_call", "ok": true, "name": 7}',  # a wrong type after an extra
        b'{"type": "tool_call", "name": 7, "ok": true}',  # and before one
        b'{"type": "tool_call", "ok": 1, "name": 7, "name": "x"}',  # folding keeps the last
        b'{"type": "tool_call", "name": 7, "name": "x", "ok": 1}',  # refused before the extra
        b'{"type": "tool_call", "ok": 1, "attributes": [1]}',  # nothing to fold into
        b'{"type": "dtmf"} {"type": "dtmf"}',
        b'{"type": "dtmf"},{"type": "dtmf"}',
        b'{"type": "tool_call", "ok": true',
        b"\xff\xfe\x00garbage",
    ]
)
LINES = st.one_of(span_lines(), span_lines(), span_lines(), BAD, span_lines().map(lambda b: b[:-1]))


@pytest.fixture(scope="module")
def folder() -> Iterator[Path]:
    with tempfile.TemporaryDirectory() as name:
        yield Path(name)


def _outcome(path: Path) -> tuple[Any, ...]:
    """Everything a reading shows: the spans (their type, every field, their attributes) and
    the line each was added with, or every problem told, where."""
    added: list[bytes | None] = []
    keep = TraceIndexer.add

    def add(index: TraceIndexer, span: Span, line: bytes | None = None) -> None:
        added.append(line)
        keep(index, span, line)

    try:
        with mock.patch.object(TraceIndexer, "add", add):
            trace = load_trace(path)
    except InputError as exc:
        return ("refused", [(p.message, p.file, p.line, p.path) for p in exc.problems])
    spans = [(type(s), msgspec.json.encode(s), s.attributes()) for s in trace.spans]
    return ("read", spans, added)


def _each_line_on_its_own(index: TraceIndexer, lines: list[bytes], at: int = 0) -> int:
    return at  # reads no run: every line is read by the loader's line-by-line path


@SETTINGS
@given(lines=st.lists(LINES, max_size=40), batch=st.sampled_from([1, 120, 600, 1 << 20]))
@example(lines=[b'{"type": "tool_call", "ok": true}'] * 3 + [b""] + [b"7"] * 25, batch=1 << 20)
@example(lines=[b'{"type":"dtmf"}', b'{"type": "dtmf", "x": 1}'] * 30, batch=120)
@example(lines=[b'{"type": "dtmf", "x": 1}', b'{"type": "dtmf", "x": "}"}'] * 5, batch=1 << 20)
# lines that are not one value each, though joined into one array they would read as 3 spans
@example(lines=[b'{"type":"a","arguments":[1', b"2]}", b'{"type":"b"},{"type":"c"}'], batch=1 << 20)
def test_runs_read_as_each_line_on_its_own(folder: Path, lines: list[bytes], batch: int) -> None:
    path = folder / "trace.jsonl"
    path.write_bytes(b"\n".join([json.dumps(META).encode(), *lines]) + b"\n")
    with mock.patch.object(trace_module, "_BATCH_BYTES", batch):
        read = _outcome(path)
        with mock.patch.object(trace_module, "read_spans", _each_line_on_its_own):
            assert read == _outcome(path)
