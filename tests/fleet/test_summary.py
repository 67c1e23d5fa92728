"""`hotato fleet summary`: per assertion n, pass, fail, inconclusive and a Wilson 95% interval
over pass + fail; INCONCLUSIVE is never a pass or a fail."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.conftest import hotato
from tests.fleet.conftest import make_fleet

from hotato.conversation.reliability import wilson
from hotato.fleet.grade import FleetRequest, grade_fleet


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("summary")
    fleet = make_fleet(root / "fleet", calls=12)
    out = root / "r"
    grade_fleet(
        FleetRequest(
            calls=str(fleet.manifest),
            out=str(out),
            assertions=str(fleet.assertions),
            state=str(fleet.state),
            workers=1,
        )
    )
    return out


def summary(out: Path, *flags: str) -> dict:
    ran = hotato("fleet", "summary", str(out), "--format", "json", *flags)
    assert ran.code == 0, ran.err
    return json.loads(ran.out)


def test_rates_leave_inconclusive_out(graded: Path) -> None:
    doc = summary(graded)
    assert doc["calls"] == {"calls": 12, "graded": 12, "refused": 0}
    rates = {r["assertion_id"]: r for r in doc["rates"]}
    phrase = rates["claimed-refund"]  # 4 of 12 calls have no transcript
    assert (phrase["n"], phrase["passed"], phrase["failed"], phrase["inconclusive"]) == (
        12,
        8,
        0,
        4,
    )
    assert phrase["rate"] == 1.0 and [phrase["low"], phrase["high"]] == list(wilson(8, 8))
    state = rates["refund-recorded"]
    assert (state["passed"], state["failed"], state["rate"]) == (6, 6, 0.5)
    assert [state["low"], state["high"]] == list(wilson(6, 12))


def test_grouped_by_agent_day_dimension_kind(graded: Path) -> None:
    by_agent = summary(graded, "--by", "agent")["rates"]
    assert {(r["group"], r["assertion_id"]) for r in by_agent} == {
        (a, i)
        for a in ("v1", "v2")
        for i in ("claimed-refund", "looked-up-own-order", "refund-recorded")
    }
    days = {r["group"] for r in summary(graded, "--by", "day")["rates"]}
    assert days == {"2026-11-01", "2026-11-02"}
    dims = {r["group"]: r["n"] for r in summary(graded, "--by", "dimension")["rates"]}
    assert dims == {"conversation": 12, "outcome": 24}
    kinds = {r["group"] for r in summary(graded, "--by", "kind")["rates"]}
    assert kinds == {"phrase", "tool_call", "state"}


def test_text_table(graded: Path) -> None:
    ran = hotato("fleet", "summary", str(graded))
    assert ran.code == 0
    assert "12 call(s), 12 graded, 0 refused" in ran.out
    line = next(x for x in ran.out.splitlines() if x.startswith("refund-recorded"))
    assert line.split()[1:6] == ["12", "6", "6", "0", "0.500"]


def test_not_a_results_folder(tmp_path: Path) -> None:
    ran = hotato("fleet", "summary", str(tmp_path))
    assert ran.code == 2 and "not a fleet results folder" in ran.err


def test_the_library_calls(tmp_path: Path) -> None:
    import hotato

    fleet = make_fleet(tmp_path / "fleet", calls=4)
    done = hotato.grade_fleet(
        fleet.manifest,
        assertions=fleet.assertions,
        state=str(fleet.state),
        out=tmp_path / "r",
        workers=1,
    )
    assert done.totals is not None and (done.totals.graded, done.totals.failed_calls) == (4, 4)
    rates = {r.assertion_id: r for r in hotato.fleet_summary(tmp_path / "r").rates}
    assert (rates["refund-recorded"].passed, rates["refund-recorded"].failed) == (2, 2)
