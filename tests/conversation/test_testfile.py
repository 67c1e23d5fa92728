"""Test-file validation through the real CLI: closed vocabularies, no overall_score anywhere,
assertions checked at load, every problem located (file:line:col and JSON path), exit 2 and
nothing written."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from tests.conftest import hotato
from tests.conversation.conftest import DISCLOSED, EMPATHY, REFUND_RAN, write_call, write_test

HEAD = """\
kind: hotato.conversation-test
version: 1
id: refund-flow
agent: support-v3
"""

ASSERTIONS = """\
assertions:
  deterministic:
    - id: refund-ran
      kind: tool_call
      name: issue_refund
      dimension: outcome
"""


def _write(tmp_path: Path, body: str, name: str = "t.yaml") -> Path:
    path = tmp_path / name
    path.write_text(body)
    return path


def _refused(tmp_path: Path, body: str, name: str = "t.yaml", run: bool = True) -> str:
    """`scenario validate` (and `test run`, unless run=False) refuse the file with exit 2,
    writing nothing; returns the combined message."""
    path = _write(tmp_path, body, name)
    checked = hotato("scenario", "validate", str(path))
    assert checked.code == 2, checked.out + checked.err
    assert "0 valid, 1 invalid" in checked.out
    if not run:
        return checked.out
    ran = hotato("test", "run", str(path), "--agent", "support-v3", "--out", str(tmp_path / "a"))
    assert ran.code == 2, ran.out + ran.err
    assert ran.out == ""
    assert not (tmp_path / "a").exists()  # nothing written
    return checked.out + ran.err


def _located(text: str, file: Path, line: int, json_path: str) -> bool:
    """A `file:line:col $.path` location is in the text."""
    pattern = rf"{re.escape(str(file))}:{line}:\d+ {re.escape(json_path)}[ :]"
    return re.search(pattern, text) is not None


def test_unknown_condition_is_refused_located(tmp_path: Path) -> None:
    body = (
        HEAD + ASSERTIONS + "success:\n  required: [all_deterministic_assertions_pass, all_pass]\n"
    )
    out = _refused(tmp_path, body)
    assert _located(out, tmp_path / "t.yaml", 12, "$.success.required[1]")
    assert "unknown condition 'all_pass'" in out
    for name in ("no_deterministic_fail", "no_rubric_failure", "no_inconclusive"):
        assert name in out  # the closed vocabulary is listed


def test_unknown_condition_gets_a_hint(tmp_path: Path) -> None:
    body = HEAD + ASSERTIONS + "success:\n  required: [no_inconclusiv]\n"
    out = _refused(tmp_path, body)
    assert "did you mean 'no_inconclusive'" in out


def test_unknown_report_dimension_is_refused_located(tmp_path: Path) -> None:
    body = HEAD + ASSERTIONS + "success:\n  report_dimensions: [outcome, vibes]\n"
    out = _refused(tmp_path, body)
    assert _located(out, tmp_path / "t.yaml", 12, "$.success.report_dimensions[1]")
    assert "unknown dimension 'vibes'" in out
    assert "outcome, policy, conversation, speech, reliability" in out


def test_unknown_assertion_dimension_is_refused_located(tmp_path: Path) -> None:
    body = HEAD + ASSERTIONS.replace("dimension: outcome", "dimension: outcomes")
    out = _refused(tmp_path, body)
    assert _located(out, tmp_path / "t.yaml", 10, "$.assertions.deterministic[0].dimension")


def test_conditions_and_dimensions_must_be_lists_of_strings(tmp_path: Path) -> None:
    body = HEAD + ASSERTIONS + "success:\n  required: all_deterministic_assertions_pass\n"
    out = _refused(tmp_path, body)
    assert "$.success.required" in out
    assert "must be a list of strings" in out


@pytest.mark.parametrize(
    ("where", "body", "json_path"),
    [
        ("top level", HEAD + "overall_score: 0.9\n" + ASSERTIONS, "$.overall_score"),
        (
            "success",
            HEAD + ASSERTIONS + "success:\n  overall_score: 0.9\n",
            "$.success.overall_score",
        ),
        (
            "caller facts",
            HEAD + "caller:\n  facts: {overall_score: 3}\n" + ASSERTIONS,
            "$.caller.facts.overall_score",
        ),
        (
            "inside an assertion",
            HEAD + ASSERTIONS + "      overall_score: 1\n",
            "$.assertions.deterministic[0].overall_score",
        ),
    ],
)
def test_overall_score_anywhere_is_refused(
    tmp_path: Path, where: str, body: str, json_path: str
) -> None:
    out = _refused(tmp_path, body)
    assert f"{json_path}: 'overall_score' is refused" in out, where


def test_overall_score_in_a_json_test_file_is_located(tmp_path: Path) -> None:
    doc = {
        "kind": "hotato.conversation-test",
        "id": "x",
        "agent": "a",
        "assertions": {"deterministic": [REFUND_RAN]},
        "environment": {"nested": [{"overall_score": 1}]},
    }
    path = tmp_path / "t.json"
    path.write_text(json.dumps(doc, indent=2))
    ran = hotato("scenario", "validate", str(path))
    assert ran.code == 2
    assert re.search(r"t\.json:\d+:\d+ \$\.environment\.nested\[0\]\.overall_score", ran.out)


def test_assertions_are_validated_when_the_file_loads(tmp_path: Path, good_call: Path) -> None:
    body = (
        HEAD
        + """\
assertions:
  deterministic:
    - id: refund-ran
      kind: tool_call
      nme: issue_refund
    - id: disclosed
      kind: phrase
      regex: "(unclosed"
    - id: what
      kind: sentiment
"""
    )
    path = _write(tmp_path, body)
    out = _refused(tmp_path, body)
    assert _located(out, path, 9, "$.assertions.deterministic[0].nme")
    assert "did you mean 'name'" in out
    assert "$.assertions.deterministic[1]" in out
    assert "$.assertions.deterministic[2]" in out
    assert "sentiment" in out
    # Refused before any evidence is read, even with a real call supplied.
    ran = hotato(
        "test",
        "run",
        str(path),
        "--agent",
        "support-v3",
        "--trace",
        str(good_call / "trace.jsonl"),
        "--out",
        str(tmp_path / "art"),
    )
    assert ran.code == 2
    assert not (tmp_path / "art").exists()


@pytest.mark.parametrize("kind", ["judge_rubric", "human_rubric"])
def test_rubric_kinds_in_the_deterministic_lane_are_refused(tmp_path: Path, kind: str) -> None:
    body = HEAD + (
        "assertions:\n"
        "  deterministic:\n"
        f"    - id: warm\n      kind: {kind}\n      criterion: was the agent warm?\n"
    )
    out = _refused(tmp_path, body)
    assert _located(out, tmp_path / "t.yaml", 7, "$.assertions.deterministic[0]")
    assert f"{kind} belongs in assertions.rubric" in out


def test_a_deterministic_kind_in_the_rubric_lane_is_refused(tmp_path: Path) -> None:
    body = HEAD + (
        "assertions:\n  rubric:\n    - id: disclosed\n      kind: phrase\n      regex: recorded\n"
    )
    out = _refused(tmp_path, body)
    assert "$.assertions.rubric[0]: phrase belongs in assertions.deterministic" in out


def test_an_id_used_in_both_lanes_is_refused(tmp_path: Path) -> None:
    path = write_test(tmp_path / "t.json", [REFUND_RAN], [{**EMPATHY, "id": "refund-ran"}])
    ran = hotato("scenario", "validate", str(path))
    assert ran.code == 2
    assert "$.assertions.rubric[0]: duplicate id 'refund-ran'" in ran.out


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (HEAD + "caler: {}\n" + ASSERTIONS, "unknown key 'caler'; did you mean 'caller'?"),
        (HEAD + "caller: {mood: grumpy}\n" + ASSERTIONS, "$.caller.mood: unknown key 'mood'"),
        (HEAD + "simulator: {model: x}\n" + ASSERTIONS, "$.simulator.model: unknown key"),
        (HEAD + "simulator: [1]\n" + ASSERTIONS, "'simulator' must be a mapping"),
        (HEAD + ASSERTIONS + "success: {gate: true}\n", "$.success.gate: unknown key 'gate'"),
        (HEAD + ASSERTIONS + "success: [x]\n", "'success' must be a mapping"),
        (HEAD.replace("hotato.conversation-test", "hotato.assert"), "expected kind"),
        (HEAD.replace("version: 1", "version: 2") + ASSERTIONS, "unsupported version 2"),
        (HEAD.replace("id: refund-flow\n", "") + ASSERTIONS, "'id' is required"),
        (HEAD.replace("agent: support-v3\n", "agent: ''\n") + ASSERTIONS, "'agent' is required"),
        (HEAD, "'assertions' is required"),
        (HEAD + "assertions: [1]\n", "'assertions' must be a mapping"),
        (HEAD + "assertions: {determinstic: []}\n", "did you mean 'deterministic'"),
        (HEAD + ASSERTIONS + "repetitions: 0\n", "'repetitions' must be a whole number"),
        (HEAD + ASSERTIONS + "repetitions: true\n", "'repetitions' must be a whole number"),
        (HEAD + ASSERTIONS + "repetitions: two\n", "'repetitions' must be a whole number"),
        (HEAD + ASSERTIONS + "inconclusive_policy: strict\n", "inconclusive_policy must be"),
        (HEAD + ASSERTIONS + "call: [a]\n", "'call' must be a folder path"),
        ("- just\n- a list\n", "a conversation test must be a mapping"),
        (HEAD + "id: again\n" + ASSERTIONS, "duplicate key"),
        (HEAD + "assertions: {deterministic: [\n", "not valid YAML"),
    ],
)
def test_malformed_test_files_are_refused(tmp_path: Path, body: str, expected: str) -> None:
    out = _refused(tmp_path, body, run=expected in ("expected kind", "duplicate key"))
    assert expected in out
    assert str(tmp_path / "t.yaml") in out  # named


def test_every_problem_is_reported_at_once(tmp_path: Path) -> None:
    body = (
        HEAD
        + "caler: {}\n"
        + ASSERTIONS.replace("dimension: outcome", "dimension: vibes")
        + "success:\n  required: [all_pass]\n  report_dimensions: [mood]\n"
    )
    out = _refused(tmp_path, body)
    for fragment in ("'caler'", "dimension", "'all_pass'", "'mood'"):
        assert fragment in out


def test_a_malformed_json_test_file_names_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    path.write_text('{\n  "kind": "hotato.conversation-test",\n  "id": ,\n}\n')
    ran = hotato("scenario", "validate", str(path))
    assert ran.code == 2
    assert re.search(r"t\.json:3:\d+: conversation test is not valid JSON", ran.out)


def test_a_valid_test_file_loads(tmp_path: Path) -> None:
    path = write_test(
        tmp_path / "t.json",
        [REFUND_RAN, DISCLOSED],
        [EMPATHY],
        required=["no_deterministic_fail", "no_inconclusive"],
        caller={"persona": "p", "goal": "g", "facts": {"order_id": "A-1001"}},
        simulator={"model_id": "m", "scenario_id": "s", "seed": 7},
        repetitions=3,
        inconclusive_policy="fail",
    )
    ran = hotato("scenario", "validate", str(path), "--format", "json")
    assert ran.code == 0, ran.out
    doc = json.loads(ran.out)
    assert doc == {
        "ok": True,
        "files": [{"file": str(path), "ok": True, "id": "refund-flow", "assertions": 3}],
    }


def test_a_deeply_nested_json_test_file_is_refused_not_crashed(tmp_path: Path) -> None:
    deep = "[" * 5000 + "]" * 5000
    path = tmp_path / "t.json"
    path.write_text(
        '{"kind": "hotato.conversation-test", "id": "x", "agent": "a", '
        f'"caller": {{"facts": {deep}}}, "assertions": {{}}}}'
    )
    assert hotato("scenario", "validate", str(path)).code == 2


def test_a_deeply_nested_yaml_test_file_is_refused(tmp_path: Path) -> None:
    deep = "[" * 5000 + "]" * 5000
    body = HEAD + ASSERTIONS + f"caller: {{facts: {deep}}}\n"
    assert "maximum nesting depth" in _refused(tmp_path, body)


def test_a_call_folder_named_by_the_test_is_used(tmp_path: Path) -> None:
    write_call(tmp_path / "calls" / "one")
    path = write_test(tmp_path / "t.json", [REFUND_RAN, DISCLOSED], call="calls/one")
    ran = hotato("test", "run", str(path), "--agent", "support-v3", "--format", "json")
    assert ran.code == 0, ran.err
    statuses = [r["status"] for r in json.loads(ran.out)["assertions"]["results"]]
    assert statuses == ["PASS", "PASS"]
