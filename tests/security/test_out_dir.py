"""`--out DIR` replaces only an earlier artifact, and a signed artifact is never left unsigned:
a folder holding anything the manifest does not bind is refused, and signing happens before the
new folder is swapped into place."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest
from tests.conftest import CONFORMANCE, hotato

import hotato.artifacts.manifest_sig as manifest_sig
from hotato.artifacts.verify import verify_artifact
from hotato.conversation.testfile import load_test
from hotato.model.errors import InputError
from hotato.runs.call import single
from hotato.runs.request import RunRequest

CALL = CONFORMANCE / "fx-itc-zombie-assert-run"
TEST = """\
kind: hotato.conversation-test
version: 1
id: zombie
agent: res-v1
assertions:
  deterministic:
    - {id: booked, kind: tool_call, name: book_table}
"""


@pytest.fixture
def work(tmp_path: Path) -> Path:
    for name in ("trace.jsonl", "transcript.json"):
        shutil.copy(CALL / name, tmp_path / name)
    (tmp_path / "t.yaml").write_text(TEST)
    return tmp_path


def _run(work: Path, *extra: str) -> int:
    return hotato(
        "test", "run", "t.yaml", "--agent", "res-v1", "--trace", "trace.jsonl", "--out", "art",
        *extra, cwd=work,
    ).code  # fmt: skip


def test_a_folder_with_a_manifest_and_other_files_is_not_replaced(work: Path) -> None:
    """A manifest-looking file beside a user's own files: replacing the folder would delete
    files hotato never wrote."""
    art = work / "art"
    art.mkdir()
    thesis = b"chapter one\n"
    (art / "thesis.tex").write_bytes(thesis)
    (art / "notes.json").write_bytes(b"{}")
    manifest = {
        "kind": "hotato.conversation",
        "version": 1,
        "artifacts": {
            "assertions": {
                "path": "notes.json",
                "sha256": hashlib.sha256(b"{}").hexdigest(),
                "bytes": 2,
            }
        },
    }
    (art / "conversation.json").write_text(json.dumps(manifest))
    assert _run(work) == 2
    assert (art / "thesis.tex").read_bytes() == thesis


def test_an_earlier_artifact_is_still_replaced_whole(work: Path) -> None:
    assert _run(work) == 0
    assert _run(work) == 0
    assert not verify_artifact(work / "art").refused


def test_a_run_that_fails_to_sign_leaves_the_signed_artifact_as_it_was(
    work: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert hotato("label", "keygen", "--out", "me", cwd=work).code == 0
    assert _run(work, "--sign", "me/signing.key", "--created-at", "2026-01-01T00:00:00Z") == 0
    before = {p.name: p.read_bytes() for p in (work / "art").iterdir()}
    assert "conversation.dsse.json" in before

    def cannot_sign(manifest: bytes, key: object) -> bytes:
        raise InputError.one("the signing key could not be used")

    monkeypatch.setattr(manifest_sig, "manifest_envelope", cannot_sign)
    monkeypatch.chdir(work)
    req = RunRequest.of(
        test_path="t.yaml", agent="res-v1", trace="trace.jsonl", out="art",
        created_at="2026-02-02T00:00:00Z", sign_key="me/signing.key",
    )  # fmt: skip
    with pytest.raises(InputError):
        single(req, load_test("t.yaml"), req.files())
    assert {p.name: p.read_bytes() for p in (work / "art").iterdir()} == before
