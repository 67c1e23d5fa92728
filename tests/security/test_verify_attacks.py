"""`conversation verify` under attack: the manifest swapped between two reads, a child that is a
huge sparse file, a child hard-linked to a file outside the artifact, a FIFO, deep JSON."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path

import pytest
from tests.conftest import CONFORMANCE, hotato

import hotato.artifacts.verify as verify_module
from hotato.runs.verify import verify_conversation_artifact

CALL = CONFORMANCE / "fx-itc-zombie-assert-run"
TEST = """\
kind: hotato.conversation-test
version: 1
id: zombie
agent: res-v1
assertions:
  deterministic:
    - {id: booked, kind: tool_call, name: cancel_everything}
"""


@pytest.fixture
def art(tmp_path: Path) -> Path:
    for name in ("trace.jsonl", "transcript.json"):
        shutil.copy(CALL / name, tmp_path / name)
    (tmp_path / "t.yaml").write_text(TEST)
    assert hotato("label", "keygen", "--out", "me", cwd=tmp_path).code == 0
    ran = hotato(
        "test", "run", "t.yaml", "--agent", "res-v1", "--trace", "trace.jsonl",
        "--transcript", "transcript.json", "--out", "art", "--sign", "me/signing.key",
        "--created-at", "2026-01-01T00:00:00Z", cwd=tmp_path,
    )  # fmt: skip
    assert ran.code == 1, ran.err  # the FAIL an attacker wants to turn into a PASS
    return tmp_path / "art"


def _rebind(art: Path, name: str, data: bytes) -> bytes:
    """Rewrite child `name` and re-hash it in the manifest (as an attacker would)."""
    manifest = json.loads((art / "conversation.json").read_bytes())
    entry = manifest["artifacts"][name]
    (art / entry["path"]).write_bytes(data)
    entry.update(sha256=hashlib.sha256(data).hexdigest(), bytes=len(data))
    return json.dumps(manifest, indent=2).encode() + b"\n"


def test_a_manifest_swapped_between_reads_does_not_verify(
    art: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The children are checked against an edited manifest; the signed one is put back before
    the signature is checked. Both checks must be of the same bytes."""
    signed = (art / "conversation.json").read_bytes()
    results = (art / "assertions.json").read_bytes().replace(b'"FAIL"', b'"PASS"')
    (art / "conversation.json").write_bytes(_rebind(art, "assertions", results))
    check_children = verify_module.verify_artifact

    def then_swap_back(folder: object) -> object:
        report = check_children(folder)  # type: ignore[arg-type]
        (art / "conversation.json").write_bytes(signed)
        return report

    monkeypatch.setattr(verify_module, "verify_artifact", then_swap_back)
    verdict = verify_conversation_artifact(art, [str(art.parent / "me" / "signing.pub")])
    assert not verdict.ok
    assert any("changed after it was signed" in p for p in verdict.document["problems"])


def test_verify_says_what_it_verified(art: Path) -> None:
    ran = hotato("conversation", "verify", "art", "--trust", "me/signing.pub", cwd=art.parent)
    assert ran.code == 0, ran.out
    manifest = json.loads((art / "conversation.json").read_bytes())
    for key in ("conversation_id", "test_id", "agent_id", "created_at"):
        assert f"{key:<16}{manifest[key]}" in ran.out
    doc = verify_conversation_artifact(art, [str(art.parent / "me" / "signing.pub")]).document
    assert doc["subject"]["conversation_id"] == manifest["conversation_id"]


def test_a_huge_sparse_child_is_refused_by_its_size_without_reading_it(art: Path) -> None:
    with open(art / "transcript.json", "r+b") as handle:
        handle.truncate(8 << 30)  # 8 GiB of holes; reading it would take minutes
    (mismatch,) = verify_conversation_artifact(art).document["mismatches"]
    assert mismatch["name"] == "transcript" and mismatch["actual"] == {
        "sha256": None,
        "bytes": 8 << 30,
    }


def test_a_child_hard_linked_to_a_file_outside_is_refused(art: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside-transcript.json"
    shutil.copy(art / "transcript.json", outside)
    (art / "transcript.json").unlink()
    os.link(outside, art / "transcript.json")  # same bytes, but the file lives elsewhere too
    doc = verify_conversation_artifact(art).document
    assert not doc["ok"] and any("hard link" in p for p in doc["problems"])


def test_a_fifo_child_is_refused_without_blocking(art: Path) -> None:
    (art / "transcript.json").unlink()
    os.mkfifo(art / "transcript.json")  # nobody writes: opening it blocking would hang
    doc = verify_conversation_artifact(art).document
    assert not doc["ok"] and any("not a regular file" in p for p in doc["problems"])


def test_a_manifest_nested_a_thousand_deep_is_refused_not_a_crash(art: Path) -> None:
    (art / "conversation.json").write_bytes(b"[" * 1000 + b"]" * 1000)
    ran = hotato("conversation", "verify", "art", cwd=art.parent)
    assert ran.code == 2 and "nested too deeply" in ran.out
