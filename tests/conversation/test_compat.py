"""The 1.x test-run cases bound into artifacts: the same children as the manifests hotato 1.16.0
wrote (`conversation_manifest` in expected.json), the recorded inputs bound byte for byte (so with
the same digests), and every artifact verifies."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from tests.conftest import CONFORMANCE, hotato

CASES = sorted(
    p
    for p in CONFORMANCE.glob("fx-*-test-run")
    if "conversation_manifest" in json.loads((p / "expected.json").read_text())
)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_a_1x_test_run_case_binds_the_same_children(case: Path, tmp_path: Path) -> None:
    work = tmp_path / "case"
    shutil.copytree(case, work)
    expected = json.loads((work / "expected.json").read_text())
    want = expected["conversation_manifest"]
    test = next(p.name for p in work.iterdir() if p.stem == "test")
    evidence = ["--transcript", "transcript.json", "--trace", "trace.jsonl"]
    if (work / "state.json").exists():
        evidence += ["--state", "state.json"]
    ran = hotato(
        "test", "run", test, "--agent", "conformance-agent", *evidence, "--out", "art",
        "--created-at", "2026-01-01T00:00:00Z", "--origin", want["origin"]["kind"],
        "--format", "json", cwd=work,
    )  # fmt: skip
    assert ran.code == expected["exit_code"], ran.err
    manifest = json.loads((work / "art" / "conversation.json").read_text())
    assert manifest["kind"] == "hotato.conversation"
    assert manifest["version"] == 1
    assert manifest["origin"] == want["origin"]
    assert sorted(manifest["artifacts"]) == sorted(want["artifacts"])
    for name in ("trace", "transcript"):
        got, old = manifest["artifacts"][name], want["artifacts"][name]
        assert (got["path"], got["sha256"], got["bytes"]) == (
            old["path"],
            old["sha256"],
            old["bytes"],
        )
    verified = hotato("conversation", "verify", "art", "--format", "json", cwd=work)
    assert verified.code == 0, verified.out
    assert sorted(json.loads(verified.out)["verified"]) == sorted(want["artifacts"])
