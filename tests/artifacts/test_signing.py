"""Keys in every form users have; DSSE envelopes checked against an independent implementation."""

from __future__ import annotations

import base64
import hashlib
import json
import subprocess
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from hypothesis import given, settings
from hypothesis import strategies as st
from securesystemslib.dsse import Envelope as SslibEnvelope
from securesystemslib.signer import CryptoSigner, SSlibKey

from hotato.artifacts.signing import (
    MalformedEnvelope,
    Tampered,
    Trust,
    UntrustedKey,
    key_id,
    load_private_key,
    load_public_key,
    load_trust,
    pae,
    public_key_pem,
    sign,
    verify,
)
from hotato.model.errors import InputError

from .conftest import KeyFiles, write_keypair

TYPE = "application/vnd.hotato.test+json"

# One key for the property tests (hypothesis dislikes function-scoped fixtures).
KEY = Ed25519PrivateKey.generate()
TRUST = Trust.of(KEY.public_key())


def _raw(public_key: object) -> bytes:
    return public_key.public_bytes(Encoding.Raw, PublicFormat.Raw)  # type: ignore[attr-defined]


# -- keys -----------------------------------------------------------------------------------------


def test_key_id_is_sha256_of_the_raw_public_key() -> None:
    assert key_id(KEY.public_key()) == hashlib.sha256(_raw(KEY.public_key())).hexdigest()


def test_pem_keys_round_trip(keys: KeyFiles) -> None:
    private = load_private_key(keys.private)
    public = load_public_key(keys.public)
    assert key_id(private.public_key()) == key_id(public)


def test_ssh_keygen_keys_load_and_agree(ssh_keys: KeyFiles) -> None:
    private = load_private_key(ssh_keys.private)
    public = load_public_key(ssh_keys.public)
    assert key_id(private.public_key()) == key_id(public)


def test_openssl_keys_load_and_agree(openssl_keys: KeyFiles) -> None:
    private = load_private_key(openssl_keys.private)
    public = load_public_key(openssl_keys.public)
    assert key_id(private.public_key()) == key_id(public)


def test_the_key_id_is_the_raw_key_inside_an_openssh_line(ssh_keys: KeyFiles) -> None:
    # Parse the `.pub` wire format by hand: string "ssh-ed25519", then string <32-byte key>.
    blob = base64.b64decode(ssh_keys.public.read_text().split()[1])
    name_len = int.from_bytes(blob[:4], "big")
    raw = blob[4 + name_len + 4 :]
    assert blob[4 : 4 + name_len] == b"ssh-ed25519" and len(raw) == 32
    assert key_id(load_public_key(ssh_keys.public)) == hashlib.sha256(raw).hexdigest()


def test_the_same_key_has_one_id_in_pem_and_openssh_form(
    tmp_path: Path, ssh_keys: KeyFiles
) -> None:
    as_pem = tmp_path / "as.pem"
    as_pem.write_bytes(public_key_pem(load_private_key(ssh_keys.private).public_key()))
    assert key_id(load_public_key(as_pem)) == key_id(load_public_key(ssh_keys.public))


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (["ssh-keygen", "-q", "-t", "rsa", "-b", "2048", "-N", "", "-f"], "not an Ed25519 key"),
        (["ssh-keygen", "-q", "-t", "ed25519", "-N", "secret", "-f"], "passphrase-protected"),
    ],
)
def test_private_keys_hotato_cannot_use_are_refused(
    tmp_path: Path, make: list[str], message: str
) -> None:
    path = tmp_path / "key"
    subprocess.run([*make, str(path)], check=True)
    with pytest.raises(InputError, match=message):
        load_private_key(path)
    if "rsa" in make:
        with pytest.raises(InputError, match="not an Ed25519 key"):
            load_public_key(path.with_suffix(".pub"))


def test_encrypted_pkcs8_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "enc.pem"
    subprocess.run(
        [
            "openssl",
            "genpkey",
            "-algorithm",
            "ed25519",
            "-aes-256-cbc",
            "-pass",
            "pass:pw",
            "-out",
            str(path),
        ],
        check=True,
    )
    with pytest.raises(InputError, match="passphrase-protected"):
        load_private_key(path)


def test_key_files_in_the_wrong_role_are_refused(keys: KeyFiles, tmp_path: Path) -> None:
    with pytest.raises(InputError, match="this is a private key; trust the public key"):
        load_public_key(keys.private)
    with pytest.raises(InputError, match="this is a public key; signing needs the private key"):
        load_private_key(keys.public)
    junk = tmp_path / "junk.pub"
    junk.write_text("hello\n")
    with pytest.raises(InputError, match="not a key file hotato reads"):
        load_public_key(junk)
    with pytest.raises(InputError, match="does not exist"):
        load_public_key(tmp_path / "absent.pub")


def test_trust_from_files_and_folders(tmp_path: Path, ssh_keys: KeyFiles) -> None:
    a = write_keypair(tmp_path / "trust", "alice")
    b = write_keypair(tmp_path / "trust", "bob")
    # A folder reads its *.pub and *.pem files; private *.key files beside them are not read.
    trust = load_trust([tmp_path / "trust", ssh_keys.public, a.public])
    assert len(trust) == 3  # alice listed twice counts once
    for files in (a, b, ssh_keys):
        assert key_id(load_public_key(files.public)) in trust


def test_trust_refuses_nothing_to_trust(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputError, match="holds no public keys"):
        load_trust([tmp_path / "empty"])
    with pytest.raises(InputError, match="no trusted public keys"):
        load_trust([])


# -- DSSE -----------------------------------------------------------------------------------------


def test_pae_matches_the_spec_example() -> None:
    # From the DSSE protocol description.
    assert pae("http://example.com/HelloWorld", b"hello world") == (
        b"DSSEv1 29 http://example.com/HelloWorld 11 hello world"
    )


def test_envelope_shape_and_determinism() -> None:
    envelope = sign(b'{"a":1}', TYPE, KEY)
    doc = json.loads(envelope)
    assert list(doc) == ["payload", "payloadType", "signatures"]
    assert list(doc["signatures"][0]) == ["keyid", "sig"]
    assert doc["signatures"][0]["keyid"] == key_id(KEY.public_key())
    assert base64.b64decode(doc["payload"]) == b'{"a":1}'
    assert sign(b'{"a":1}', TYPE, KEY) == envelope  # Ed25519 is deterministic
    verified = verify(envelope, TRUST, payload_type=TYPE)
    assert (verified.payload, verified.payload_type) == (b'{"a":1}', TYPE)
    assert verified.key_id == key_id(KEY.public_key())


def _sslib_key(private: Ed25519PrivateKey) -> SSlibKey:
    return SSlibKey.from_crypto(private.public_key(), keyid=key_id(private.public_key()))


def test_securesystemslib_verifies_our_envelopes() -> None:
    envelope = SslibEnvelope.from_dict(json.loads(sign(b"payload bytes", TYPE, KEY)))
    accepted = envelope.verify([_sslib_key(KEY)], threshold=1)
    assert list(accepted) == [key_id(KEY.public_key())]
    assert envelope.payload == b"payload bytes"
    assert envelope.pae() == pae(TYPE, b"payload bytes")


def test_we_verify_securesystemslib_envelopes() -> None:
    signer = CryptoSigner(KEY, _sslib_key(KEY))
    envelope = SslibEnvelope(b"from sslib", TYPE, {})
    envelope.sign(signer)
    data = json.dumps(envelope.to_dict()).encode()
    assert verify(data, TRUST, payload_type=TYPE).payload == b"from sslib"


def test_a_keyid_is_only_a_hint() -> None:
    # securesystemslib's own default key id differs from ours; DSSE says keyid is unauthenticated,
    # so the signature is checked with every trusted key and the verifying key's id is reported.
    signer = CryptoSigner(KEY, SSlibKey.from_crypto(KEY.public_key()))
    envelope = SslibEnvelope(b"x", TYPE, {})
    envelope.sign(signer)
    assert next(iter(envelope.signatures)) != key_id(KEY.public_key())
    verified = verify(json.dumps(envelope.to_dict()).encode(), TRUST)
    assert verified.key_id == key_id(KEY.public_key())


def _edit(envelope: bytes, **changes: object) -> bytes:
    doc = json.loads(envelope)
    for field, value in changes.items():
        if field in ("keyid", "sig"):
            doc["signatures"][0][field] = value
        else:
            doc[field] = value
    return json.dumps(doc).encode()


def test_tampering_is_refused() -> None:
    envelope = sign(b'{"verdict":"fail"}', TYPE, KEY)
    forged_payload = base64.b64encode(b'{"verdict":"pass"}').decode()
    with pytest.raises(Tampered, match="does not hold"):
        verify(_edit(envelope, payload=forged_payload), TRUST)
    with pytest.raises(Tampered):
        verify(_edit(envelope, payloadType="application/other"), TRUST)
    sig = bytearray(base64.b64decode(json.loads(envelope)["signatures"][0]["sig"]))
    sig[0] ^= 1
    with pytest.raises(Tampered):
        verify(_edit(envelope, sig=base64.b64encode(bytes(sig)).decode()), TRUST)


def test_an_untrusted_signer_is_refused() -> None:
    stranger = Ed25519PrivateKey.generate()
    with pytest.raises(UntrustedKey, match="not among the 1 trusted key"):
        verify(sign(b"x", TYPE, stranger), TRUST)
    with pytest.raises(UntrustedKey):
        verify(sign(b"x", TYPE, KEY), Trust())


def test_wrong_payload_type_is_refused_after_the_signature_holds() -> None:
    with pytest.raises(MalformedEnvelope, match=r"payload type is 'application/vnd\.hotato\.test"):
        verify(sign(b"x", TYPE, KEY), TRUST, payload_type="application/vnd.hotato.label+json")


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"", "not a DSSE envelope"),
        (b"[1, 2]", "not a DSSE envelope"),
        (b'{"payload": "eA==", "payloadType": "t"}', "not a DSSE envelope"),
        (b'{"payload": "eA==", "payloadType": "t", "signatures": []}', "no signatures"),
        (
            b'{"payload": "!!", "payloadType": "t", "signatures": [{"keyid": "", "sig": "eA=="}]}',
            "not valid base64",
        ),
        (
            b'{"payload": "eA==", "payloadType": "t", "signatures": [{"sig": "%%"}]}',
            "not valid base64",
        ),
        (
            b'{"payload": "eA==", "payloadType": "t", "signatures": [{"sig": "eA=="}], "x": 1}',
            "not a DSSE envelope",
        ),
    ],
)
def test_malformed_envelopes_are_refused(data: bytes, message: str) -> None:
    with pytest.raises(MalformedEnvelope, match=message):
        verify(data, TRUST)


def test_url_safe_and_unpadded_base64_are_accepted() -> None:
    doc = json.loads(sign(b"\xfb\xff\xfe" * 7, TYPE, KEY))
    doc["payload"] = doc["payload"].replace("+", "-").replace("/", "_").rstrip("=")
    assert verify(json.dumps(doc).encode(), TRUST).payload == b"\xfb\xff\xfe" * 7


# -- properties -----------------------------------------------------------------------------------


@settings(deadline=None)
@given(payload=st.binary(max_size=512), payload_type=st.text(min_size=1, max_size=40))
def test_round_trip_and_sslib_agree(payload: bytes, payload_type: str) -> None:
    envelope = sign(payload, payload_type, KEY)
    verified = verify(envelope, TRUST, payload_type=payload_type)
    assert (verified.payload, verified.payload_type) == (payload, payload_type)
    independent = SslibEnvelope.from_dict(json.loads(envelope))
    assert independent.verify([_sslib_key(KEY)], threshold=1)


@settings(deadline=None)
@given(payload=st.binary(min_size=1, max_size=256), data=st.data())
def test_any_flipped_payload_byte_is_caught(payload: bytes, data: st.DataObject) -> None:
    envelope = json.loads(sign(payload, TYPE, KEY))
    i = data.draw(st.integers(0, len(payload) - 1))
    bit = data.draw(st.integers(0, 7))
    forged = bytearray(payload)
    forged[i] ^= 1 << bit
    envelope["payload"] = base64.b64encode(bytes(forged)).decode()
    with pytest.raises(Tampered):
        verify(json.dumps(envelope).encode(), TRUST)
