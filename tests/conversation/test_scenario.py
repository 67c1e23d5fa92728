"""`hotato scenario init` writes a commented starter that validates and runs; `scenario validate`
checks one file or a whole tree."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.conftest import hotato
from tests.conversation.conftest import REFUND_RAN, evidence_args, write_call, write_test


def test_init_writes_a_commented_starter(tmp_path: Path) -> None:
    ran = hotato("scenario", "init", "refund", "--agent", "support-v3", cwd=tmp_path)
    assert ran.code == 0, ran.err
    assert ran.out == (
        "wrote refund.yaml: a starter to edit; check it with "
        "`hotato scenario validate refund.yaml`\n"
    )
    text = (tmp_path / "refund.yaml").read_text()
    assert text.startswith("# A conversation test, written by `hotato scenario init`.")
    assert "kind: hotato.conversation-test\n" in text
    assert "id: refund\n" in text
    assert "agent: support-v3\n" in text
    assert "overall_score" not in text


def test_the_starter_validates_and_runs(tmp_path: Path) -> None:
    hotato("scenario", "init", "refund", "--agent", "support-v3", cwd=tmp_path)
    checked = hotato("scenario", "validate", "refund.yaml", cwd=tmp_path)
    assert checked.code == 0
    assert checked.out == "ok       refund.yaml (refund, 5 assertion(s))\n1 valid, 0 invalid\n"
    call = write_call(tmp_path / "call")
    ran = hotato(
        "test", "run", "refund.yaml", "--agent", "support-v3", *evidence_args(call),
        "--format", "json", cwd=tmp_path,
    )  # fmt: skip
    assert ran.code == 0, ran.out + ran.err
    doc = json.loads(ran.out)
    assert [(r["id"], r["status"]) for r in doc["assertions"]["results"]] == [
        ("refund-tool-ran", "PASS"),
        ("refund-recorded", "PASS"),
        ("recording-disclosed", "PASS"),
        ("no-card-number-spoken", "PASS"),
    ]
    assert doc["rubric"]["results"][0]["status"] == "INCONCLUSIVE"
    assert doc["success"]["passed"] is True


def test_the_starter_catches_a_claimed_refund_that_never_happened(tmp_path: Path) -> None:
    hotato("scenario", "init", "refund", "--agent", "support-v3", cwd=tmp_path)
    call = write_call(
        tmp_path / "call",
        spans=[],
        state={"orders": [{"order_id": "A-1001", "refund_status": "none"}]},
    )
    ran = hotato(
        "test", "run", "refund.yaml", "--agent", "support-v3", *evidence_args(call), cwd=tmp_path
    )  # fmt: skip
    assert ran.code == 1
    assert "FAIL          refund-tool-ran" in ran.out
    assert "FAIL          refund-recorded" in ran.out


def test_init_refuses_to_overwrite_unless_forced(tmp_path: Path) -> None:
    target = tmp_path / "refund.yaml"
    target.write_text("mine\n")
    ran = hotato("scenario", "init", "refund", "--agent", "a", cwd=tmp_path)
    assert ran.code == 2
    assert "refusing to overwrite an existing file (use --force)" in ran.err
    assert target.read_text() == "mine\n"
    assert hotato("scenario", "init", "refund", "--agent", "a", "--force", cwd=tmp_path).code == 0
    assert "hotato.conversation-test" in target.read_text()


def test_init_out(tmp_path: Path) -> None:
    (tmp_path / "tests").mkdir()
    ran = hotato("scenario", "init", "refund", "--agent", "a", "--out", "tests/r.yml", cwd=tmp_path)
    assert ran.code == 0
    assert hotato("scenario", "validate", "tests/r.yml", cwd=tmp_path).code == 0


@pytest.mark.parametrize(
    "argv",
    [
        ["refund", "--agent", "a", "--out", "missing/r.yaml"],
        ["refund", "--agent", "a", "--out", "folder"],
        ["refund", "--agent", "a", "--out", "folder", "--force"],
        ["", "--agent", "a"],
        ["refund"],
    ],
)
def test_init_refusals(tmp_path: Path, argv: list[str]) -> None:
    (tmp_path / "folder").mkdir()
    ran = hotato("scenario", "init", *argv, cwd=tmp_path)
    assert ran.code == 2, ran.err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["folder"]


@pytest.mark.parametrize(
    ("name", "agent"),
    [("yes", "null"), ("123", "1.5"), ("refund: v2", "a #b"), ("- x", "[x]"), ("it's", '"q"')],
)
def test_names_that_need_quoting_survive(tmp_path: Path, name: str, agent: str) -> None:
    ran = hotato("scenario", "init", "--agent", agent, "--out", "t.yaml", "--", name, cwd=tmp_path)
    assert ran.code == 0, ran.err
    checked = hotato("scenario", "validate", "t.yaml", "--format", "json", cwd=tmp_path)
    assert checked.code == 0, checked.out
    assert json.loads(checked.out)["files"][0]["id"] == name
    call = write_call(tmp_path / "call")
    ran = hotato(
        "test", "run", "t.yaml", "--agent", agent, *evidence_args(call), "--format", "json",
        cwd=tmp_path,
    )  # fmt: skip
    assert json.loads(ran.out)["agent"] == agent
    assert "differs from the test's agent" not in ran.err


def test_validate_a_tree(tmp_path: Path) -> None:
    write_test(tmp_path / "a.json", [REFUND_RAN], test_id="a")
    write_test(tmp_path / "nested" / "deeper" / "b.json", [REFUND_RAN], test_id="b")
    hotato("scenario", "init", "c", "--agent", "x", "--out", "nested/c.yaml", cwd=tmp_path)
    (tmp_path / "nested" / "assertions.yaml").write_text("version: 1\nassertions: []\n")
    (tmp_path / "notes.md").write_text("hotato.conversation-test is mentioned here")
    ran = hotato("scenario", "validate", ".", cwd=tmp_path)
    assert ran.code == 0, ran.out
    assert ran.out.splitlines() == [
        "ok       a.json (a, 1 assertion(s))",
        "ok       nested/c.yaml (c, 5 assertion(s))",
        "ok       nested/deeper/b.json (b, 1 assertion(s))",
        "3 valid, 0 invalid",
    ]


def test_validate_a_tree_with_an_invalid_file(tmp_path: Path) -> None:
    write_test(tmp_path / "a.json", [REFUND_RAN], test_id="a")
    bad = tmp_path / "sub" / "bad.yaml"
    bad.parent.mkdir()
    bad.write_text(
        "kind: hotato.conversation-test\nid: bad\nagent: a\n"
        "assertions:\n  deterministic: []\nsuccess:\n  required: [vibes]\n"
    )
    ran = hotato("scenario", "validate", str(tmp_path))
    assert ran.code == 2
    assert f"invalid  {bad}" in ran.out
    assert f"  {bad}:7:14 $.success.required[0]: unknown condition 'vibes'" in ran.out
    assert ran.out.splitlines()[-1] == "1 valid, 1 invalid"
    doc = json.loads(hotato("scenario", "validate", str(tmp_path), "--format", "json").out)
    assert doc["ok"] is False
    assert [f["ok"] for f in doc["files"]] == [True, False]
    assert doc["files"][1]["problems"] == [
        f"{bad}:7:14 $.success.required[0]: unknown condition 'vibes' (one of: "
        "all_deterministic_assertions_pass, no_deterministic_fail, no_rubric_failure, "
        "no_inconclusive, no_unresolved_inconclusive)"
    ]


def test_validate_a_tree_without_tests_is_refused(tmp_path: Path) -> None:
    (tmp_path / "assertions.yaml").write_text("version: 1\nassertions: []\n")
    ran = hotato("scenario", "validate", str(tmp_path))
    assert ran.code == 2
    assert "no conversation tests under this folder" in ran.err


def test_validate_refuses_an_assertions_file_given_by_name(tmp_path: Path) -> None:
    path = tmp_path / "assertions.yaml"
    path.write_text("version: 1\nassertions: []\n")
    ran = hotato("scenario", "validate", str(path))
    assert ran.code == 2
    assert "'assertions' must be a mapping" in ran.out
