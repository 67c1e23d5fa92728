"""Golden tests for `hotato assert run`: the real command, its bytes and its exit code.

The call in golden/call/ has a PASS, FAILs, a skipped `when`, a missing source (no --state), a
formula and a judge criterion. Regenerate the golden files after an intended change with
`HOTATO_UPDATE_GOLDEN=1 .venv/bin/pytest tests/cli/test_assert_run.py` and review the diff.
"""

from __future__ import annotations

import json
import os
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from tests.conftest import hotato

GOLDEN = Path(__file__).resolve().parent / "golden"
CALL = GOLDEN / "call"
ARGS = [
    "assert",
    "run",
    "--assertions",
    "assertions.yaml",
    "--trace",
    "trace.jsonl",
    "--transcript",
    "transcript.json",
]
IDS = [
    "refund-claimed",
    "refund-tool-ran",
    "refund-amount",
    "looked-up-first",
    "refund-in-db",
    "said-and-did",
    "no-guarantees",
    "was-empathetic",
]


@pytest.fixture
def call(tmp_path: Path) -> Path:
    work = tmp_path / "call"
    shutil.copytree(CALL, work)
    return work


def golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if os.environ.get("HOTATO_UPDATE_GOLDEN"):
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8"), f"output differs from {path}"


@pytest.mark.parametrize(
    "fmt,name", [("text", "run.txt"), ("json", "run.json"), ("junit", "run.junit.xml")]
)
def test_golden_output(call: Path, fmt: str, name: str) -> None:
    ran = hotato(*ARGS, "--format", fmt, cwd=call)
    assert ran.code == 1, ran.err  # FAILs present
    assert ran.err == ""
    golden(name, ran.out)


@pytest.mark.parametrize("fmt", ["text", "json", "junit"])
def test_same_inputs_same_bytes(call: Path, fmt: str) -> None:
    first = hotato(*ARGS, "--format", fmt, cwd=call)
    second = hotato(*ARGS, "--format", fmt, cwd=call)
    assert first.out == second.out


def test_json_envelope(call: Path) -> None:
    ran = hotato(*ARGS, "--format", "json", cwd=call)
    doc = json.loads(ran.out)
    assert list(doc)[:5] == ["schema", "exit_code", "inconclusive_policy", "results", "summary"]
    assert doc["schema"] == "assert.v1"
    assert doc["exit_code"] == ran.code == 1
    assert doc["inconclusive_policy"] == "report"
    assert [r["id"] for r in doc["results"]] == IDS  # document order
    for r in doc["results"]:
        assert list(r)[:5] == ["id", "kind", "deterministic", "status", "reason"]
        assert r["status"] in ("PASS", "FAIL", "INCONCLUSIVE")
        assert r["deterministic"] is (r["kind"] != "judge_rubric")  # INCONCLUSIVE included
    by_id = {r["id"]: r for r in doc["results"]}
    assert by_id["refund-amount"]["skipped"] is True
    assert by_id["refund-in-db"]["details"] == {"missing": "state"}
    summary = doc["summary"]
    assert summary["deterministic"] == {"pass": 2, "fail": 3, "inconclusive": 2}
    assert summary["judge"] == {"pass": 0, "fail": 0, "inconclusive": 1, "total": 1}
    assert "never merged" in summary["note"]
    assert "overall_score" not in ran.out and "score" not in json.dumps(summary)


def test_text_counts_the_lanes_apart(call: Path) -> None:
    ran = hotato(*ARGS, cwd=call)
    lines = ran.out.splitlines()
    assert "deterministic: 2 pass, 3 fail, 2 inconclusive" in lines
    assert "judge (advisory, counted apart): 1 (0 pass, 0 fail, 1 inconclusive)" in lines
    assert "inconclusive policy: report; exit 1" in lines
    assert any(line.startswith("by kind (pass/fail/inconclusive): ") for line in lines)
    judge_line = next(line for line in lines if "was-empathetic" in line)
    assert judge_line.endswith("[judge lane]")
    assert "\x1b[" not in ran.out  # no colour when stdout is not a terminal


def test_junit_one_testcase_per_assertion(call: Path) -> None:
    ran = hotato(*ARGS, "--format", "junit", cwd=call)
    root = ET.fromstring(ran.out)
    suite = root.find("testsuite")
    assert suite is not None
    cases = suite.findall("testcase")
    assert [c.get("name") for c in cases] == IDS
    assert suite.get("tests") == "8" and suite.get("failures") == "3"
    assert suite.get("skipped") == "3" and suite.get("errors") == "0"
    by_id = {c.get("name"): c for c in cases}
    for ident in ("refund-claimed", "no-guarantees"):
        assert list(by_id[ident]) == []  # a PASS is a bare testcase
    for ident in ("refund-tool-ran", "looked-up-first", "said-and-did"):
        failure = by_id[ident].find("failure")
        assert failure is not None and failure.get("message")
    for ident in ("refund-amount", "refund-in-db", "was-empathetic"):
        skipped = by_id[ident].find("skipped")
        assert skipped is not None
        assert skipped.get("message", "").startswith("INCONCLUSIVE: ")  # with its reason
    assert "no state adapter was provided" in by_id["refund-in-db"][0].get("message", "")
    assert "judge lane" in by_id["was-empathetic"][0].get("message", "")
    assert by_id["refund-tool-ran"].get("classname", "").endswith(".tool_call")


def test_junit_escapes_what_it_quotes(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text(
        "version: 1\nassertions:\n  - {id: 'quote\"amp&lt<', kind: phrase, regex: '<b>&\"'}\n"
    )
    (tmp_path / "turns.json").write_text('[{"role": "agent", "text": "nothing"}]')
    ran = hotato(
        "assert",
        "run",
        "--assertions",
        "a.yaml",
        "--transcript",
        "turns.json",
        "--format",
        "junit",
        cwd=tmp_path,
    )
    assert ran.code == 1
    case = ET.fromstring(ran.out).find("testsuite/testcase")
    assert case is not None and case.get("name") == 'quote"amp&lt<'
    failure = case.find("failure")
    assert failure is not None and '<b>&"' in failure.get("message", "")


def test_every_source_supplied(call: Path) -> None:
    (call / "state.json").write_text(
        json.dumps({"orders": [{"order_id": "A-3090", "refund_status": "none"}]})
    )
    ran = hotato(*ARGS, "--state", "state.json", "--format", "json", cwd=call)
    status = {r["id"]: r["status"] for r in json.loads(ran.out)["results"]}
    assert status["refund-in-db"] == "FAIL"  # read, and the row says otherwise


def test_no_evidence_at_all(call: Path) -> None:
    ran = hotato("assert", "run", "--assertions", "assertions.yaml", "--format", "json", cwd=call)
    assert ran.code == 0  # nothing FAILs when nothing can be read; every check says why
    doc = json.loads(ran.out)
    deterministic = [r for r in doc["results"] if r["deterministic"]]
    formula = next(r for r in deterministic if r["kind"] == "formula")
    assert formula["status"] == "INCONCLUSIVE"
    for r in deterministic:
        assert r["status"] == "INCONCLUSIVE", r
        assert r["reason"]
    assert (
        hotato(
            "assert",
            "run",
            "--assertions",
            "assertions.yaml",
            "--inconclusive-policy",
            "fail",
            cwd=call,
        ).code
        == 1
    )


def test_text_header_names_the_evidence(call: Path) -> None:
    ran = hotato(*ARGS, cwd=call)
    assert ran.out.splitlines()[0] == (
        "hotato assert run: 8 assertion(s) from assertions.yaml "
        "(trace: trace.jsonl, transcript: transcript.json)"
    )


def test_an_id_that_is_not_text_beside_a_formula_is_a_refusal_not_a_crash(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text(
        "version: 1\nassertions:\n  - {id: [1, 2], kind: tool_call, name: x}\n"
        "  - {id: f, kind: formula, expr: a and g}\n"
    )
    ran = hotato("assert", "run", "--assertions", str(tmp_path / "a.yaml"))
    assert ran.code == 2, ran.err
    assert "a.yaml:3:5 $.assertions[0] (tool_call): 'id' is required" in ran.err
    assert "references unknown assertion id 'g'" in ran.err
