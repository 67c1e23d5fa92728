"""`hotato test run` on one recorded call: named success conditions, exit codes under each
inconclusive policy (flag over file), the per-dimension scorecard, the rubric lane kept apart."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import Ran, hotato
from tests.conversation.conftest import (
    DISCLOSED,
    EMPATHY,
    FAST,
    IN_ORDER,
    NEVER_CANCELLED,
    RECORDED,
    REFUND_RAN,
    evidence_args,
    write_call,
    write_test,
)

ALL = [
    "all_deterministic_assertions_pass",
    "no_deterministic_fail",
    "no_inconclusive",
    "no_rubric_failure",
]
UNREACHABLE_JUDGE = ["--judge-endpoint", "http://127.0.0.1:9", "--judge-model", "m", "--no-store"]


def run(
    tmp_path: Path,
    call: Path,
    deterministic: list[dict[str, Any]],
    *extra: str,
    state: bool = True,
    **test: Any,
) -> tuple[Ran, dict[str, Any]]:
    path = write_test(tmp_path / "test.json", deterministic, **test)
    ran = hotato(
        "test",
        "run",
        str(path),
        "--agent",
        "support-v3",
        *evidence_args(call, state=state),
        "--format",
        "json",
        *extra,
        cwd=tmp_path,
    )
    assert ran.code in (0, 1, 2), ran.err
    doc = json.loads(ran.out) if ran.out else {}
    return ran, doc


def statuses(doc: dict[str, Any]) -> list[str]:
    return [r["status"] for r in doc["assertions"]["results"]]


# -- conditions, each true and false ---------------------------------------------------------


def test_every_condition_holds_on_a_clean_call(tmp_path: Path, good_call: Path) -> None:
    ran, doc = run(tmp_path, good_call, [REFUND_RAN, DISCLOSED, RECORDED], required=ALL)
    assert statuses(doc) == ["PASS", "PASS", "PASS"]
    assert doc["success"]["conditions"] == dict.fromkeys(ALL, True)
    assert doc["success"]["passed"] is True
    assert ran.code == 0 == doc["exit_code"]


def test_a_fail_breaks_the_pass_and_no_fail_conditions(tmp_path: Path, good_call: Path) -> None:
    ran, doc = run(tmp_path, good_call, [REFUND_RAN, NEVER_CANCELLED], required=ALL)
    assert statuses(doc) == ["PASS", "FAIL"]
    assert doc["success"]["conditions"] == {
        "all_deterministic_assertions_pass": False,
        "no_deterministic_fail": False,
        "no_inconclusive": True,
        "no_rubric_failure": True,
    }
    assert doc["success"]["passed"] is False
    assert ran.code == 1


def test_an_inconclusive_breaks_all_pass_and_no_inconclusive_only(
    tmp_path: Path, good_call: Path
) -> None:
    # No --state: the state check cannot read the system of record.
    ran, doc = run(tmp_path, good_call, [REFUND_RAN, RECORDED], state=False, required=ALL)
    assert statuses(doc) == ["PASS", "INCONCLUSIVE"]
    assert doc["success"]["conditions"] == {
        "all_deterministic_assertions_pass": False,
        "no_deterministic_fail": True,
        "no_inconclusive": False,
        "no_rubric_failure": True,
    }
    assert ran.code == 1  # report policy, but a required condition broke


def test_a_condition_not_required_does_not_gate(tmp_path: Path, good_call: Path) -> None:
    ran, doc = run(
        tmp_path, good_call, [REFUND_RAN, RECORDED], state=False, required=["no_deterministic_fail"]
    )
    assert statuses(doc) == ["PASS", "INCONCLUSIVE"]
    assert doc["success"]["conditions"] == {"no_deterministic_fail": True}
    assert doc["success"]["passed"] is True
    assert ran.code == 0


def test_the_default_condition_is_all_deterministic_assertions_pass(
    tmp_path: Path, good_call: Path
) -> None:
    _, doc = run(tmp_path, good_call, [REFUND_RAN])
    assert doc["success"]["required"] == ["all_deterministic_assertions_pass"]


def test_no_unresolved_inconclusive_without_labels_is_no_inconclusive(
    tmp_path: Path, good_call: Path
) -> None:
    required = ["no_unresolved_inconclusive"]
    _, clean = run(tmp_path, good_call, [REFUND_RAN], required=required)
    assert clean["success"]["conditions"] == {"no_unresolved_inconclusive": True}
    ran, open_ = run(tmp_path, good_call, [RECORDED], state=False, required=required)
    assert open_["success"]["conditions"] == {"no_unresolved_inconclusive": False}
    assert ran.code == 1


def test_no_rubric_failure_holds_when_the_rubric_lane_is_quarantined(
    tmp_path: Path, good_call: Path
) -> None:
    ran, doc = run(tmp_path, good_call, [REFUND_RAN], rubric=[EMPATHY], required=ALL)
    assert doc["rubric"]["results"][0]["status"] == "INCONCLUSIVE"
    assert doc["rubric"]["results"][0]["deterministic"] is False
    assert doc["success"]["conditions"]["no_rubric_failure"] is True
    # The rubric INCONCLUSIVE is counted apart: it breaks no deterministic condition.
    assert doc["success"]["conditions"]["no_inconclusive"] is True
    assert doc["summary"]["deterministic"] == {"pass": 1, "fail": 0, "inconclusive": 0}
    assert doc["summary"]["rubric"]["inconclusive"] == 1
    assert ran.code == 0


def test_no_rubric_failure_breaks_on_a_judge_error_but_never_gates_by_default(
    tmp_path: Path, good_call: Path
) -> None:
    ran, doc = run(
        tmp_path, good_call, [REFUND_RAN], *UNREACHABLE_JUDGE, rubric=[EMPATHY], required=ALL
    )
    assert doc["rubric"]["results"][0]["status"] == "ERROR"
    assert doc["success"]["conditions"]["no_rubric_failure"] is False
    assert doc["success"]["passed"] is True  # law 7: advisory unless gated
    assert doc["rubric"]["gated"] is False
    assert ran.code == 0


# -- exit codes under the inconclusive policy ----------------------------------------------


@pytest.mark.parametrize(
    ("file_policy", "flag", "expected"),
    [
        (None, None, 0),
        ("report", None, 0),
        ("fail", None, 1),
        ("refuse", None, 2),
        (None, "fail", 1),
        (None, "refuse", 2),
        ("refuse", "report", 0),  # the flag wins over the file
        ("report", "fail", 1),
        ("fail", "refuse", 2),
    ],
)
def test_inconclusive_policy_exit_codes(
    tmp_path: Path, good_call: Path, file_policy: str | None, flag: str | None, expected: int
) -> None:
    extra = ["--inconclusive-policy", flag] if flag else []
    test: dict[str, Any] = {"required": ["no_deterministic_fail"]}
    if file_policy:
        test["inconclusive_policy"] = file_policy
    ran, doc = run(tmp_path, good_call, [REFUND_RAN, RECORDED], *extra, state=False, **test)
    assert statuses(doc) == ["PASS", "INCONCLUSIVE"]
    assert ran.code == expected == doc["exit_code"]
    assert doc["inconclusive_policy"] == (flag or file_policy or "report")
    assert doc["success"]["passed"] is True  # the policy alone moved the exit code


def test_refuse_takes_precedence_over_a_fail(tmp_path: Path, good_call: Path) -> None:
    ran, doc = run(
        tmp_path,
        good_call,
        [NEVER_CANCELLED, RECORDED],
        "--inconclusive-policy",
        "refuse",
        state=False,
    )
    assert statuses(doc) == ["FAIL", "INCONCLUSIVE"]
    assert ran.code == 2


def test_a_broken_required_condition_raises_the_exit_code_to_1(
    tmp_path: Path, good_call: Path
) -> None:
    ran, doc = run(
        tmp_path, good_call, [REFUND_RAN, RECORDED], state=False, required=["no_inconclusive"]
    )
    assert doc["inconclusive_policy"] == "report"  # which alone would exit 0
    assert doc["success"]["passed"] is False
    assert ran.code == 1


def test_a_fail_exits_1_as_assert_run_does_even_when_conditions_hold(
    tmp_path: Path, good_call: Path
) -> None:
    """The exit code follows the policy exactly as `assert run` (a FAIL is 1) and is only ever
    raised by the conditions, never lowered."""
    ran, doc = run(tmp_path, good_call, [NEVER_CANCELLED], required=["no_inconclusive"])
    assert doc["success"]["passed"] is True
    assert ran.code == 1


def test_without_any_evidence_every_check_is_inconclusive(tmp_path: Path) -> None:
    path = write_test(tmp_path / "t.json", [REFUND_RAN, DISCLOSED, RECORDED])
    ran = hotato("test", "run", str(path), "--agent", "a", "--format", "json")
    doc = json.loads(ran.out)
    assert statuses(doc) == ["INCONCLUSIVE"] * 3
    assert all(r["deterministic"] is True for r in doc["assertions"]["results"])
    assert ran.code == 1  # all_deterministic_assertions_pass is broken


# -- the scorecard --------------------------------------------------------------------------


def test_the_scorecard_counts_each_dimension(tmp_path: Path, good_call: Path) -> None:
    checks = [REFUND_RAN, NEVER_CANCELLED, RECORDED, DISCLOSED, IN_ORDER, FAST]
    _, doc = run(tmp_path, good_call, checks, state=False)
    counts = {
        d: {k: t[k] for k in ("pass", "fail", "inconclusive")} for d, t in doc["dimensions"].items()
    }
    assert counts == {
        "outcome": {"pass": 1, "fail": 1, "inconclusive": 1},
        "policy": {"pass": 1, "fail": 0, "inconclusive": 0},
        "conversation": {"pass": 1, "fail": 0, "inconclusive": 0},
        "speech": {"pass": 1, "fail": 0, "inconclusive": 0},
        "reliability": {"pass": 0, "fail": 0, "inconclusive": 0},
    }
    # the Reliability dimension carries the reliability figures, the same as `reliability`
    rel = doc["dimensions"]["reliability"]
    assert {k: rel[k] for k in doc["reliability"]["aggregate"]} == doc["reliability"]["aggregate"]
    assert doc["summary"]["deterministic"] == {"pass": 4, "fail": 1, "inconclusive": 1}


def test_untagged_results_get_their_own_row(tmp_path: Path, good_call: Path) -> None:
    untagged = {k: v for k, v in REFUND_RAN.items() if k != "dimension"}
    _, doc = run(tmp_path, good_call, [untagged, DISCLOSED])
    assert doc["dimensions"]["untagged"] == {"pass": 1, "fail": 0, "inconclusive": 0}


def test_the_text_scorecard(tmp_path: Path, good_call: Path) -> None:
    path = write_test(
        tmp_path / "t.json",
        [REFUND_RAN, NEVER_CANCELLED, DISCLOSED],
        [EMPATHY],
        success={"required": ["no_inconclusive"], "report_dimensions": ["outcome", "policy"]},
    )
    ran = hotato("test", "run", str(path), "--agent", "support-v3", *evidence_args(good_call))
    assert ran.code == 1
    out = ran.out
    assert "deterministic lane:" in out
    assert "rubric lane (advisory, never in the exit code; deterministic: false):" in out
    assert "  outcome       1 / 1 / 0\n" in out
    assert "  policy        1 / 0 / 0\n" in out
    assert "  speech " not in out  # only the report_dimensions the test asked for
    assert "holds   no_inconclusive" in out
    assert "deterministic: 2 pass, 1 fail, 0 inconclusive" in out
    assert "rubric (counted apart): 0 pass, 0 fail, 0 error, 1 inconclusive" in out
    assert "success: PASSED; inconclusive policy report; exit 1" in out
    assert "overall" not in out.lower()


def _keys(value: Any) -> set[str]:
    if isinstance(value, dict):
        return set(value) | {k for v in value.values() for k in _keys(v)}
    if isinstance(value, list):
        return {k for v in value for k in _keys(v)}
    return set()


def test_no_output_carries_an_overall_score(tmp_path: Path, good_call: Path) -> None:
    _, doc = run(
        tmp_path, good_call, [REFUND_RAN, NEVER_CANCELLED], "--out", "art", rubric=[EMPATHY]
    )
    assert not any("overall" in k or k == "score" for k in _keys(doc))
    for child in (tmp_path / "art").iterdir():
        if child.suffix == ".json":
            assert "overall_score" not in child.read_text()


def test_the_json_document_shape(tmp_path: Path, good_call: Path) -> None:
    _, doc = run(tmp_path, good_call, [REFUND_RAN], rubric=[EMPATHY])
    for key in (
        "kind",
        "version",
        "test_id",
        "agent",
        "exit_code",
        "inconclusive_policy",
        "success",
        "summary",
        "assertions",
        "rubric",
        "dimensions",
        "report_dimensions",
        "reliability",
    ):
        assert key in doc
    assert doc["kind"] == "hotato.test-run"
    assert doc["test_id"] == "refund-flow"
    assert doc["assertions"]["schema"] == "assert.v1"
    assert set(doc["success"]) >= {"required", "conditions", "passed", "rubric_gated"}
    assert doc["summary"]["note"]


def test_junit_output_and_file(tmp_path: Path, good_call: Path) -> None:
    path = write_test(tmp_path / "t.json", [REFUND_RAN, RECORDED], required=["no_inconclusive"])
    junit_file = tmp_path / "report.xml"
    ran = hotato(
        "test",
        "run",
        str(path),
        "--agent",
        "a",
        *evidence_args(good_call, state=False),
        "--junit",
        str(junit_file),
        "--format",
        "junit",
    )
    assert ran.code == 1
    assert ran.out == junit_file.read_text()
    assert ran.out.startswith('<?xml version="1.0" encoding="utf-8"?>')
    assert 'name="refund-recorded"' in ran.out
    assert "<skipped" in ran.out  # INCONCLUSIVE is skipped, with its reason
    # No assertion FAILed, but the test did: its success testcase says so.
    assert 'failures="1"' in ran.out
    assert "required condition(s) broken: no_inconclusive" in ran.out


def test_a_missing_evidence_file_is_refused(tmp_path: Path, good_call: Path) -> None:
    path = write_test(tmp_path / "t.json", [REFUND_RAN])
    ran = hotato("test", "run", str(path), "--agent", "a", "--trace", str(tmp_path / "nope.jsonl"))
    assert ran.code == 2
    assert "nope.jsonl" in ran.err


def test_an_agent_differing_from_the_test_is_noted_and_recorded(
    tmp_path: Path, good_call: Path
) -> None:
    path = write_test(tmp_path / "t.json", [REFUND_RAN])
    ran = hotato(
        "test", "run", str(path), "--agent", "support-v4", *evidence_args(good_call),
        "--format", "json",
    )  # fmt: skip
    assert ran.code == 0
    assert "differs from the test's agent 'support-v3'" in ran.err
    assert json.loads(ran.out)["agent"] == "support-v4"


def test_a_grounded_fail_from_a_trace_with_no_spans(tmp_path: Path) -> None:
    """Law 2: a trace that was read and holds no tool call FAILs; no trace is INCONCLUSIVE."""
    call = write_call(tmp_path / "empty", spans=[])
    path = write_test(tmp_path / "t.json", [REFUND_RAN])
    ran = hotato("test", "run", str(path), "--agent", "a", "--trace", str(call / "trace.jsonl"))
    assert ran.code == 1
    assert "FAIL          refund-ran" in ran.out
