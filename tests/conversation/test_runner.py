"""The runner as a library: a rubric lane gated or not, INCONCLUSIVEs settled by labels, and the
exit-code rule (the policy's code, only ever raised)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from tests.conversation.conftest import EMPATHY, RECORDED, REFUND_RAN, write_call, write_test

from hotato.conversation.runner import decide_exit, run_test
from hotato.conversation.scorecard import conditions, passed
from hotato.conversation.testfile import ConversationTest, load_test
from hotato.model.rubric import JudgeStatus, RubricResult
from hotato.model.status import ExitCode, Status
from hotato.runs.evidence import sources_of


def lane(status: str) -> Any:
    def rubric(test: ConversationTest, sources: Any) -> list[RubricResult]:
        return [
            RubricResult(
                id=s.id,
                kind="judge_rubric",
                deterministic=False,
                status=JudgeStatus(status),
                reason="",
                human_required=False,
            )
            for s in test.rubric
        ]

    return rubric


@pytest.fixture
def graded(tmp_path: Path) -> Any:
    call = write_call(tmp_path / "call")
    test = load_test(
        write_test(
            tmp_path / "t.json",
            [REFUND_RAN, RECORDED],
            [EMPATHY],
            required=["no_inconclusive", "no_rubric_failure"],
        )
    )

    def run(status: str, gate: bool, human: Any = None, state: bool = True) -> Any:
        sources = sources_of(
            str(call / "trace.jsonl"),
            str(call / "transcript.json"),
            str(call / "state.json") if state else None,
        )
        return run_test(test, sources, "a", rubric_lane=lane(status), gate_judge=gate, human=human)

    return run


@pytest.mark.parametrize(
    ("status", "gate", "ok", "code"),
    [
        ("PASS", False, True, 0),
        ("FAIL", False, True, 0),  # advisory: a rubric FAIL is reported, never gates
        ("ERROR", False, True, 0),
        ("FAIL", True, False, 1),
        ("ERROR", True, False, 2),
        ("INCONCLUSIVE", True, True, 0),
    ],
)
def test_the_rubric_lane_gates_only_when_asked(
    graded: Any, status: str, gate: bool, ok: bool, code: int
) -> None:
    run = graded(status, gate)
    assert run.conditions["no_rubric_failure"] is (status not in ("FAIL", "ERROR"))
    assert run.passed is ok
    assert run.exit_code == code


def test_labels_settle_an_inconclusive(graded: Any) -> None:
    unsettled = graded("PASS", False, state=False)
    assert [r.status.value for r in unsettled.results] == ["PASS", "INCONCLUSIVE"]
    assert conditions(["no_unresolved_inconclusive"], unsettled.results, [], {}) == {
        "no_unresolved_inconclusive": False
    }
    agreed = {RECORDED["id"]: frozenset({Status.PASS})}
    assert conditions(["no_unresolved_inconclusive"], unsettled.results, [], agreed) == {
        "no_unresolved_inconclusive": True
    }


@pytest.mark.parametrize(
    "verdicts",
    [{Status.FAIL}, {Status.PASS, Status.FAIL}],
    ids=["agreed-fail", "in-conflict"],
)
def test_a_persons_fail_never_becomes_success(graded: Any, verdicts: set[Status]) -> None:
    """A FAIL label on an INCONCLUSIVE leaves it unresolved, and fails the run (exit 1) even
    when no required condition mentions INCONCLUSIVE results."""
    human = {RECORDED["id"]: frozenset(verdicts)}
    assert conditions(
        ["no_unresolved_inconclusive"], graded("PASS", False, state=False).results, [], human
    ) == {"no_unresolved_inconclusive": False}
    run = graded("PASS", False, human=human, state=False)
    assert run.passed is False and run.exit_code == ExitCode.FAILED
    assert run.human_failures == [RECORDED["id"]]
    assert run.runs == [False]


def test_conditions_come_out_in_the_order_required(graded: Any) -> None:
    run = graded("PASS", False)
    order = ["no_inconclusive", "all_deterministic_assertions_pass", "no_deterministic_fail"]
    assert list(conditions(order, run.results, [], {})) == order


def test_passed_ignores_the_rubric_condition_unless_gated() -> None:
    conds = {"all_deterministic_assertions_pass": True, "no_rubric_failure": False}
    assert passed(conds, gate_judge=False) is True
    assert passed(conds, gate_judge=True) is False


@pytest.mark.parametrize(
    ("policy", "ok", "rubric", "expected"),
    [
        (ExitCode.OK, True, 0, 0),
        (ExitCode.OK, False, 0, 1),
        (ExitCode.FAILED, True, 0, 1),
        (ExitCode.REFUSED, False, 0, 2),  # refusal is never lowered
        (ExitCode.REFUSED, True, 1, 2),
        (ExitCode.OK, True, 2, 2),
    ],
)
def test_decide_exit_only_raises(policy: ExitCode, ok: bool, rubric: int, expected: int) -> None:
    assert decide_exit(policy, ok, rubric) == expected


def test_replays_record_each_run(graded: Any, tmp_path: Path) -> None:
    call = tmp_path / "call"
    test = load_test(write_test(tmp_path / "r.json", [REFUND_RAN], repetitions=4))
    run = run_test(test, sources_of(str(call / "trace.jsonl")), "a")
    assert run.runs == [True] * 4
    assert run.reliability.as_dict()["n"] == 4
