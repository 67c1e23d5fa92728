"""Control characters in what a run shows (an assertion id holding a terminal escape, a BEL, a
NUL) never reach the terminal raw, and never make JUnit XML that does not parse."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from tests.conftest import hotato

NASTY = "refund\x1b]0;owned\x07\x1b[2J\x00\x85"
META = {"_meta": True, "schema": "hotato.voice_trace.v1", "call_id": "c", "deployment": {},
        "source": {}}  # fmt: skip


@pytest.fixture
def work(tmp_path: Path) -> Path:
    span = {"type": "tool_call", "name": NASTY, "start_sec": 1, "end_sec": 2}
    (tmp_path / "trace.jsonl").write_text(json.dumps(META) + "\n" + json.dumps(span) + "\n")
    checks = [{"id": "called", "kind": "tool_call", "name": NASTY},
              {"id": NASTY, "kind": "tool_call", "name": NASTY, "absent": True}]  # fmt: skip
    (tmp_path / "a.json").write_text(json.dumps({"version": 1, "assertions": checks}))
    return tmp_path


def test_junit_with_control_characters_parses(work: Path) -> None:
    ran = hotato("assert", "run", "--assertions", "a.json", "--trace", "trace.jsonl",
                 "--format", "junit", cwd=work)  # fmt: skip
    assert ran.code == 1
    root = ET.fromstring(ran.out)  # raised "not well-formed" before
    names = [case.get("name", "") for case in root.iter("testcase")]
    assert "refund\\x1b]0;owned\\x07\\x1b[2J\\x00\\x85" in names


def test_text_output_never_carries_a_raw_control_character(work: Path) -> None:
    ran = hotato("assert", "run", "--assertions", "a.json", "--trace", "trace.jsonl", cwd=work)
    assert ran.code == 1
    assert not any(c in ran.out for c in "\x1b\x07\x00\x85")
    assert "refund\\x1b]0;owned\\x07" in ran.out
