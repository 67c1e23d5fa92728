"""A bad target or a corrupt input is a refusal (exit 2) naming what is wrong, never an internal
error (exit 3): signing into a folder under a file, an artifact written over the folder the user
stands in, fleet folders under a file, a huge CSV cell, a corrupt fleet.json or results part, and
a symbolic link inside a fleet's --out (which the run would otherwise sweep and write through)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from tests.conftest import Ran, hotato
from tests.conversation.conftest import REFUND_RAN, write_call, write_test
from tests.fleet.conftest import Fleet, make_fleet


@pytest.fixture
def signed(tmp_path: Path) -> tuple[Path, Path, Path]:
    """A key, a trace, and an artifact graded from it."""
    assert hotato("label", "keygen", "--out", str(tmp_path / "keys")).code == 0
    call = write_call(tmp_path / "call")
    test = write_test(tmp_path / "t.json", [REFUND_RAN])
    ran = hotato(
        "test", "run", str(test), "--agent", "a", "--trace", str(call / "trace.jsonl"),
        "--out", str(tmp_path / "art"),
    )  # fmt: skip
    assert ran.code == 0, ran.err
    return tmp_path / "keys" / "signing.key", call / "trace.jsonl", tmp_path / "art"


def test_signing_into_a_folder_under_a_file_is_a_refusal(
    tmp_path: Path, signed: tuple[Path, Path, Path]
) -> None:
    key, trace, artifact = signed
    blocked = tmp_path / "t.json" / "out.json"  # t.json is a file
    ran = hotato("trace", "sign", str(trace), "--key", str(key), "--out", str(blocked))
    assert ran.code == 2, ran.err
    assert f"{tmp_path / 't.json'}: cannot make the --out folder" in ran.err
    ran = hotato(
        "label", "sign", "--artifact", str(artifact), "--assertion", "refund-ran",
        "--verdict", "pass", "--reviewer", "r", "--key", str(key), "--out", str(blocked),
    )  # fmt: skip
    assert ran.code == 2, ran.err
    assert "cannot make the --out folder" in ran.err


def test_an_artifact_is_never_swapped_in_over_the_current_folder(tmp_path: Path) -> None:
    call = write_call(tmp_path / "call")
    test = write_test(tmp_path / "t.json", [REFUND_RAN])
    here = tmp_path / "empty"
    here.mkdir()
    args = ["--agent", "a", "--trace", str(call / "trace.jsonl")]
    for out in (".", str(here), "./"):
        ran = hotato("test", "run", str(test), *args, "--out", out, cwd=here)
        assert ran.code == 2, ran.out + ran.err
        assert "--out is the current folder or one holding it" in ran.err
    assert here.is_dir() and not any(here.iterdir())


def fleet_grade(fleet_manifest: Path, assertions: Path, out: Path) -> Ran:
    return hotato(
        "fleet", "grade", str(fleet_manifest), "--assertions", str(assertions),
        "--out", str(out), "--workers", "1", "--quiet",
    )  # fmt: skip


@pytest.fixture
def fleet(tmp_path: Path) -> Fleet:
    pytest.importorskip("pyarrow")
    return make_fleet(tmp_path / "fleet", calls=2)


def test_fleet_out_under_a_file_is_a_refusal(tmp_path: Path, fleet: Fleet) -> None:
    f = fleet
    ran = fleet_grade(f.manifest, f.assertions, f.manifest / "out")
    assert ran.code == 2, ran.out + ran.err
    assert "cannot make the --out folder" in ran.err


def test_a_huge_csv_cell_is_a_located_refusal(tmp_path: Path, fleet: Fleet) -> None:
    manifest = tmp_path / "calls.csv"
    manifest.write_text("call_id,trace,note\nc1,x.jsonl," + "a" * 200_000 + "\n")
    ran = fleet_grade(manifest, fleet.assertions, tmp_path / "out")
    assert ran.code == 2, ran.out + ran.err
    assert f"{manifest}:2" in ran.err and "not CSV hotato can read" in ran.err


def test_a_corrupt_fleet_record_or_results_part_is_a_refusal(tmp_path: Path, fleet: Fleet) -> None:
    f = fleet
    out = tmp_path / "out"
    assert fleet_grade(f.manifest, f.assertions, out).code in (0, 1)
    part = next((out / "results").rglob("part-*.parquet"))
    part.write_bytes(b"PAR1 not really parquet PAR1")
    for command in (["summary", str(out)], ["diff", str(out), str(out)]):
        ran = hotato("fleet", *command)
        assert ran.code == 2, ran.out + ran.err
        assert "the results folder cannot be read" in ran.err
    calls_part = next((out / "calls").rglob("part-*.parquet"))
    calls_part.write_bytes(b"junk")
    ran = fleet_grade(f.manifest, f.assertions, out)
    assert ran.code == 2 and "a results part cannot be read" in ran.err, ran.out + ran.err
    (out / "fleet.json").write_text("{not json")
    ran = fleet_grade(f.manifest, f.assertions, out)
    assert ran.code == 2 and "fleet.json is not the record of a fleet run" in ran.err


@pytest.mark.parametrize("link", ["results", "calls", "out"])
def test_a_link_inside_fleet_out_is_refused_and_its_target_untouched(
    tmp_path: Path, fleet: Fleet, link: str
) -> None:
    f = fleet
    out = tmp_path / "out"
    assert fleet_grade(f.manifest, f.assertions, out).code in (0, 1)
    victim = tmp_path / "victim"
    victim.mkdir()
    for name in ("keep.tmp", "part-0000.parquet", "notes.txt"):
        (victim / name).write_text("mine")
    if link == "out":
        shutil.rmtree(out)
        os.symlink(victim, out)
    else:
        shutil.rmtree(out / link)
        os.symlink(victim, out / link)
    ran = fleet_grade(f.manifest, f.assertions, out)
    assert ran.code == 2, ran.out + ran.err
    assert "symbolic link" in ran.err
    assert sorted(p.name for p in victim.iterdir()) == [
        "keep.tmp",
        "notes.txt",
        "part-0000.parquet",
    ]
