"""Authenticated traces: a DSSE envelope beside the trace binding its sha256 and size.

`hotato trace sign call.jsonl --key KEY` writes `call.jsonl.dsse.json`. A run given
`--trace-key PUBKEY` calls `authenticate_trace` before any check reads the trace; with
`--require-signed-trace` an unsigned trace is refused too. Hashing streams, so a large trace
costs one read and constant memory.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import msgspec

from hotato._io import check_readable, digest_file, write_atomic
from hotato.artifacts.signing import (
    MalformedEnvelope,
    Tampered,
    Trust,
    Unsigned,
    sign,
    verify,
)
from hotato.model.errors import UsageError

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

PAYLOAD_TYPE = "application/vnd.hotato.voice-trace+json"
SUFFIX = ".dsse.json"


class TraceStatement(msgspec.Struct, forbid_unknown_fields=True):
    """The signed payload: which bytes the signer vouches for."""

    kind: str
    version: int
    sha256: str
    bytes: int


KIND = "hotato.voice-trace-signature"


@dataclass(frozen=True)
class TraceAuth:
    """Whether the trace a run reads was authenticated, and by which key."""

    authenticated: bool
    key_id: str | None = None
    key_source: str | None = None
    sha256: str | None = None
    reason: str = ""


def signature_path(trace_path: str | os.PathLike[str]) -> Path:
    """Where a trace's envelope lives: beside it, named `<trace file name>.dsse.json`."""
    p = Path(trace_path)
    return p.with_name(p.name + SUFFIX)


def sign_trace(
    trace_path: str | os.PathLike[str],
    private_key: Ed25519PrivateKey,
    out: str | os.PathLike[str] | None = None,
) -> Path:
    """Sign the trace file's digest and size; write the envelope (default: beside the trace)."""
    sha256, size = digest_file(trace_path, "trace")
    statement = TraceStatement(kind=KIND, version=1, sha256=sha256, bytes=size)
    envelope = sign(msgspec.json.encode(statement), PAYLOAD_TYPE, private_key)
    return write_atomic(out if out is not None else signature_path(trace_path), envelope)


def verify_trace(
    trace_path: str | os.PathLike[str],
    trust: Trust,
    envelope_path: str | os.PathLike[str] | None = None,
) -> TraceAuth:
    """An authenticated TraceAuth, or a refusal.

    Raises Unsigned (no envelope), MalformedEnvelope, UntrustedKey, or Tampered (the signature,
    or the trace's bytes, changed after signing).
    """
    check_readable(trace_path, "trace")
    sig_path = Path(envelope_path) if envelope_path is not None else signature_path(trace_path)
    if not sig_path.is_file():
        raise Unsigned.one(
            f"the trace is not signed (no {sig_path.name} beside it); sign it with "
            "`hotato trace sign TRACE --key KEY`",
            file=str(trace_path),
        )
    source = str(sig_path)
    verified = verify(sig_path.read_bytes(), trust, payload_type=PAYLOAD_TYPE, source=source)
    try:
        statement = msgspec.json.decode(verified.payload, type=TraceStatement)
    except msgspec.ValidationError as exc:
        raise MalformedEnvelope.one(f"not a trace signature payload ({exc})", file=source) from None
    except msgspec.DecodeError as exc:
        raise MalformedEnvelope.one(f"the payload is not JSON ({exc})", file=source) from None
    if statement.kind != KIND:
        raise MalformedEnvelope.one(
            f"payload kind is {statement.kind!r}, expected {KIND!r}", file=source
        )
    sha256, size = digest_file(trace_path, "trace")
    if (sha256, size) != (statement.sha256, statement.bytes):
        raise Tampered.one(
            f"the trace changed after it was signed (signed {statement.bytes} bytes, sha256 "
            f"{statement.sha256[:16]}...; now {size} bytes, sha256 {sha256[:16]}...)",
            file=str(trace_path),
        )
    return TraceAuth(True, verified.key_id, verified.key_source, sha256, "signature verified")


def authenticate_trace(
    trace_path: str | os.PathLike[str], trust: Trust | None, *, require: bool
) -> TraceAuth:
    """The runner's one call for `--trace-key` / `--require-signed-trace`, before reading the trace.

    A badly signed trace is always refused. An unsigned one is refused only when `require`; else
    the run goes on with `authenticated: false`. `require` without trusted keys is a usage error.
    """
    if trust is None:
        if require:
            raise UsageError.one("--require-signed-trace needs --trace-key PUBKEY to verify with")
        return TraceAuth(False, reason="no --trace-key given")
    try:
        return verify_trace(trace_path, trust)
    except Unsigned as exc:
        if require:
            raise
        return TraceAuth(False, reason=exc.problems[0].message)


__all__ = [
    "PAYLOAD_TYPE",
    "TraceAuth",
    "TraceStatement",
    "authenticate_trace",
    "sign_trace",
    "signature_path",
    "verify_trace",
]
