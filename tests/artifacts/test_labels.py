"""Human labels: what a label binds, and every way a label can fail to hold."""

from __future__ import annotations

import base64
import hashlib
import json
import os
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from hypothesis import given, settings
from hypothesis import strategies as st
from securesystemslib.dsse import Envelope as SslibEnvelope
from securesystemslib.signer import SSlibKey

from hotato.artifacts.labels import (
    PAYLOAD_TYPE,
    ArtifactRef,
    LabelPayload,
    WrongArtifact,
    artifact_ref,
    graded_ids,
    load_labels,
    make_label,
    sign_label,
    utc_timestamp,
    verify_label,
    verify_label_bytes,
)
from hotato.artifacts.signing import (
    MalformedEnvelope,
    Tampered,
    Trust,
    UntrustedKey,
    key_id,
    sign,
)
from hotato.model.errors import InputError, UsageError
from hotato.model.status import Status

from .conftest import make_artifact

PINNED = "2026-02-03T04:05:06Z"
KEY = Ed25519PrivateKey.generate()
TRUST = Trust.of(KEY.public_key())


def _label(artifact: Path, key: Ed25519PrivateKey = KEY, **kw: Any) -> bytes:
    args: dict[str, Any] = {
        "assertion_id": "refund-tool-called",
        "verdict": "pass",
        "reviewer": "Ana Ortiz",
        "note": "heard the confirmation number read back",
        "created_at": PINNED,
    }
    args.update(kw)
    return sign_label(artifact, private_key=key, **args)


def _write(tmp_path: Path, data: bytes, name: str = "label.json") -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


def _payload(envelope: bytes) -> dict[str, Any]:
    return json.loads(base64.b64decode(json.loads(envelope)["payload"]))


def _with_payload(envelope: bytes, payload: dict[str, Any]) -> bytes:
    doc = json.loads(envelope)
    doc["payload"] = base64.b64encode(json.dumps(payload).encode()).decode()
    return json.dumps(doc).encode()


def test_a_label_binds_everything_inside_the_signature(artifact: Path, tmp_path: Path) -> None:
    envelope = _label(artifact)
    doc = json.loads(envelope)
    assert doc["payloadType"] == PAYLOAD_TYPE
    payload = _payload(envelope)
    ref = artifact_ref(artifact)
    assert payload == {
        "kind": "hotato.label",
        "version": 1,
        "conversation_id": "conv-0001",
        "manifest_sha256": ref.manifest_sha256,
        "assertion_id": "refund-tool-called",
        "verdict": "pass",
        "reviewer": "Ana Ortiz",
        "created_at": PINNED,
        "note": "heard the confirmation number read back",
        "key_id": key_id(KEY.public_key()),
    }
    # The envelope holds nothing about the signer outside the payload but DSSE's keyid hint.
    assert set(doc) == {"payload", "payloadType", "signatures"}
    label = verify_label(_write(tmp_path, envelope), TRUST, artifact)
    assert (label.assertion_id, label.verdict, label.status) == (
        "refund-tool-called",
        "pass",
        Status.PASS,
    )
    assert (label.reviewer, label.created_at, label.authority) == ("Ana Ortiz", PINNED, "human")


def test_a_pinned_label_is_byte_stable(artifact: Path) -> None:
    assert _label(artifact) == _label(artifact)


def test_the_default_time_is_now_in_utc(artifact: Path) -> None:
    stamp = _payload(_label(artifact, created_at=None))["created_at"]
    assert stamp == utc_timestamp(stamp) and stamp.endswith("Z")


@pytest.mark.parametrize(
    ("given_", "expected"),
    [
        ("2026-01-01T00:00:00Z", "2026-01-01T00:00:00Z"),
        ("2026-01-01T02:00:00+02:00", "2026-01-01T00:00:00Z"),
        ("2026-01-01T00:00:00.5Z", "2026-01-01T00:00:00.500000Z"),
    ],
)
def test_created_at_is_normalised_to_utc(given_: str, expected: str) -> None:
    assert utc_timestamp(given_) == expected


@pytest.mark.parametrize("bad", ["yesterday", "2026-01-01T00:00:00", "2026-01-01"])
def test_created_at_without_a_zone_is_refused(bad: str) -> None:
    with pytest.raises(UsageError, match="--created-at"):
        utc_timestamp(bad)


def test_securesystemslib_verifies_a_label(artifact: Path) -> None:
    envelope = SslibEnvelope.from_dict(json.loads(_label(artifact)))
    key = SSlibKey.from_crypto(KEY.public_key(), keyid=key_id(KEY.public_key()))
    assert envelope.verify([key], threshold=1)
    assert envelope.payload_type == PAYLOAD_TYPE


# Every signed field, and a forged value for it.
FORGERIES: dict[str, Any] = {
    "kind": "hotato.other",
    "version": 2,
    "conversation_id": "conv-9999",
    "manifest_sha256": "0" * 64,
    "assertion_id": "some-other-assertion",
    "verdict": "fail",
    "reviewer": "Mallory",
    "created_at": "2030-01-01T00:00:00Z",
    "note": "edited afterwards",
    "key_id": "f" * 64,
    "assertion_sha256": "1" * 64,
    "state_sha256": "2" * 64,
}


def test_the_forgeries_cover_every_signed_field() -> None:
    assert set(FORGERIES) == set(LabelPayload.__struct_fields__)


@pytest.mark.parametrize("field", sorted(FORGERIES))
def test_editing_any_signed_field_is_tampering(artifact: Path, tmp_path: Path, field: str) -> None:
    envelope = _label(artifact)
    payload = _payload(envelope)
    payload[field] = FORGERIES[field]
    path = _write(tmp_path, _with_payload(envelope, payload))
    with pytest.raises(Tampered, match="does not hold"):
        verify_label(path, TRUST, artifact)
    with pytest.raises(Tampered):
        verify_label(path, TRUST)  # without the artifact check too


@pytest.mark.parametrize("field", sorted(FORGERIES))
def test_a_forgery_re_signed_by_a_stranger_is_untrusted(
    artifact: Path, tmp_path: Path, field: str
) -> None:
    stranger = Ed25519PrivateKey.generate()
    payload = _payload(_label(artifact))
    payload[field] = FORGERIES[field]
    forged = sign(json.dumps(payload).encode(), PAYLOAD_TYPE, stranger)
    with pytest.raises(UntrustedKey):
        verify_label(_write(tmp_path, forged), TRUST, artifact)


def test_a_trusted_key_cannot_sign_in_another_keys_name(artifact: Path, tmp_path: Path) -> None:
    colleague = Ed25519PrivateKey.generate()
    payload = _payload(_label(artifact))  # names KEY
    envelope = sign(json.dumps(payload).encode(), PAYLOAD_TYPE, colleague)
    both = Trust.of(KEY.public_key(), colleague.public_key())
    with pytest.raises(Tampered, match=r"names key .* but was signed by"):
        verify_label(_write(tmp_path, envelope), both)


def test_a_label_for_another_artifact_is_refused(artifact: Path, tmp_path: Path) -> None:
    path = _write(tmp_path, _label(artifact))
    other = make_artifact(tmp_path / "other", conversation_id="conv-0002")
    with pytest.raises(WrongArtifact, match="for another artifact"):
        verify_label(path, TRUST, other)
    # The same call re-bound with any change to its manifest is another artifact too.
    manifest = artifact / "conversation.json"
    manifest.write_bytes(manifest.read_bytes().replace(b"support-v3", b"support-v4"))
    with pytest.raises(WrongArtifact):
        verify_label(path, TRUST, artifact)


def test_a_label_from_another_tool_with_the_wrong_type_is_malformed(
    artifact: Path, tmp_path: Path
) -> None:
    payload = json.dumps(_payload(_label(artifact))).encode()
    envelope = sign(payload, "application/vnd.in-toto+json", KEY)
    with pytest.raises(MalformedEnvelope, match="payload type"):
        verify_label(_write(tmp_path, envelope), TRUST)


@pytest.mark.parametrize(
    "payload",
    [
        b"not json",
        b'{"kind": "hotato.label"}',
        b"[]",
    ],
)
def test_a_signed_payload_that_is_not_a_label_is_malformed(tmp_path: Path, payload: bytes) -> None:
    with pytest.raises(MalformedEnvelope, match="not a label"):
        verify_label(_write(tmp_path, sign(payload, PAYLOAD_TYPE, KEY)), TRUST)


def test_a_signed_payload_with_bad_values_is_malformed(artifact: Path, tmp_path: Path) -> None:
    base = _payload(_label(artifact))
    for field, value in [
        ("verdict", "maybe"),
        ("created_at", "2026-01-01 00:00"),
        ("reviewer", " "),
        ("manifest_sha256", "abc"),
        ("extra", 1),
    ]:
        payload = {**base, field: value}
        envelope = sign(json.dumps(payload).encode(), PAYLOAD_TYPE, KEY)
        with pytest.raises(MalformedEnvelope):
            verify_label(_write(tmp_path, envelope), TRUST)


def test_signing_refuses_bad_requests(artifact: Path, tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="verdict must be pass or fail"):
        _label(artifact, verdict="maybe")
    with pytest.raises(UsageError, match="reviewer must not be empty"):
        _label(artifact, reviewer="  ")
    with pytest.raises(InputError, match="artifact folder does not exist"):
        _label(tmp_path / "nowhere")
    bare = tmp_path / "bare"
    bare.mkdir()
    (bare / "conversation.json").write_text('{"kind": "hotato.conversation"}')
    with pytest.raises(InputError, match="no conversation_id"):
        _label(bare)


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symbolic links")
def test_a_linked_manifest_is_never_read(artifact: Path, tmp_path: Path) -> None:
    linked = tmp_path / "linked"
    linked.mkdir()
    (linked / "conversation.json").symlink_to(artifact / "conversation.json")
    with pytest.raises(InputError, match="symbolic link"):
        artifact_ref(linked)


def test_load_labels_separates_verified_from_refused(artifact: Path, tmp_path: Path) -> None:
    folder = tmp_path / "labels"
    folder.mkdir()
    stranger = Ed25519PrivateKey.generate()
    other = make_artifact(tmp_path / "other", conversation_id="conv-0002")
    good = _label(artifact)
    (folder / "a-good.json").write_bytes(good)
    (folder / "b-fail.json").write_bytes(_label(artifact, assertion_id="x", verdict="fail"))
    (folder / "c-stranger.json").write_bytes(_label(artifact, key=stranger))
    (folder / "d-other.json").write_bytes(_label(other))
    payload = _payload(good)
    payload["verdict"] = "fail"
    (folder / "e-tampered.json").write_bytes(_with_payload(good, payload))
    (folder / "f-junk.json").write_bytes(b"{")
    (folder / "notes.txt").write_text("not a label, not read")
    verified, refused = load_labels(folder, TRUST, artifact_ref(artifact))
    assert [(v.assertion_id, v.status) for v in verified] == [
        ("refund-tool-called", Status.PASS),
        ("x", Status.FAIL),
    ]
    assert [(Path(r.path).name, r.code) for r in refused] == [
        ("c-stranger.json", "untrusted_key"),
        ("d-other.json", "wrong_artifact"),
        ("e-tampered.json", "tampered"),
        ("f-junk.json", "malformed"),
    ]
    # Without an artifact to check against, a genuine label for another artifact verifies.
    verified, _ = load_labels(folder, TRUST)
    assert len(verified) == 3


def test_load_labels_needs_a_folder(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="labels folder"):
        load_labels(tmp_path / "absent", TRUST)


def test_artifact_ref_from_manifest_bytes_matches_the_folder(artifact: Path) -> None:
    manifest = (artifact / "conversation.json").read_bytes()
    assert ArtifactRef.from_manifest(manifest) == artifact_ref(artifact)


@settings(deadline=None)
@given(
    reviewer=st.text(min_size=1).filter(str.strip),
    note=st.text(),
    assertion_id=st.text(min_size=1).filter(str.strip),
    verdict=st.sampled_from(["pass", "fail", "PASS", "Fail"]),
)
def test_any_label_round_trips(reviewer: str, note: str, assertion_id: str, verdict: str) -> None:
    ref = ArtifactRef("conv-1", "a" * 64)
    envelope = make_label(
        ref,
        assertion_id=assertion_id,
        verdict=verdict,
        reviewer=reviewer,
        note=note,
        created_at=PINNED,
        private_key=KEY,
    )
    label = verify_label_bytes(envelope, TRUST, ref)
    assert (label.reviewer, label.note, label.assertion_id) == (reviewer, note, assertion_id)
    assert label.verdict == verdict.lower()
    assert (label.conversation_id, label.manifest_sha256) == (ref.conversation_id, "a" * 64)


def _bind_results(artifact: Path, results: dict[str, Any]) -> None:
    """Bind an evaluated-results child the way `test run --out` does."""
    data = json.dumps(results).encode()
    (artifact / "assertions.json").write_bytes(data)
    manifest_path = artifact / "conversation.json"
    manifest = json.loads(manifest_path.read_bytes())
    manifest["artifacts"]["assertions"] = {
        "path": "assertions.json",
        "sha256": hashlib.sha256(data).hexdigest(),
        "bytes": len(data),
    }
    manifest_path.write_text(json.dumps(manifest))


def test_a_label_for_an_assertion_the_artifact_never_graded_is_refused(artifact: Path) -> None:
    _bind_results(
        artifact,
        {
            "assertions": {"results": [{"id": "refund-tool-called", "status": "PASS"}]},
            "rubric": {"results": [{"id": "was-empathetic", "status": "INCONCLUSIVE"}]},
        },
    )
    assert graded_ids(artifact, (artifact / "conversation.json").read_bytes()) == [
        "refund-tool-called",
        "was-empathetic",
    ]
    _label(artifact)
    _label(artifact, assertion_id="was-empathetic")
    with pytest.raises(UsageError, match="graded no assertion 'refund-tool-caled'"):
        _label(artifact, assertion_id="refund-tool-caled")


def test_unreadable_bound_results_do_not_block_a_label(artifact: Path) -> None:
    _bind_results(artifact, {"something": "else"})
    assert graded_ids(artifact, (artifact / "conversation.json").read_bytes()) is None
    _label(artifact, assertion_id="anything")
