"""Files written for hotato 1.x, in every shape 1.x read, graded as 1.x graded them.

Each folder under cases/ holds 1.x-shaped inputs (assertion files, conversation tests, voice
traces with fields at the top level or under `attributes`, transcripts, JSON sandboxes), the
command, and expected.json: the verdicts now, the verdicts hotato 1.20.0 gave (recorded with
scripts/compat_record.py; 1.16 to 1.20 grade these alike), and for every verdict that differs,
the reason it differs on purpose. Every such difference is listed in docs/compatibility.md.
Runs without 1.x installed.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import hotato

CASES_DIR = Path(__file__).resolve().parent / "cases"
CASES = sorted(p for p in CASES_DIR.iterdir() if (p / "case.json").exists())
COMPAT_DOC = Path(__file__).resolve().parents[2] / "docs" / "compatibility.md"


def _graded(out: str) -> tuple[dict[str, str], bool | None]:
    doc: dict[str, Any] = json.loads(out) if out.strip() else {}
    results = doc.get("results")
    if results is None:
        results = doc.get("assertions", {}).get("results", [])
    seen = {r["id"]: r["status"] + (" skipped" if r.get("skipped") else "") for r in results}
    for r in doc.get("rubric", {}).get("results", []):
        seen[r["id"]] = r["status"]
    success = doc.get("success", {})
    return seen, success.get("passed") if isinstance(success, dict) else None


@pytest.mark.parametrize("folder", CASES, ids=[p.name for p in CASES])
def test_case(folder: Path, tmp_path: Path) -> None:
    case = json.loads((folder / "case.json").read_text(encoding="utf-8"))
    expected = json.loads((folder / "expected.json").read_text(encoding="utf-8"))
    work = tmp_path / folder.name
    shutil.copytree(folder, work)
    ran = hotato(*case["argv"], cwd=work)
    results, passed = _graded(ran.out)
    assert ran.code == expected["exit_code"], ran.err
    assert results == expected["results"]
    if "success_passed" in expected:
        assert passed is expected["success_passed"]
    if ran.code == 2:
        assert ran.err.startswith("hotato: refused"), ran.err


@pytest.mark.parametrize("folder", CASES, ids=[p.name for p in CASES])
def test_every_difference_from_1x_has_its_reason(folder: Path) -> None:
    expected = json.loads((folder / "expected.json").read_text(encoding="utf-8"))
    then = expected["hotato_1x"]
    differing = {i for i, s in expected["results"].items() if then["results"].get(i) != s}
    differing |= set(then["results"]) - set(expected["results"])
    if then["exit_code"] != expected["exit_code"]:
        differing.add("exit_code")
    if then.get("success_passed") != expected.get("success_passed"):
        differing.add("success_passed")
    reasons = expected.get("differences", {})
    assert set(reasons) == differing, "a difference from 1.x without a reason, or a stale one"
    assert all(why and why != "TODO" for why in reasons.values())


def test_every_difference_is_listed_in_the_compatibility_page() -> None:
    page = COMPAT_DOC.read_text(encoding="utf-8")
    for folder in CASES:
        expected = json.loads((folder / "expected.json").read_text(encoding="utf-8"))
        for ident in expected.get("differences", {}):
            if ident in ("exit_code", "success_passed"):
                continue
            assert f"`{folder.name}/{ident}`" in page, f"{folder.name}/{ident} not in {COMPAT_DOC}"


# Every kind hotato 1.x accepted (1.16 to 1.20 alike).
KINDS_1X = {
    "phrase",
    "pii",
    "policy",
    "tool_call",
    "outcome",
    "tool_result",
    "tool_error",
    "http_result",
    "state",
    "state_change",
    "handoff",
    "dtmf",
    "termination",
    "latency",
    "timing_contract",
    "entity_accuracy",
    "sequence",
    "count",
    "formula",
    "order",
    "human_rubric",
    "judge_rubric",
}


def test_the_corpus_covers_every_kind() -> None:
    from hotato.kinds import KINDS

    assert set(KINDS) >= KINDS_1X
    used: set[str] = set()
    for folder in CASES:
        for name in ("assertions.yaml", "test.yaml"):
            path = folder / name
            if path.exists():
                used |= {
                    line.split(":", 1)[1].strip()
                    for line in path.read_text(encoding="utf-8").splitlines()
                    if line.strip().startswith("kind:") and "hotato." not in line
                }
    assert KINDS_1X - used == set()
