"""`test run --timing FILE`: a conversation test's latency `field` + `max` and outcome
`field_present` parts read the measured timing, and the artifact binds the very bytes graded."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import hotato

TEST = """\
kind: hotato.conversation-test
version: 1
id: quick-answer
agent: a1
assertions:
  deterministic:
    - id: answered-quickly
      kind: latency
      field: verdict.response_latency_s
      max: 1.2
    - id: yielded
      kind: outcome
      all_of:
        - field_present: verdict.did_yield
"""


def _write(folder: Path, latency: float) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "timing.json").write_text(
        json.dumps({"verdict": {"response_latency_s": latency, "did_yield": True}})
    )


def _statuses(out: str) -> dict[str, str]:
    doc = json.loads(out)
    return {r["id"]: r["status"] for r in doc["assertions"]["results"]}


def test_timing_grades_the_test_and_is_bound_in_the_artifact(tmp_path: Path) -> None:
    (tmp_path / "t.yaml").write_text(TEST)
    _write(tmp_path, 0.8)
    ran = hotato(
        "test", "run", "t.yaml", "--agent", "a1", "--timing", "timing.json",
        "--out", "art", "--created-at", "2026-01-01T00:00:00Z", "--format", "json",
        cwd=tmp_path,
    )  # fmt: skip
    assert ran.code == 0, ran.err
    assert _statuses(ran.out) == {"answered-quickly": "PASS", "yielded": "PASS"}
    manifest = json.loads((tmp_path / "art" / "conversation.json").read_text())
    assert manifest["artifacts"]["timing"]["path"] == "timing.json"
    bound = (tmp_path / "art" / "timing.json").read_bytes()
    assert bound == (tmp_path / "timing.json").read_bytes()
    verified = hotato("conversation", "verify", "art", cwd=tmp_path)
    assert verified.code == 0, verified.err


def test_without_timing_the_parts_are_inconclusive(tmp_path: Path) -> None:
    (tmp_path / "t.yaml").write_text(TEST)
    (tmp_path / "turns.json").write_text("[]")
    ran = hotato(
        "test", "run", "t.yaml", "--agent", "a1", "--transcript", "turns.json",
        "--format", "json",
        cwd=tmp_path,
    )  # fmt: skip
    assert _statuses(ran.out) == {"answered-quickly": "INCONCLUSIVE", "yielded": "INCONCLUSIVE"}


def test_each_trial_reads_its_own_timing(tmp_path: Path) -> None:
    (tmp_path / "t.yaml").write_text(TEST)
    _write(tmp_path / "trials" / "c1", 0.5)
    _write(tmp_path / "trials" / "c2", 3.0)
    ran = hotato(
        "test", "run", "t.yaml", "--agent", "a1", "--trials", "trials", "--format", "json",
        cwd=tmp_path,
    )  # fmt: skip
    assert ran.code == 1, ran.err
    trials = json.loads(ran.out)["trials"]
    assert [(t["call"], t["passed"], t["summary"]["fail"]) for t in trials] == [
        ("trials/c1", True, 0),
        ("trials/c2", False, 1),
    ]


def test_a_missing_timing_file_is_refused_by_name(tmp_path: Path) -> None:
    (tmp_path / "t.yaml").write_text(TEST)
    ran = hotato("test", "run", "t.yaml", "--agent", "a1", "--timing", "nope.json", cwd=tmp_path)
    assert ran.code == 2
    assert "nope.json" in ran.err and "does not exist" in ran.err


def test_the_library_takes_timing_as_the_cli_does(tmp_path: Path) -> None:
    import hotato

    (tmp_path / "t.yaml").write_text(TEST)
    _write(tmp_path, 2.0)
    outcome = hotato.run_test(tmp_path / "t.yaml", timing=tmp_path / "timing.json")
    graded = outcome.document.assertions.results
    assert {r.id: r.status for r in graded} == {
        "answered-quickly": "FAIL",
        "yielded": "PASS",
    }
    (tmp_path / "a.yaml").write_text(
        "version: 1\nassertions:\n  - {id: quick, kind: latency, "
        "field: verdict.response_latency_s, max: 1.2}\n"
    )
    result = hotato.grade(tmp_path / "a.yaml", timing=tmp_path / "timing.json")
    assert [r.status.value for r in result.outcome.results] == ["FAIL"]
