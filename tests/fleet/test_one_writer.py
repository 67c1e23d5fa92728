"""One run writes a results folder at a time, and a folder holding a call twice (written by two
runs at once before folders were locked) is still counted once per call."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tests.conftest import hotato
from tests.fleet.conftest import Fleet
from tests.fleet.test_grade import grade

from hotato.fleet.store import ResultStore, RunMeta


def test_a_second_run_on_the_same_out_is_refused_naming_the_holder(
    fleet: Fleet, tmp_path: Path
) -> None:
    out = tmp_path / "r"
    assert grade(fleet, out)[0] == 1
    meta = json.loads((out / "fleet.json").read_text())
    holder = ResultStore(out)
    holder.open(RunMeta(**{k: v for k, v in meta.items() if k != "schema"}))
    try:
        code, stdout, err = grade(fleet, out)
        assert code == 2 and stdout == ""
        assert "another run is writing this folder (run " in err
        assert f"run {meta['run_id']}, process " in err and "choose another --out" in err
    finally:
        holder.close()
    assert grade(fleet, out)[0] == 1  # let go: the folder is free again


def test_summary_counts_a_call_held_twice_once(fleet: Fleet, tmp_path: Path) -> None:
    grade(fleet, tmp_path / "r")
    grade(fleet, tmp_path / "other", "--batch-size", "5")  # other part files, same rows
    copied = 0
    for part in (tmp_path / "other").rglob("part-*.parquet"):  # compacted: agent=/date=/
        target = tmp_path / "r" / part.relative_to(tmp_path / "other")
        assert not target.exists()
        shutil.copy(part, target)
        copied += 1
    assert copied == 2 * 4
    ran = hotato("fleet", "summary", str(tmp_path / "r"), "--format", "json")
    doc = json.loads(ran.out)
    assert doc["calls"] == {"calls": 8, "graded": 8, "refused": 0}
    assert {r["n"] for r in doc["rates"]} == {8}
    again = grade(fleet, tmp_path / "r")
    assert "8/8 calls" in again[1] and "8 graded, 0 refused" in again[1]
