"""Signed artifact manifests: `DIR/conversation.dsse.json` over the exact `conversation.json` bytes.

The manifest binds every child by sha256, so a signature over the manifest's bytes covers the
whole artifact: an edited child fails the re-hash, and a manifest rewritten and re-hashed to match
(a FAIL edited to PASS) no longer matches the signed payload.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from hotato._io import write_atomic
from hotato.artifacts._safe_io import read_inside
from hotato.artifacts.bundle import MANIFEST, SIGNATURE
from hotato.artifacts.signing import Tampered, Trust, Unsigned, sign, verify

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

MANIFEST_SIGNATURE = SIGNATURE
PAYLOAD_TYPE = "application/vnd.hotato.conversation+json"


@dataclass(frozen=True)
class ManifestSignature:
    """A manifest whose signature held under a trusted key."""

    manifest_sha256: str
    key_id: str
    key_source: str


def read_manifest(artifact_dir: str | os.PathLike[str]) -> bytes:
    """The manifest's bytes, read inside the folder and never through a link."""
    return read_inside(artifact_dir, MANIFEST, "the artifact manifest (conversation.json)")


def manifest_envelope(manifest: bytes, private_key: Ed25519PrivateKey) -> bytes:
    """The envelope bytes for a manifest, for a writer that assembles the folder itself."""
    return sign(manifest, PAYLOAD_TYPE, private_key)


def sign_manifest(artifact_dir: str | os.PathLike[str], private_key: Ed25519PrivateKey) -> Path:
    """Sign `DIR/conversation.json` and write `DIR/conversation.dsse.json`."""
    envelope = manifest_envelope(read_manifest(artifact_dir), private_key)
    return write_atomic(Path(artifact_dir) / MANIFEST_SIGNATURE, envelope)


def verify_manifest_signature(
    artifact_dir: str | os.PathLike[str], trust: Trust
) -> ManifestSignature:
    """The signer of `DIR/conversation.json`, or a refusal.

    Raises Unsigned (no conversation.dsse.json), MalformedEnvelope, UntrustedKey, Tampered (the
    signature or the manifest changed after signing), or InputError (missing manifest, a link).
    """
    return verify_manifest_bytes(artifact_dir, read_manifest(artifact_dir), trust)


def verify_manifest_bytes(
    artifact_dir: str | os.PathLike[str], manifest: bytes, trust: Trust
) -> ManifestSignature:
    """The signer of `manifest`, the manifest bytes the caller read once (and checked its
    children against), or a refusal. Reading the manifest again here would let a swap between
    the two reads verify an edited result."""
    folder = Path(artifact_dir)
    sig_path = folder / MANIFEST_SIGNATURE
    if not sig_path.exists() and not sig_path.is_symlink():
        raise Unsigned.one(
            f"the artifact is not signed (no {MANIFEST_SIGNATURE}); "
            "sign it with `hotato test run --sign KEY`",
            file=str(folder),
        )
    envelope = read_inside(artifact_dir, MANIFEST_SIGNATURE, "the manifest signature")
    verified = verify(envelope, trust, payload_type=PAYLOAD_TYPE, source=str(sig_path))
    if verified.payload != manifest:
        raise Tampered.one(
            f"{MANIFEST} was changed after it was signed: it differs from the signed manifest",
            file=str(folder / MANIFEST),
        )
    return ManifestSignature(
        hashlib.sha256(manifest).hexdigest(), verified.key_id, verified.key_source
    )


__all__ = [
    "MANIFEST_SIGNATURE",
    "PAYLOAD_TYPE",
    "ManifestSignature",
    "manifest_envelope",
    "read_manifest",
    "sign_manifest",
    "verify_manifest_bytes",
    "verify_manifest_signature",
]
