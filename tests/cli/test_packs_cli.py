"""`hotato assert packs` and `--pack NAME`: listing, merging, and the two refusals."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import CONFORMANCE, hotato

CALL = CONFORMANCE / "fx-saydo-demo-assert-run"
OWN = "version: 1\nassertions:\n  - {id: said-refund, kind: phrase, regex: refund, role: agent}\n"


def _write(tmp_path: Path, body: str = OWN) -> None:
    (tmp_path / "a.yaml").write_text(body)


def test_packs_lists_name_version_and_what_each_checks() -> None:
    ran = hotato("assert", "packs", "--format", "json")
    assert ran.code == 0
    packs = {p["name"]: p for p in json.loads(ran.out)["packs"]}
    for name in (
        "default",
        "required-disclosure",
        "prohibited-language",
        "pii-leak",
        "identity-before-account",
    ):
        assert packs[name]["version"] and packs[name]["checks"] and packs[name]["description"]
    text = hotato("assert", "packs")
    assert text.code == 0 and "identity-before-account" in text.out


def test_a_pack_merges_its_rules_into_the_run(tmp_path: Path) -> None:
    _write(tmp_path)
    ran = hotato(
        "assert",
        "run",
        "--assertions",
        "a.yaml",
        "--pack",
        "pii-leak",
        "--transcript",
        str(CALL / "transcript.json"),
        "--format",
        "json",
        cwd=tmp_path,
    )
    ids = [r["id"] for r in json.loads(ran.out)["results"]]
    assert ids[0] == "said-refund" and len(ids) > 1
    assert ran.code == 0


def test_an_unknown_pack_is_refused_with_a_suggestion(tmp_path: Path) -> None:
    _write(tmp_path)
    ran = hotato("assert", "run", "--assertions", "a.yaml", "--pack", "pii-leaks", cwd=tmp_path)
    assert ran.code == 2 and "pii-leak" in ran.err and ran.out == ""


def test_an_id_collision_between_a_pack_and_the_file_is_refused(tmp_path: Path) -> None:
    listed = json.loads(hotato("assert", "packs", "--format", "json").out)["packs"]
    pack = next(p for p in listed if p["name"] == "pii-leak")
    from hotato.kinds._packs import load_pack

    taken = load_pack(pack["name"]).specs[0].id
    _write(tmp_path, f"version: 1\nassertions:\n  - {{id: {taken}, kind: phrase, regex: x}}\n")
    ran = hotato("assert", "run", "--assertions", "a.yaml", "--pack", "pii-leak", cwd=tmp_path)
    assert ran.code == 2 and taken in ran.err and "collides" in ran.err


def test_the_same_pack_twice_collides_with_itself(tmp_path: Path) -> None:
    _write(tmp_path)
    ran = hotato(
        "assert",
        "run",
        "--assertions",
        "a.yaml",
        "--pack",
        "default",
        "--pack",
        "default",
        cwd=tmp_path,
    )
    assert ran.code == 2
