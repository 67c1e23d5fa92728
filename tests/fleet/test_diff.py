"""`hotato fleet diff`: a two-proportion test per assertion and the calls that changed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.conftest import hotato
from tests.fleet.conftest import make_fleet

from hotato.fleet.diff import two_proportion
from hotato.fleet.grade import FleetRequest, grade_fleet


def run(root: Path, order_of: dict[int, str]) -> Path:
    fleet = make_fleet(root / "fleet", calls=12)
    rows = fleet.rows()
    for i, order in order_of.items():
        rows[i]["order_id"] = order
    fleet.manifest.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = root / "results"
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


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("diff")
    # before: the fleet as made (half the calls' orders refunded); after: none refunded
    before = run(root / "before", {})
    after = run(root / "after", {i: "A-3090" for i in range(12)})
    return before, after


def test_two_proportion_test() -> None:
    z, p = two_proportion(6, 12, 0, 12)  # pooled 0.25: se = sqrt(0.25 * 0.75 * (2/12))
    assert z == pytest.approx(-2.828427, abs=1e-6)
    assert p == pytest.approx(0.004678, abs=1e-6)
    assert two_proportion(0, 0, 3, 4) == (None, None)
    assert two_proportion(5, 5, 7, 7) == (0.0, 1.0)


def test_a_regression_is_found_and_its_calls_listed(runs: tuple[Path, Path]) -> None:
    before, after = runs
    ran = hotato("fleet", "diff", str(before), str(after), "--format", "json")
    assert ran.code == 1, ran.err
    doc = json.loads(ran.out)
    verdicts = {c["assertion_id"]: c["verdict"] for c in doc["assertions"]}
    assert verdicts["refund-recorded"] == "regressed"
    assert verdicts["claimed-refund"] == "unchanged"
    # the odd calls looked up A-3090 all along; now that is their own order: improved
    assert verdicts["looked-up-own-order"] == "improved"
    changed = {(c["call_id"], c["assertion_id"]) for c in doc["calls"]}
    assert ("c001", "refund-recorded") in changed and ("c000", "refund-recorded") not in changed
    assert doc["changed_calls"] == 12


def test_text_and_no_regression(runs: tuple[Path, Path]) -> None:
    before, after = runs
    ran = hotato("fleet", "diff", str(before), str(before))
    assert ran.code == 0
    assert "0 call x assertion result(s) changed" in ran.out
    ran = hotato("fleet", "diff", str(before), str(after), "--limit", "1")
    assert ran.code == 1
    assert "refund-recorded" in ran.out and "regressed" in ran.out and "(first 1 below)" in ran.out
