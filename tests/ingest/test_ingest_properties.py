"""Garbage in never produces a traceback: a file is read, or refused (exit 2). Never exit 1 or 3.

Runs in-process (the CLI's own run_cli, which maps a bug to exit 3) so hypothesis can try many
inputs; test_ingest_malformed.py covers the real subprocess.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.ingest._util import DATA

from hotato.cli._run import run_cli
from hotato.cli.main import cli
from hotato.evidence.ingest import load_any_trace
from hotato.model.errors import InputError
from hotato.model.evidence import Trace

SETTINGS = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
FIXTURES = {p.name: p.read_bytes() for p in sorted(DATA.iterdir()) if p.is_file()}


def _ingest(data: bytes, suffix: str = ".json", fmt: str = "auto") -> int:
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / f"input{suffix}"
        src.write_bytes(data)
        try:
            trace = load_any_trace(src, fmt)
        except InputError:
            pass
        else:
            assert isinstance(trace, Trace)
        out = Path(tmp) / "out.jsonl"
        code = run_cli(cli, ["trace", "ingest", str(src), "--from", fmt, "--out", str(out)])
        assert code in (0, 2), f"exit {code} for {data[:200]!r}"
        assert (code == 0) == out.exists()
        return code


@SETTINGS
@given(st.binary(max_size=300))
def test_random_bytes(data: bytes) -> None:
    _ingest(data)


@SETTINGS
@given(JSON, st.sampled_from(["auto", "otel", "livekit", "pipecat", "vapi", "retell"]))
def test_random_json_documents(value: Any, fmt: str) -> None:
    _ingest(json.dumps(value).encode(), fmt=fmt)


@SETTINGS
@given(st.lists(JSON, min_size=1, max_size=4))
def test_random_json_lines(values: list[Any]) -> None:
    _ingest(b"\n".join(json.dumps(v).encode() for v in values), suffix=".jsonl")


def _mutate(doc: Any, path: list[int], value: Any) -> Any:
    """Replace the subtree reached by following `path` (indices into keys/items) with `value`."""
    if not path or not isinstance(doc, dict | list) or not doc:
        return value
    step, rest = path[0], path[1:]
    if isinstance(doc, dict):
        key = sorted(doc)[step % len(doc)]
        return {**doc, key: _mutate(doc[key], rest, value)}
    i = step % len(doc)
    return [*doc[:i], _mutate(doc[i], rest, value), *doc[i + 1 :]]


@SETTINGS
@given(st.sampled_from(sorted(FIXTURES)), st.lists(st.integers(0, 50), max_size=8), JSON)
def test_mutated_stack_files(name: str, path: list[int], value: Any) -> None:
    raw = FIXTURES[name]
    if name.endswith(".jsonl"):
        lines = [json.loads(line) for line in raw.splitlines() if line.strip()]
        mutated = _mutate(lines, path, value)
        data = b"\n".join(
            json.dumps(v).encode() for v in (mutated if isinstance(mutated, list) else [mutated])
        )
    else:
        data = json.dumps(_mutate(json.loads(raw), path, value)).encode()
    _ingest(data, suffix=Path(name).suffix)
