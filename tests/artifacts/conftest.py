"""Real Ed25519 keys (made here, by ssh-keygen and by openssl) and a minimal artifact folder."""

from __future__ import annotations

import hashlib
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import msgspec
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from hotato.artifacts.signing import private_key_pem, public_key_pem


@dataclass
class KeyFiles:
    private: Path
    public: Path


def write_keypair(folder: Path, name: str = "k") -> KeyFiles:
    """A fresh key pair as PKCS8 / SubjectPublicKeyInfo PEM files."""
    folder.mkdir(parents=True, exist_ok=True)
    key = Ed25519PrivateKey.generate()
    private, public = folder / f"{name}.key", folder / f"{name}.pub"
    private.write_bytes(private_key_pem(key))
    public.write_bytes(public_key_pem(key.public_key()))
    return KeyFiles(private, public)


@pytest.fixture
def keys(tmp_path: Path) -> KeyFiles:
    return write_keypair(tmp_path / "keys", "signer")


@pytest.fixture
def other_keys(tmp_path: Path) -> KeyFiles:
    return write_keypair(tmp_path / "other-keys", "stranger")


@pytest.fixture
def ssh_keys(tmp_path: Path) -> KeyFiles:
    """A key made by `ssh-keygen -t ed25519 -N ""`: OpenSSH private key and `.pub` line."""
    if shutil.which("ssh-keygen") is None:
        pytest.fail("ssh-keygen is needed for these tests")
    folder = tmp_path / "ssh"
    folder.mkdir()
    private = folder / "id_ed25519"
    subprocess.run(
        [
            "ssh-keygen",
            "-q",
            "-t",
            "ed25519",
            "-N",
            "",
            "-C",
            "reviewer@example",
            "-f",
            str(private),
        ],
        check=True,
    )
    return KeyFiles(private, folder / "id_ed25519.pub")


@pytest.fixture
def openssl_keys(tmp_path: Path) -> KeyFiles:
    """A key made by `openssl genpkey -algorithm ed25519`, public half by `openssl pkey -pubout`."""
    if shutil.which("openssl") is None:
        pytest.fail("openssl is needed for these tests")
    folder = tmp_path / "openssl"
    folder.mkdir()
    private, public = folder / "ed25519.pem", folder / "ed25519.pub.pem"
    subprocess.run(
        ["openssl", "genpkey", "-algorithm", "ed25519", "-out", str(private)], check=True
    )
    subprocess.run(
        ["openssl", "pkey", "-in", str(private), "-pubout", "-out", str(public)], check=True
    )
    return KeyFiles(private, public)


def make_artifact(folder: Path, conversation_id: str = "conv-0001") -> Path:
    """A minimal `hotato.conversation.v1` folder: a manifest binding one transcript child."""
    folder.mkdir(parents=True)
    transcript = b'[{"role": "agent", "text": "Your refund is issued."}]\n'
    (folder / "transcript.json").write_bytes(transcript)
    manifest = {
        "kind": "hotato.conversation",
        "version": 1,
        "conversation_id": conversation_id,
        "agent_id": "support-v3",
        "created_at": "2026-01-01T00:00:00Z",
        "origin": {"kind": "real"},
        "artifacts": {
            "transcript": {
                "path": "transcript.json",
                "sha256": hashlib.sha256(transcript).hexdigest(),
                "bytes": len(transcript),
            }
        },
    }
    (folder / "conversation.json").write_bytes(msgspec.json.encode(manifest) + b"\n")
    return folder


@pytest.fixture
def artifact(tmp_path: Path) -> Path:
    return make_artifact(tmp_path / "artifact")
