"""The inconclusive policy (law 4) and the exit code it yields (law 6), in-process and through
the real CLI: report / fail / refuse, the flag over the file, refuse over a FAIL."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.conftest import hotato

from hotato.engine.policy import Tally, exit_code, resolve_policy
from hotato.model.results import Result
from hotato.model.status import ExitCode, Policy, Status


def results(*statuses: str, judge: tuple[str, ...] = ()) -> list[Result]:
    out = [
        Result(id=f"d{i}", kind="tool_call", deterministic=True, status=Status(s))
        for i, s in enumerate(statuses)
    ]
    out += [
        Result(id=f"j{i}", kind="judge_rubric", deterministic=False, status=Status(s))
        for i, s in enumerate(judge)
    ]
    return out


@pytest.mark.parametrize(
    "flag,from_file,want",
    [
        (None, None, Policy.REPORT),
        (None, Policy.FAIL, Policy.FAIL),
        (None, Policy.REFUSE, Policy.REFUSE),
        ("report", Policy.REFUSE, Policy.REPORT),
        ("fail", Policy.REPORT, Policy.FAIL),
        ("refuse", None, Policy.REFUSE),
    ],
)
def test_the_flag_wins_over_the_file(
    flag: str | None, from_file: Policy | None, want: Policy
) -> None:
    assert resolve_policy(flag, from_file) is want


# (statuses, policy) -> exit code
MATRIX = [
    ((), "report", 0),
    (("PASS",), "report", 0),
    (("PASS", "INCONCLUSIVE"), "report", 0),
    (("PASS", "INCONCLUSIVE"), "fail", 1),
    (("PASS", "INCONCLUSIVE"), "refuse", 2),
    (("FAIL",), "report", 1),
    (("FAIL",), "fail", 1),
    (("FAIL",), "refuse", 1),  # refuse is about INCONCLUSIVE only
    (("FAIL", "INCONCLUSIVE"), "report", 1),
    (("FAIL", "INCONCLUSIVE"), "fail", 1),
    (("FAIL", "INCONCLUSIVE"), "refuse", 2),  # refuse takes precedence over a FAIL
    (("PASS", "PASS"), "refuse", 0),
]


@pytest.mark.parametrize("statuses,policy,code", MATRIX)
def test_exit_code_matrix(statuses: tuple[str, ...], policy: str, code: int) -> None:
    deterministic = [r for r in results(*statuses) if r.deterministic]
    assert exit_code(deterministic, Policy(policy)) == ExitCode(code)


def test_tally_counts_apart() -> None:
    t = Tally.of(results("PASS", "FAIL", "INCONCLUSIVE", "INCONCLUSIVE"))
    assert t.as_dict() == {"pass": 1, "fail": 1, "inconclusive": 2}


# --- through the CLI ------------------------------------------------------------------------

TRACE = '{"_meta": true, "schema": "hotato.voice_trace.v1"}\n{"type": "tool_call", "name": "a"}\n'


def write(
    folder: Path, *, policy: str | None, fail: bool, inconclusive: bool, judge: bool = False
) -> None:
    lines = ["version: 1"]
    if policy is not None:
        lines.append(f"inconclusive_policy: {policy}")
    lines += ["assertions:", "  - {id: ran, kind: tool_call, name: a}"]
    if fail:
        lines.append("  - {id: missing, kind: tool_call, name: b}")
    if inconclusive:  # no transcript is ever given here
        lines.append("  - {id: said, kind: phrase, regex: hello}")
    if judge:
        lines.append("  - {id: kind-tone, kind: judge_rubric, criterion: was it kind?}")
    (folder / "a.yaml").write_text("\n".join(lines) + "\n")
    (folder / "t.jsonl").write_text(TRACE)


def run(folder: Path, *flag: str) -> tuple[int, dict[str, object]]:
    ran = hotato(
        "assert",
        "run",
        "--assertions",
        "a.yaml",
        "--trace",
        "t.jsonl",
        "--format",
        "json",
        *flag,
        cwd=folder,
    )
    assert "Traceback" not in ran.err
    doc = json.loads(ran.out)
    assert doc["exit_code"] == ran.code  # the envelope says what the process returned
    return ran.code, doc


@pytest.mark.parametrize(
    "file_policy,flag,fail,inconclusive,code,shown",
    [
        (None, None, False, True, 0, "report"),
        ("fail", None, False, True, 1, "fail"),
        ("refuse", None, False, True, 2, "refuse"),
        ("refuse", "report", False, True, 0, "report"),  # the flag wins
        ("report", "fail", False, True, 1, "fail"),
        ("report", "refuse", True, True, 2, "refuse"),  # refuse over FAIL
        ("refuse", None, True, False, 1, "refuse"),  # nothing inconclusive: the FAIL decides
        (None, "fail", True, False, 1, "fail"),
        (None, None, False, False, 0, "report"),
    ],
)
def test_policies_through_the_cli(
    tmp_path: Path,
    file_policy: str | None,
    flag: str | None,
    fail: bool,
    inconclusive: bool,
    code: int,
    shown: str,
) -> None:
    write(tmp_path, policy=file_policy, fail=fail, inconclusive=inconclusive)
    got, doc = run(tmp_path, *(["--inconclusive-policy", flag] if flag else []))
    assert got == code
    assert doc["inconclusive_policy"] == shown


def test_refuse_still_prints_every_result(tmp_path: Path) -> None:
    write(tmp_path, policy="refuse", fail=True, inconclusive=True)
    code, doc = run(tmp_path)
    assert code == 2
    assert [r["status"] for r in doc["results"]] == ["PASS", "FAIL", "INCONCLUSIVE"]


@pytest.mark.parametrize("policy", ["report", "fail", "refuse"])
def test_judge_results_never_change_the_exit_code(tmp_path: Path, policy: str) -> None:
    write(tmp_path, policy=None, fail=False, inconclusive=False, judge=True)
    code, doc = run(tmp_path, "--inconclusive-policy", policy)
    assert code == 0
    summary = doc["summary"]
    assert summary["deterministic"] == {"pass": 1, "fail": 0, "inconclusive": 0}
    assert summary["judge"]["inconclusive"] == 1


def test_a_bad_policy_in_the_file_is_refused_with_a_hint(tmp_path: Path) -> None:
    write(tmp_path, policy="refus", fail=False, inconclusive=False)
    ran = hotato("assert", "run", "--assertions", "a.yaml", "--trace", "t.jsonl", cwd=tmp_path)
    assert ran.code == 2
    assert "a.yaml:2" in ran.err and "$.inconclusive_policy" in ran.err
    assert "did you mean 'refuse'" in ran.err


def test_a_bad_policy_flag_is_a_usage_error(tmp_path: Path) -> None:
    write(tmp_path, policy=None, fail=False, inconclusive=False)
    ran = hotato(
        "assert", "run", "--assertions", "a.yaml", "--inconclusive-policy", "ignore", cwd=tmp_path
    )
    assert ran.code == 2
    assert "ignore" in ran.err and "Traceback" not in ran.err
