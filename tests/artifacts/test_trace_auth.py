"""Authenticated traces: a signature beside the trace, checked before any check reads it."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from securesystemslib.dsse import Envelope as SslibEnvelope
from securesystemslib.signer import SSlibKey

from hotato.artifacts.signing import (
    MalformedEnvelope,
    Tampered,
    Trust,
    Unsigned,
    UntrustedKey,
    key_id,
    sign,
)
from hotato.artifacts.trace_auth import (
    PAYLOAD_TYPE,
    authenticate_trace,
    sign_trace,
    signature_path,
    verify_trace,
)
from hotato.model.errors import InputError, UsageError

KEY = Ed25519PrivateKey.generate()
TRUST = Trust.of(KEY.public_key())
TRACE = (
    b'{"_meta": true, "schema": "hotato.voice_trace.v1", "call_id": "c1"}\n'
    b'{"type": "tool_call", "name": "issue_refund", "start_sec": 1.0, "end_sec": 1.4}\n'
)


@pytest.fixture
def trace(tmp_path: Path) -> Path:
    path = tmp_path / "call.jsonl"
    path.write_bytes(TRACE)
    return path


def test_sign_writes_an_envelope_beside_the_trace(trace: Path) -> None:
    written = sign_trace(trace, KEY)
    assert written == trace.parent / "call.jsonl.dsse.json" == signature_path(trace)
    doc = json.loads(written.read_bytes())
    assert doc["payloadType"] == PAYLOAD_TYPE
    auth = verify_trace(trace, TRUST)
    assert auth.authenticated and auth.key_id == key_id(KEY.public_key())
    # The payload binds the trace's digest and size; securesystemslib agrees on the signature.
    envelope = SslibEnvelope.from_dict(doc)
    statement = json.loads(envelope.payload)
    assert statement["bytes"] == len(TRACE)
    assert statement["sha256"] == hashlib.sha256(TRACE).hexdigest()
    sslib_key = SSlibKey.from_crypto(KEY.public_key(), keyid=key_id(KEY.public_key()))
    assert envelope.verify([sslib_key], threshold=1)


def test_signing_is_byte_stable(trace: Path, tmp_path: Path) -> None:
    a = sign_trace(trace, KEY, tmp_path / "a.json").read_bytes()
    b = sign_trace(trace, KEY, tmp_path / "b.json").read_bytes()
    assert a == b


@pytest.mark.parametrize(
    "edit",
    [
        lambda b: b.replace(b"issue_refund", b"issue_refunt"),  # same size, other bytes
        lambda b: b + b'{"type": "hangup", "time_sec": 9}\n',  # a span appended
        lambda b: b[:-1],  # truncated
    ],
)
def test_an_edited_trace_is_refused(trace: Path, edit: object) -> None:
    sign_trace(trace, KEY)
    trace.write_bytes(edit(TRACE))  # type: ignore[operator]
    with pytest.raises(Tampered, match="the trace changed after it was signed"):
        verify_trace(trace, TRUST)


def test_an_unsigned_trace(trace: Path) -> None:
    with pytest.raises(Unsigned, match="not signed"):
        verify_trace(trace, TRUST)


def test_a_stranger_signed_trace_is_refused(trace: Path) -> None:
    sign_trace(trace, Ed25519PrivateKey.generate())
    with pytest.raises(UntrustedKey):
        verify_trace(trace, TRUST)


def test_another_kind_of_envelope_beside_the_trace_is_refused(trace: Path) -> None:
    signature_path(trace).write_bytes(sign(b"{}", "application/vnd.hotato.label+json", KEY))
    with pytest.raises(MalformedEnvelope, match="payload type"):
        verify_trace(trace, TRUST)
    signature_path(trace).write_bytes(sign(b'{"sha256": 1}', PAYLOAD_TYPE, KEY))
    with pytest.raises(MalformedEnvelope, match="not a trace signature payload"):
        verify_trace(trace, TRUST)


def test_a_missing_trace_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="does not exist"):
        verify_trace(tmp_path / "absent.jsonl", TRUST)


# The runner's one call: --trace-key PUBKEY and --require-signed-trace.


def test_authenticate_without_a_key(trace: Path) -> None:
    assert not authenticate_trace(trace, None, require=False).authenticated
    with pytest.raises(UsageError, match="--require-signed-trace needs --trace-key"):
        authenticate_trace(trace, None, require=True)


def test_authenticate_an_unsigned_trace(trace: Path) -> None:
    auth = authenticate_trace(trace, TRUST, require=False)
    assert not auth.authenticated and "not signed" in auth.reason
    with pytest.raises(Unsigned):
        authenticate_trace(trace, TRUST, require=True)


@pytest.mark.parametrize("require", [False, True])
def test_a_badly_signed_trace_is_always_refused(trace: Path, require: bool) -> None:
    sign_trace(trace, KEY)
    trace.write_bytes(TRACE + b"\n")
    with pytest.raises(Tampered):
        authenticate_trace(trace, TRUST, require=require)


def test_authenticate_a_signed_trace(trace: Path) -> None:
    sign_trace(trace, KEY)
    auth = authenticate_trace(trace, TRUST, require=True)
    assert auth.authenticated and auth.sha256 is not None
