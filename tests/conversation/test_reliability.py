"""Reliability through the CLI: `--repetitions N` (replays of one recording, zero variance) and
`--trials DIR` (independent recorded calls, the unbiased estimators and a Wilson interval)."""

from __future__ import annotations

import json
from math import comb
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import Ran, hotato
from tests.conversation.conftest import (
    DISCLOSED,
    LOOKUP,
    REFUND_RAN,
    evidence_args,
    write_call,
    write_test,
)


def trials_folder(root: Path, passes: int, fails: int) -> Path:
    """`passes` calls where the refund ran, then `fails` where it never did."""
    for i in range(passes + fails):
        spans = None if i < passes else [LOOKUP]
        write_call(root / f"call-{i + 1:02d}", spans=spans, with_state=False)
    return root


def run_trials(tmp_path: Path, folder: Path, *extra: str, fmt: str = "json") -> Ran:
    test = write_test(tmp_path / "t.json", [REFUND_RAN, DISCLOSED])
    return hotato(
        "test", "run", str(test), "--agent", "support-v3", "--trials", str(folder),
        "--format", fmt, *extra,
    )  # fmt: skip


def expected(n: int, c: int, k: int) -> dict[str, float]:
    return {
        "pass_at_1": round(c / n, 6),
        "pass_at_k": round(1 - comb(n - c, k) / comb(n, k), 6),
        "pass_caret_k": round(comb(c, k) / comb(n, k), 6),
    }


# -- --repetitions ------------------------------------------------------------------------------


@pytest.mark.parametrize(("spans", "passes"), [(None, 4), ([LOOKUP], 0)])
def test_repetitions_replay_with_zero_variance(
    tmp_path: Path, spans: list[dict[str, Any]] | None, passes: int
) -> None:
    call = write_call(tmp_path / "call", spans=spans)
    test = write_test(tmp_path / "t.json", [REFUND_RAN])
    ran = hotato(
        "test", "run", str(test), "--agent", "a", *evidence_args(call), "--repetitions", "4",
        "--format", "json",
    )  # fmt: skip
    doc = json.loads(ran.out)
    agg = doc["reliability"]["aggregate"]
    assert (agg["n"], agg["k"], agg["passes"]) == (4, 4, passes)
    assert agg["pass_caret_k"] == agg["pass_at_1"] == agg["pass_at_k"] == passes / 4
    assert agg["independent_trials"] is False
    assert "zero variance" in agg["note"] and "pass^k equals pass@1" in agg["note"]
    assert [r["passed"] for r in doc["reliability"]["runs"]] == [passes == 4] * 4
    assert [r["run"] for r in doc["reliability"]["runs"]] == [1, 2, 3, 4]
    assert ran.code == (0 if passes else 1)


def test_repetitions_text_says_the_replays_add_nothing(tmp_path: Path, good_call: Path) -> None:
    test = write_test(tmp_path / "t.json", [REFUND_RAN])
    ran = hotato(
        "test", "run", str(test), "--agent", "a", *evidence_args(good_call), "--repetitions", "3"
    )  # fmt: skip
    assert ran.code == 0
    assert "pass@1 1.000, pass@3 1.000, pass^3 1.000" in ran.out
    assert "over n=3" in ran.out
    assert "zero variance" in ran.out


def test_repetitions_come_from_the_file_and_the_flag_wins(tmp_path: Path, good_call: Path) -> None:
    test = write_test(tmp_path / "t.json", [REFUND_RAN], repetitions=3)
    base = ["test", "run", str(test), "--agent", "a", *evidence_args(good_call), "--format", "json"]
    from_file = json.loads(hotato(*base).out)["reliability"]["aggregate"]
    from_flag = json.loads(hotato(*base, "--repetitions", "2").out)["reliability"]["aggregate"]
    assert from_file["n"] == 3
    assert from_flag["n"] == 2


def test_k_without_trials_is_refused(tmp_path: Path, good_call: Path) -> None:
    test = write_test(tmp_path / "t.json", [REFUND_RAN])
    ran = hotato(
        "test", "run", str(test), "--agent", "a", *evidence_args(good_call),
        "--repetitions", "5", "--k", "2",
    )  # fmt: skip
    assert ran.code == 2
    assert "--k applies to --trials" in ran.err


def test_repetitions_below_one_are_refused(tmp_path: Path, good_call: Path) -> None:
    test = write_test(tmp_path / "t.json", [REFUND_RAN])
    ran = hotato("test", "run", str(test), "--agent", "a", "--repetitions", "0")
    assert ran.code == 2


# -- --trials -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("passes", "fails", "k"),
    [(3, 2, None), (3, 2, 1), (3, 2, 2), (3, 2, 3), (4, 0, 2), (0, 3, 2), (1, 6, 4)],
)
def test_trials_use_the_unbiased_estimators(
    tmp_path: Path, passes: int, fails: int, k: int | None
) -> None:
    folder = trials_folder(tmp_path / "trials", passes, fails)
    ran = run_trials(tmp_path, folder, *(["--k", str(k)] if k else []))
    doc = json.loads(ran.out)
    n = passes + fails
    agg = doc["reliability"]["aggregate"]
    assert (agg["n"], agg["k"], agg["passes"]) == (n, k or n, passes)
    want = expected(n, passes, k or n)
    assert {key: agg[key] for key in want} == want
    assert agg["independent_trials"] is True
    assert "note" not in agg
    ci = agg["ci"]["wilson"]
    assert ci["level"] == 0.95
    assert ci["low"] <= passes / n <= ci["high"]
    assert doc["success"]["passed"] is (fails == 0)
    assert ran.code == (0 if fails == 0 else 1)


def test_a_trials_run_reports_every_call(tmp_path: Path) -> None:
    folder = trials_folder(tmp_path / "trials", 3, 2)
    doc = json.loads(run_trials(tmp_path, folder, "--k", "2").out)
    agg = doc["reliability"]["aggregate"]
    assert agg["ci"]["wilson"] == {"level": 0.95, "low": 0.230724, "high": 0.88238}
    assert (agg["pass_at_1"], agg["pass_at_k"], agg["pass_caret_k"]) == (0.6, 0.9, 0.3)
    runs = doc["reliability"]["runs"]
    assert [(r["call"], r["passed"]) for r in runs] == [
        ("call-01", True),
        ("call-02", True),
        ("call-03", True),
        ("call-04", False),
        ("call-05", False),
    ]
    assert [t["summary"] for t in doc["trials"]] == [
        {"pass": 2, "fail": 0, "inconclusive": 0}
    ] * 3 + [{"pass": 1, "fail": 1, "inconclusive": 0}] * 2
    # A condition holds only when it holds in every trial, so it agrees with `passed`.
    assert doc["success"]["conditions"] == {"all_deterministic_assertions_pass": False}
    assert doc["success"]["passed"] is False
    assert doc["exit_code"] == 1


def test_a_trials_run_in_text(tmp_path: Path) -> None:
    folder = trials_folder(tmp_path / "trials", 3, 2)
    ran = run_trials(tmp_path, folder, "--k", "2", fmt="text")
    assert ran.code == 1
    assert "pass@1 0.600, pass@2 0.900, pass^2 0.300, Wilson 95% [0.231, 0.882] over n=5" in ran.out
    assert "broken  all_deterministic_assertions_pass" in ran.out
    assert "  PASSED  call-01" in ran.out and "  FAILED  call-05" in ran.out
    assert "success over 5 trial(s): FAILED (3 of 5 passed); exit 1" in ran.out


def test_trials_junit_has_one_suite_per_trial(tmp_path: Path) -> None:
    folder = trials_folder(tmp_path / "trials", 1, 1)
    ran = run_trials(tmp_path, folder, fmt="junit")
    assert ran.out.count("<testsuite ") == 2
    assert 'name="refund-flow[call-01]"' in ran.out
    assert 'name="refund-flow[call-02]"' in ran.out


def test_k_larger_than_n_is_refused(tmp_path: Path) -> None:
    folder = trials_folder(tmp_path / "trials", 2, 1)
    ran = run_trials(tmp_path, folder, "--k", "4")
    assert ran.code == 2
    assert ran.out == ""
    assert "--k 4 is larger than the number of trials n=3" in ran.err


def test_k_of_zero_is_refused(tmp_path: Path) -> None:
    folder = trials_folder(tmp_path / "trials", 2, 1)
    assert run_trials(tmp_path, folder, "--k", "0").code == 2


def test_a_trials_folder_with_no_calls_is_refused(tmp_path: Path) -> None:
    empty = tmp_path / "trials"
    (empty / "call-01").mkdir(parents=True)  # a sub-folder, but no recorded call in it
    (empty / "notes.txt").write_text("x")
    (empty / ".hidden").mkdir()
    write_call(empty / ".hidden")  # hidden folders are not trials
    ran = run_trials(tmp_path, empty)
    assert ran.code == 2
    assert "holds no recorded calls" in ran.err


def test_a_missing_trials_folder_is_refused(tmp_path: Path) -> None:
    ran = run_trials(tmp_path, tmp_path / "nope")
    assert ran.code == 2
    assert "--trials is not a folder" in ran.err


@pytest.mark.parametrize(
    "extra",
    [["--trace", "x.jsonl"], ["--transcript", "x.json"], ["--out", "art", "--audio", "x.wav"]],
)
def test_trials_refuse_single_call_options(tmp_path: Path, extra: list[str]) -> None:
    folder = trials_folder(tmp_path / "trials", 1, 0)
    ran = run_trials(tmp_path, folder, *extra)
    assert ran.code == 2
    assert not (tmp_path / "art").exists()


def test_trials_with_out_keep_one_verifiable_artifact_per_trial(tmp_path: Path) -> None:
    folder = trials_folder(tmp_path / "trials", 2, 1)
    art = tmp_path / "art"
    ran = run_trials(tmp_path, folder, "--out", str(art), "--created-at", "2026-01-01T00:00:00Z")
    assert ran.code == 1  # one trial failed
    doc = json.loads(ran.out)
    names = sorted(p.name for p in art.iterdir())
    assert names == ["call-01", "call-02", "call-03"]
    assert [Path(t["artifact"]).name for t in doc["trials"]] == names
    for name in names:
        verified = hotato("conversation", "verify", str(art / name))
        assert verified.code == 0, verified.out
    failed = json.loads((art / "call-03" / "assertions.json").read_text())
    assert failed["success"]["passed"] is False


def test_a_refused_trials_run_writes_no_artifacts(tmp_path: Path) -> None:
    folder = trials_folder(tmp_path / "trials", 2, 0)
    (folder / "call-02" / "trace.jsonl").write_text("not a trace\n")
    ran = run_trials(tmp_path, folder, "--out", str(tmp_path / "art"))
    assert ran.code == 2
    assert not (tmp_path / "art").exists()
