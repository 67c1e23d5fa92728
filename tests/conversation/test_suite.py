"""`hotato test run DIR`: every conversation test in a folder against its own call folder."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

from tests.conftest import hotato
from tests.conversation.conftest import (
    DISCLOSED,
    LOOKUP,
    NEVER_CANCELLED,
    RECORDED,
    REFUND_RAN,
    write_call,
    write_test,
)


def make_suite(root: Path) -> Path:
    """Three tests, each paired with its call a different way; `cancel` fails."""
    write_test(root / "refund.json", [REFUND_RAN, DISCLOSED], test_id="refund")
    write_call(root / "refund")  # a sibling folder named like the file
    write_test(root / "state.json", [RECORDED], test_id="state-check")
    write_call(root / "state.call")  # or like the file plus .call
    write_test(root / "cancel.json", [NEVER_CANCELLED], test_id="cancel", call="calls/c1")
    write_call(root / "calls" / "c1")  # or named by the test's `call:`
    (root / "notes.yaml").write_text("not: a test\n")  # other files are ignored
    return root


def test_a_suite_prints_one_line_per_test_and_a_summary(tmp_path: Path) -> None:
    suite = make_suite(tmp_path / "suite")
    ran = hotato("test", "run", str(suite), "--agent", "support-v3")
    assert ran.code == 1  # one test failed
    lines = ran.out.splitlines()
    assert lines[0] == f"hotato test run: suite {suite} (3 test(s))"
    assert "  FAILED  cancel  0 pass, 1 fail, 0 inconclusive; exit 1" in lines
    assert "  PASSED  refund  2 pass, 0 fail, 0 inconclusive; exit 0" in lines
    assert "  PASSED  state-check  1 pass, 0 fail, 0 inconclusive; exit 0" in lines
    assert lines[-1] == "suite: 2 passed, 1 failed; exit 1"


def test_a_passing_suite_exits_0(tmp_path: Path) -> None:
    suite = make_suite(tmp_path / "suite")
    (suite / "cancel.json").unlink()
    ran = hotato("test", "run", str(suite), "--agent", "support-v3")
    assert ran.code == 0
    assert ran.out.splitlines()[-1] == "suite: 2 passed, 0 failed; exit 0"


def test_a_suite_fails_on_a_broken_condition_without_any_fail(tmp_path: Path) -> None:
    suite = tmp_path / "suite"
    write_test(suite / "t.json", [RECORDED], required=["no_inconclusive"])
    write_call(suite / "t", with_state=False)
    ran = hotato("test", "run", str(suite), "--agent", "a")
    assert ran.code == 1
    assert "FAILED  refund-flow  0 pass, 0 fail, 1 inconclusive; exit 1" in ran.out


def test_a_suite_writes_junit(tmp_path: Path) -> None:
    suite = make_suite(tmp_path / "suite")
    report = tmp_path / "report.xml"
    ran = hotato("test", "run", str(suite), "--agent", "support-v3", "--junit", str(report))
    assert ran.code == 1
    root = ET.fromstring(report.read_text())
    suites = {s.get("name"): s for s in root.iter("testsuite")}
    assert set(suites) == {"refund", "state-check", "cancel"}
    assert suites["cancel"].get("failures") == "2"  # the assertion, and the test's success
    assert suites["refund"].get("failures") == "0"
    failed = [
        c.get("name") for c in suites["cancel"].iter("testcase") if c.find("failure") is not None
    ]
    assert failed == ["cancelled", "success"]


def test_a_suite_as_json(tmp_path: Path) -> None:
    suite = make_suite(tmp_path / "suite")
    ran = hotato("test", "run", str(suite), "--agent", "support-v3", "--format", "json")
    doc = json.loads(ran.out)
    assert doc["kind"] == "hotato.test-suite"
    assert doc["passed"] is False
    assert doc["exit_code"] == ran.code == 1
    assert [t["test_id"] for t in doc["tests"]] == ["cancel", "refund", "state-check"]


def test_a_suite_binds_one_artifact_per_test(tmp_path: Path) -> None:
    suite = make_suite(tmp_path / "suite")
    out = tmp_path / "artifacts"
    ran = hotato(
        "test", "run", str(suite), "--agent", "support-v3", "--out", str(out),
        "--created-at", "2026-01-01T00:00:00Z",
    )  # fmt: skip
    assert ran.code == 1
    assert sorted(p.name for p in out.iterdir()) == ["cancel", "refund", "state-check"]
    for artifact in out.iterdir():
        verified = hotato("conversation", "verify", str(artifact))
        assert verified.code == 0, verified.out
    manifest = json.loads((out / "state-check" / "conversation.json").read_text())
    assert manifest["test_id"] == "state-check"
    assert "state" in manifest["artifacts"]


def test_a_test_with_no_call_folder_refuses_the_suite_and_writes_nothing(tmp_path: Path) -> None:
    suite = make_suite(tmp_path / "suite")
    write_test(suite / "zz-orphan.json", [REFUND_RAN], test_id="orphan")
    out, report = tmp_path / "artifacts", tmp_path / "report.xml"
    ran = hotato(
        "test", "run", str(suite), "--agent", "a", "--out", str(out), "--junit", str(report)
    )  # fmt: skip
    assert ran.code == 2
    assert "no call folder for this test" in ran.err
    assert "zz-orphan" in ran.err
    assert not out.exists() and not report.exists()


def test_a_malformed_trace_in_a_later_call_writes_nothing(tmp_path: Path) -> None:
    suite = make_suite(tmp_path / "suite")
    (suite / "state.call" / "trace.jsonl").write_text("{not json\n")
    out = tmp_path / "artifacts"
    ran = hotato("test", "run", str(suite), "--agent", "a", "--out", str(out))
    assert ran.code == 2
    assert not out.exists()


def test_an_invalid_test_in_the_folder_refuses_the_suite(tmp_path: Path) -> None:
    suite = make_suite(tmp_path / "suite")
    (suite / "bad.yaml").write_text(
        "kind: hotato.conversation-test\nid: bad\nagent: a\nassertions: {}\nsuccess:\n"
        "  required: [everything_passes]\n"
    )
    ran = hotato("test", "run", str(suite), "--agent", "a")
    assert ran.code == 2
    assert "bad.yaml:6:" in ran.err and "$.success.required[0]" in ran.err


def test_two_tests_sharing_an_id_are_refused(tmp_path: Path) -> None:
    suite = make_suite(tmp_path / "suite")
    write_test(suite / "again.json", [REFUND_RAN], test_id="refund")
    write_call(suite / "again")
    ran = hotato("test", "run", str(suite), "--agent", "a", "--out", str(tmp_path / "o"))
    assert ran.code == 2
    assert "two tests share the id 'refund'" in ran.err
    assert not (tmp_path / "o").exists()


def test_a_folder_with_no_tests_is_refused(tmp_path: Path) -> None:
    (tmp_path / "notes.yaml").write_text("a: 1\n")
    ran = hotato("test", "run", str(tmp_path), "--agent", "a")
    assert ran.code == 2
    assert "holds no conversation tests" in ran.err


def test_a_suite_refuses_single_call_evidence(tmp_path: Path) -> None:
    suite = make_suite(tmp_path / "suite")
    ran = hotato(
        "test", "run", str(suite), "--agent", "a", "--trace", str(suite / "refund" / "trace.jsonl")
    )  # fmt: skip
    assert ran.code == 2
    assert "reads each test's call from its own folder" in ran.err


def test_a_suite_out_that_is_a_file_is_refused(tmp_path: Path) -> None:
    suite = make_suite(tmp_path / "suite")
    target = tmp_path / "out.txt"
    target.write_text("mine")
    ran = hotato("test", "run", str(suite), "--agent", "a", "--out", str(target))
    assert ran.code == 2
    assert target.read_text() == "mine"


def test_a_suite_out_under_a_missing_folder_is_refused(tmp_path: Path) -> None:
    suite = make_suite(tmp_path / "suite")
    ran = hotato("test", "run", str(suite), "--agent", "a", "--out", str(tmp_path / "a" / "b"))
    assert ran.code == 2
    assert not (tmp_path / "a").exists()


def test_a_test_id_that_cannot_name_a_folder_is_refused_with_out(tmp_path: Path) -> None:
    suite = tmp_path / "suite"
    write_test(suite / "t.json", [REFUND_RAN], test_id="../escape")
    write_call(suite / "t")
    ran = hotato("test", "run", str(suite), "--agent", "a", "--out", str(tmp_path / "o"))
    assert ran.code == 2
    assert not (tmp_path / "escape").exists() and not (tmp_path / "o").exists()


def test_a_suite_with_a_failing_call_reports_the_failing_test(tmp_path: Path) -> None:
    suite = tmp_path / "suite"
    write_test(suite / "a.json", [REFUND_RAN], test_id="a")
    write_call(suite / "a")
    write_test(suite / "b.json", [REFUND_RAN], test_id="b")
    write_call(suite / "b", spans=[LOOKUP])  # the refund never ran on this call
    ran = hotato("test", "run", str(suite), "--agent", "a")
    assert ran.code == 1
    assert "  FAILED  b  0 pass, 1 fail, 0 inconclusive; exit 1" in ran.out
