"""The pytest plugin, run by pytest itself (pytester): recorded calls as items with the ids
`hotato test run` shows, verdicts as pass, fail, warning or error, and the `hotato` fixture."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.conversation.conftest import (
    DISCLOSED,
    NEVER_CANCELLED,
    RECORDED,
    REFUND_RAN,
    write_call,
    write_test,
)

pytest_plugins = ["pytester"]


@pytest.fixture
def calls(pytester: pytest.Pytester) -> Path:
    """A folder of conversation tests, each beside its call folder: one passes, one fails, one
    is INCONCLUSIVE under each policy, and one has two trials."""
    root = pytester.path / "calls"
    write_test(root / "refund.json", [REFUND_RAN, DISCLOSED], test_id="refund")
    write_call(root / "refund")
    write_test(root / "cancel.json", [NEVER_CANCELLED], test_id="cancel")
    write_call(root / "cancel")
    for policy in ("report", "fail", "refuse"):
        write_test(
            root / f"unsure-{policy}.json",
            [RECORDED],
            required=["no_deterministic_fail"],
            test_id=f"unsure-{policy}",
            inconclusive_policy=policy,
        )
        write_call(root / f"unsure-{policy}", with_state=False)
    write_test(root / "trials.json", [REFUND_RAN], test_id="twice")
    write_call(root / "trials" / "call-1")
    write_call(root / "trials" / "call-2")
    return root


def test_each_call_is_an_item_with_the_cli_ids(pytester: pytest.Pytester, calls: Path) -> None:
    result = pytester.runpytest("--hotato", str(calls), "--collect-only", "-q")
    names = sorted(line.split("::")[-1] for line in result.outlines if "::" in line)
    assert names == [
        "cancel",
        "refund",
        "twice[call-1]",
        "twice[call-2]",
        "unsure-fail",
        "unsure-refuse",
        "unsure-report",
    ]


def test_verdicts_follow_the_inconclusive_policy(pytester: pytest.Pytester, calls: Path) -> None:
    result = pytester.runpytest("--hotato", str(calls), "-rA")
    result.assert_outcomes(passed=4, failed=2, errors=1, warnings=1)
    result.stdout.fnmatch_lines(["*HotatoInconclusive: unsure-report: 1 check(s) INCONCLUSIVE*"])
    text = result.stdout.str()
    assert "deterministic lane:" in text and "FAIL          cancelled" in text
    assert "ERROR at setup of unsure-refuse" in text
    assert "Traceback" not in text and "pytest_plugin.py" not in text


def test_k_x_and_junitxml(pytester: pytest.Pytester, calls: Path) -> None:
    picked = pytester.runpytest("--hotato", str(calls), "-k", "call-2")
    picked.assert_outcomes(passed=1, deselected=6)
    stopped = pytester.runpytest("--hotato", str(calls), "-x", "-p", "no:randomly")
    stopped.assert_outcomes(failed=1)
    junit = pytester.path / "out.xml"
    pytester.runpytest("--hotato", str(calls), f"--junitxml={junit}")
    xml = junit.read_text()
    assert 'name="twice[call-1]"' in xml and "<failure" in xml


def test_hotato_paths_in_the_ini(pytester: pytest.Pytester, calls: Path) -> None:
    pytester.makeini("[pytest]\nhotato_paths = calls\n")
    pytester.runpytest("-k", "refund").assert_outcomes(passed=1, deselected=6)


def test_inert_unless_asked(pytester: pytest.Pytester, calls: Path) -> None:
    result = pytester.runpytest(str(calls))
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED


def test_an_assertions_file_beside_a_folder_of_calls(pytester: pytest.Pytester) -> None:
    suite = pytester.path / "suite"
    suite.mkdir()
    (suite / "refund.json").write_text(json.dumps({"version": 1, "assertions": [REFUND_RAN]}))
    write_call(suite / "refund" / "monday")
    write_call(suite / "refund" / "tuesday", spans=[])
    result = pytester.runpytest("--hotato", str(suite), "-v")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*refund[[]monday[]] PASSED*", "*refund[[]tuesday[]] FAILED*"])


def test_the_fixture(pytester: pytest.Pytester) -> None:
    call = write_call(pytester.path / "call")
    (pytester.path / "a.json").write_text(
        json.dumps({"version": 1, "assertions": [REFUND_RAN, NEVER_CANCELLED]})
    )
    pytester.makepyfile(
        f"""
        TRACE = {str(call / "trace.jsonl")!r}

        def test_table(hotato):
            hotato.grade("a.json", trace=TRACE).assert_passed()

        def test_plain_assert(hotato):
            result = hotato.grade("a.json", trace=TRACE)
            assert result.passed
        """
    )
    result = pytester.runpytest()
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines(["*NotPassed*", "*FAIL*cancelled*"])
    result.stdout.fnmatch_lines(["*AssertionsResult(exit 1; policy report; FAIL: cancelled)*"])


@pytest.mark.slow  # pytest with xdist workers in a process
def test_xdist_spreads_the_calls(pytester: pytest.Pytester, calls: Path) -> None:
    pytest.importorskip("xdist")
    result = pytester.runpytest("--hotato", str(calls), "-n", "2")
    result.assert_outcomes(passed=4, failed=2, errors=1, warnings=1)
