"""The use cases the fleet and `hotato serve` grade through (hotato.runs.fleet)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hotato.model.errors import InputError
from hotato.runs.fleet import (
    assertions_digest,
    call_files,
    check_state,
    decode_assertions,
    grader_for,
    hex_id,
    ingest_export,
    wilson,
)

ASSERTIONS = """version: 1
assertions:
  - id: refund
    kind: tool_call
    name: issue_refund
"""

TEST = """kind: hotato.conversation-test
version: 1
id: refund-test
agent: support
assertions:
  deterministic:
    - id: said_sorry
      kind: phrase
      regex: sorry
      role: agent
"""


def test_an_assertions_file_decodes_as_assert_run_reads_it() -> None:
    aset = decode_assertions("assertions", "a.yaml", ASSERTIONS)
    assert [s.id for s in aset.specs] == ["refund"]
    assert assertions_digest(aset) == assertions_digest(
        decode_assertions("assertions", "b.yaml", ASSERTIONS)
    )


def test_a_conversation_test_gives_its_deterministic_assertions() -> None:
    aset = decode_assertions("test", "t.yaml", TEST)
    assert [s.id for s in aset.specs] == ["said_sorry"]
    assert aset.origins == {"said_sorry": "t.yaml"}


def test_a_cycle_is_refused_before_any_call() -> None:
    text = ASSERTIONS + "    when: [refund]\n"
    with pytest.raises(InputError):
        decode_assertions("assertions", "a.yaml", text)


def test_a_missing_state_source_is_refused(tmp_path: Path) -> None:
    with pytest.raises(InputError):
        check_state(str(tmp_path / "absent.json"))


def test_a_state_source_is_opened_and_closed(tmp_path: Path) -> None:
    state = tmp_path / "state.json"
    state.write_text(json.dumps({"orders": [{"id": 1}]}))
    check_state(str(state), str(state))


def test_the_grader_grades_a_call(tmp_path: Path) -> None:
    trace = tmp_path / "trace.jsonl"
    trace.write_text(
        json.dumps({"_meta": True, "schema": "hotato.voice_trace.v1", "call_id": "c1"})
        + "\n"
        + json.dumps({"type": "tool_call", "name": "issue_refund", "time_sec": 1.0})
        + "\n"
    )
    aset = decode_assertions("assertions", "a.yaml", ASSERTIONS)
    with grader_for(aset, None, None, None) as grader:
        outcome = grader.grade(trace=str(trace)).outcome
    assert [r.status.value for r in outcome.results] == ["PASS"]


def test_a_call_folder_lists_its_files(tmp_path: Path) -> None:
    (tmp_path / "transcript.json").write_text("[]")
    files = call_files(tmp_path)
    assert files.transcript == str(tmp_path / "transcript.json")
    assert files.trace is None


def test_the_wilson_interval_is_the_reports_own() -> None:
    assert wilson(0, 0) == (0.0, 1.0)
    low, high = wilson(5, 10)
    assert low < 0.5 < high


def test_an_otlp_id_reads_as_hex() -> None:
    assert hex_id("0AF7651916CD43DD8448EB211C80319C") == "0af7651916cd43dd8448eb211c80319c"
    assert hex_id(b"\x01\x02") == "0102"


def test_a_malformed_export_is_refused(tmp_path: Path) -> None:
    export = tmp_path / "call.json"
    export.write_text("[1, 2]")
    with pytest.raises(InputError):
        ingest_export(
            str(export), "vapi", str(tmp_path / "trace.jsonl"), str(tmp_path / "transcript.json")
        )
    assert not (tmp_path / "trace.jsonl").exists()
