"""`assert init --from-trace` writes tool names that read back exactly, whatever characters a
trace holds: Unicode line and paragraph separators, NEL, non-characters, a BOM, DEL."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st
from tests.conftest import hotato

from hotato._documents import parse_document
from hotato.runs.starter import yaml_scalar

NAMES = ["refund\u2028now", "x\x85y", "tool\ufffe", "\ufeffbom", "del\x7f", "é-tool", "t\U0001f600"]
META = {"_meta": True, "schema": "hotato.voice_trace.v1", "call_id": "c", "deployment": {},
        "source": {}}  # fmt: skip


@given(st.text(min_size=1))
def test_a_scalar_reads_back_as_the_same_string(value: str) -> None:
    doc = parse_document(f"k: {yaml_scalar(value)}\n", "s.yaml", "starter")
    assert doc.value == {"k": value}


def test_a_starter_from_a_trace_with_awkward_names_passes_on_that_trace(tmp_path: Path) -> None:
    spans = [{"type": "tool_call", "name": n, "start_sec": i, "end_sec": i + 1}
             for i, n in enumerate(NAMES)]  # fmt: skip
    lines = [json.dumps(META), *(json.dumps(s) for s in spans)]
    (tmp_path / "trace.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    made = hotato("assert", "init", "--from-trace", "trace.jsonl", "--out", "a.yaml", cwd=tmp_path)
    assert made.code == 0, made.err
    ran = hotato("assert", "run", "--assertions", "a.yaml", "--trace", "trace.jsonl", cwd=tmp_path)
    assert ran.code == 0, ran.out + ran.err
