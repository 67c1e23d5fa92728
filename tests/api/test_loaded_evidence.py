"""`run_test` and `run_trials` take evidence already loaded, as `grade` does: the same verdicts
and JSON as the files give. What binds the files' bytes (an artifact, signed labels, a trace
signature check) refuses a loaded trace or transcript instead of binding something else."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from tests.conversation.conftest import (
    DISCLOSED,
    RECORDED,
    REFUND_RAN,
    STATE,
    write_call,
    write_test,
)

import hotato
from hotato.evidence.ingest import load_call


class Orders:
    """A user's own system of record."""

    def query(self, resource: str, filters: Mapping[str, Any]) -> dict[str, Any] | None:
        rows = STATE.get(resource, [])
        return next((r for r in rows if all(r.get(k) == v for k, v in filters.items())), None)


@pytest.fixture
def refund(tmp_path: Path) -> Path:
    return write_test(tmp_path / "refund.json", [REFUND_RAN, DISCLOSED, RECORDED])


@pytest.fixture
def call(tmp_path: Path) -> Path:
    return write_call(tmp_path / "call")


def _by_paths(refund: Path, call: Path) -> hotato.ConversationOutcome:
    return hotato.run_test(
        refund,
        trace=call / "trace.jsonl",
        transcript=call / "transcript.json",
        state=call / "state.json",
    )


def test_loaded_evidence_grades_as_its_files_do(refund: Path, call: Path) -> None:
    loaded = hotato.run_test(
        refund,
        trace=hotato.load_trace(call / "trace.jsonl"),
        transcript=hotato.load_transcript(call / "transcript.json"),
        state=Orders(),
    )
    assert loaded.to_json() == _by_paths(refund, call).to_json()
    assert loaded.passed and loaded.exit_code == 0


def test_call_evidence_and_ingest_are_taken_as_they_are(refund: Path, call: Path) -> None:
    by_paths = _by_paths(refund, call).to_json()
    for trace in (load_call(call / "trace.jsonl"), hotato.ingest(call / "trace.jsonl")):
        outcome = hotato.run_test(
            refund, trace=trace, transcript=call / "transcript.json", state=call / "state.json"
        )
        assert outcome.to_json() == by_paths


def test_no_loaded_evidence_is_not_supplied(refund: Path, call: Path) -> None:
    outcome = hotato.run_test(refund, trace=hotato.load_trace(call / "trace.jsonl"))
    statuses = {r.id: r.status for r in outcome.document.assertions.results}
    assert statuses == {
        "refund-ran": "PASS",
        "disclosed": "INCONCLUSIVE",
        "refund-recorded": "INCONCLUSIVE",
    }


@pytest.mark.parametrize(
    "options",
    [
        {"out": "art"},
        {"labels": "labels", "trust": ["key.pub"]},
        {"trace_keys": ["key.pub"]},
        {"require_signed_trace": True},
    ],
    ids=["out", "labels", "trace-keys", "require-signed"],
)
def test_what_binds_bytes_refuses_a_loaded_trace(
    tmp_path: Path, refund: Path, call: Path, options: dict[str, Any]
) -> None:
    trace = hotato.load_trace(call / "trace.jsonl")
    (tmp_path / "labels").mkdir()
    with pytest.raises(hotato.InputError, match="pass paths instead") as refused:
        hotato.run_test(refund, trace=trace, **{k: _at(tmp_path, v) for k, v in options.items()})
    assert "trace (Trace)" in str(refused.value)
    assert not (tmp_path / "art").exists()  # nothing written


def test_an_artifact_refuses_a_loaded_transcript(tmp_path: Path, refund: Path, call: Path) -> None:
    transcript = hotato.load_transcript(call / "transcript.json")
    with pytest.raises(hotato.InputError, match=r"transcript \(Transcript\)"):
        hotato.run_test(
            refund, trace=call / "trace.jsonl", transcript=transcript, out=tmp_path / "art"
        )
    assert not (tmp_path / "art").exists()


def test_a_state_reader_may_be_bound_as_the_records_it_answered(
    tmp_path: Path, refund: Path, call: Path
) -> None:
    kwargs: dict[str, Any] = {
        "trace": call / "trace.jsonl",
        "transcript": call / "transcript.json",
        "created_at": "2026-01-01T00:00:00Z",
    }
    mine = hotato.run_test(refund, state=Orders(), out=tmp_path / "mine", **kwargs)
    files = hotato.run_test(refund, state=call / "state.json", out=tmp_path / "files", **kwargs)
    assert hotato.verify_artifact(tmp_path / "mine").ok
    for child in ("assertions.json", "state-evidence.json"):
        assert (tmp_path / "mine" / child).read_bytes() == (tmp_path / "files" / child).read_bytes()
    assert mine.document.artifact is not None and files.document.artifact is not None


def test_trials_given_as_calls(tmp_path: Path, refund: Path, call: Path) -> None:
    for name in ("call-1", "call-2"):
        write_call(tmp_path / "calls" / name)
    folder = hotato.run_trials(refund, tmp_path / "calls", k=2)
    trace = hotato.load_trace(call / "trace.jsonl")
    transcript = hotato.load_transcript(call / "transcript.json")
    calls = [hotato.Call(trace=trace, transcript=transcript, state=Orders()), trace]
    loaded = hotato.run_trials(refund, calls, k=2)
    assert [g.name for g in loaded.items] == ["refund-flow[call-1]", "refund-flow[call-2]"]
    assert [t.call for t in loaded.document.trials or []] == ["call-1", "call-2"]
    assert folder.passed and folder.document.success.passed
    # the second call has no transcript or state: INCONCLUSIVE there, so not every check passed
    assert [g.run.passed for g in loaded.items] == [True, False]
    assert loaded.document.success.passed is False and loaded.exit_code == 1
    reliability = loaded.document.reliability
    assert reliability is not None and (reliability.aggregate.n, reliability.aggregate.k) == (2, 2)
    assert [r.call for r in reliability.runs] == ["call-1", "call-2"]
    doc = json.loads(loaded.to_json())
    assert doc["trials"][1]["summary"] == {"pass": 1, "fail": 0, "inconclusive": 2}


def test_trials_as_calls_are_checked(tmp_path: Path, refund: Path, call: Path) -> None:
    trace = hotato.load_trace(call / "trace.jsonl")
    with pytest.raises(hotato.InputError, match="must be unique"):
        hotato.run_trials(
            refund, [hotato.Call(trace=trace, name="a"), hotato.Call(trace=trace, name="a")]
        )
    with pytest.raises(hotato.InputError, match="holds no evidence"):
        hotato.run_trials(refund, [hotato.Call(name="empty")])
    with pytest.raises(hotato.InputError, match="no trials"):
        hotato.run_trials(refund, [])
    with pytest.raises(hotato.InputError, match="pass paths instead"):
        hotato.run_trials(refund, [trace], out=tmp_path / "arts")
    assert not (tmp_path / "arts").exists()


def _at(tmp_path: Path, value: Any) -> Any:
    if isinstance(value, str) and value in ("art", "labels"):
        return tmp_path / value
    if isinstance(value, list):
        return [tmp_path / v for v in value]
    return value
