"""Signed manifests: a FAIL edited to PASS and re-hashed is still caught."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from securesystemslib.dsse import Envelope as SslibEnvelope
from securesystemslib.signer import SSlibKey

from hotato.artifacts.manifest_sig import (
    MANIFEST_SIGNATURE,
    PAYLOAD_TYPE,
    manifest_envelope,
    sign_manifest,
    verify_manifest_signature,
)
from hotato.artifacts.signing import (
    MalformedEnvelope,
    Tampered,
    Trust,
    Unsigned,
    UntrustedKey,
    key_id,
    sign,
)
from hotato.model.errors import InputError

KEY = Ed25519PrivateKey.generate()
TRUST = Trust.of(KEY.public_key())


def test_sign_and_verify(artifact: Path) -> None:
    written = sign_manifest(artifact, KEY)
    assert written == artifact / MANIFEST_SIGNATURE
    result = verify_manifest_signature(artifact, TRUST)
    manifest = (artifact / "conversation.json").read_bytes()
    assert result.manifest_sha256 == hashlib.sha256(manifest).hexdigest()
    assert result.key_id == key_id(KEY.public_key())
    envelope = SslibEnvelope.from_dict(json.loads(written.read_bytes()))
    assert envelope.payload == manifest and envelope.payload_type == PAYLOAD_TYPE
    assert envelope.verify(
        [SSlibKey.from_crypto(KEY.public_key(), keyid=key_id(KEY.public_key()))], threshold=1
    )


def test_the_envelope_for_a_writer_is_the_same_bytes(artifact: Path) -> None:
    manifest = (artifact / "conversation.json").read_bytes()
    assert manifest_envelope(manifest, KEY) == sign_manifest(artifact, KEY).read_bytes()


def test_a_rewritten_and_rehashed_manifest_is_refused(artifact: Path) -> None:
    sign_manifest(artifact, KEY)
    # The attack: edit a child, then re-hash it into the manifest so integrity checks pass.
    child = artifact / "transcript.json"
    child.write_bytes(b'[{"role": "agent", "text": "Edited."}]\n')
    manifest_path = artifact / "conversation.json"
    manifest = json.loads(manifest_path.read_bytes())
    manifest["artifacts"]["transcript"]["sha256"] = hashlib.sha256(child.read_bytes()).hexdigest()
    manifest["artifacts"]["transcript"]["bytes"] = child.stat().st_size
    manifest_path.write_text(json.dumps(manifest))
    with pytest.raises(Tampered, match="changed after it was signed"):
        verify_manifest_signature(artifact, TRUST)


def test_an_unsigned_artifact(artifact: Path) -> None:
    with pytest.raises(Unsigned, match="not signed"):
        verify_manifest_signature(artifact, TRUST)


def test_an_untrusted_signer(artifact: Path) -> None:
    sign_manifest(artifact, Ed25519PrivateKey.generate())
    with pytest.raises(UntrustedKey):
        verify_manifest_signature(artifact, TRUST)


def test_a_label_envelope_is_not_a_manifest_signature(artifact: Path) -> None:
    manifest = (artifact / "conversation.json").read_bytes()
    envelope = sign(manifest, "application/vnd.hotato.label+json", KEY)
    (artifact / MANIFEST_SIGNATURE).write_bytes(envelope)
    with pytest.raises(MalformedEnvelope, match="payload type"):
        verify_manifest_signature(artifact, TRUST)


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symbolic links")
def test_links_are_never_followed(artifact: Path, tmp_path: Path) -> None:
    sign_manifest(artifact, KEY)
    outside = tmp_path / "outside.json"
    outside.write_bytes((artifact / MANIFEST_SIGNATURE).read_bytes())
    (artifact / MANIFEST_SIGNATURE).unlink()
    (artifact / MANIFEST_SIGNATURE).symlink_to(outside)
    with pytest.raises(InputError, match="symbolic link"):
        verify_manifest_signature(artifact, TRUST)
    linked_dir = tmp_path / "linked-artifact"
    linked_dir.symlink_to(artifact)
    with pytest.raises(InputError, match="symbolic link"):
        verify_manifest_signature(linked_dir, TRUST)


def test_a_missing_manifest(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputError, match=r"conversation\.json"):
        verify_manifest_signature(tmp_path / "empty", TRUST)
