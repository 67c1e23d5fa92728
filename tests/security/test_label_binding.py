"""A label stands for the artifact as it was written: `label verify --artifact` re-hashes the
artifact's files, so editing them after labelling is refused."""

from __future__ import annotations

from pathlib import Path

from tests.artifacts.conftest import make_artifact, write_keypair
from tests.conftest import hotato


def test_label_verify_refuses_an_artifact_whose_files_were_edited(tmp_path: Path) -> None:
    art = make_artifact(tmp_path / "art")
    keys = write_keypair(tmp_path / "keys")
    signed = hotato(
        "label", "sign", "--artifact", "art", "--assertion", "refund-tool-called",
        "--verdict", "pass", "--reviewer", "Ana", "--key", str(keys.private),
        "--out", "l.json", cwd=tmp_path,
    )  # fmt: skip
    assert signed.code == 0, signed.err
    args = ("label", "verify", "l.json", "--trust", str(keys.public), "--artifact", "art")
    assert hotato(*args, cwd=tmp_path).code == 0
    (art / "transcript.json").write_bytes(b'[{"role": "agent", "text": "No refund."}]\n')
    ran = hotato(*args, cwd=tmp_path)
    assert ran.code == 2
    assert "does not verify" in ran.err and "transcript" in ran.err
