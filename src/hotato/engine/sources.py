"""The evidence of one call: a trace file opened in any format, and the one rule for what it
supplies (`call_sources`). `hotato.runs.evidence.sources_of` builds a call's Sources with them."""

from __future__ import annotations

import codecs

import msgspec

from hotato._io import digest_file
from hotato.engine.evaluate import Sources
from hotato.model.errors import InputError
from hotato.model.evidence import CallEvidence, Trace, Transcript
from hotato.model.state import StateSource


def _is_native(path: str) -> bool:
    """The first non-blank line is a voice_trace meta object (the same test trace ingest's
    detection makes). Such a trace is read without importing the ingest package and its
    stack readers, which would otherwise be most of a small run's start-up."""
    try:
        with open(path, "rb") as handle:
            line = b""
            for _ in range(1000):
                line = handle.readline(1 << 20)
                if not line or line.strip():
                    break
    except OSError:
        return False
    try:
        value = msgspec.json.decode(line.strip().removeprefix(codecs.BOM_UTF8))
    except msgspec.DecodeError:
        return False
    return isinstance(value, dict) and value.get("_meta") is True


def open_trace(path: str, fmt: str = "auto", verified_sha256: str | None = None) -> Trace:
    """Load a trace in any format hotato reads. With `verified_sha256` (the digest its
    signature was checked against), the bytes read must be those bytes: a trace swapped
    between the check and the read is refused, never graded."""
    return open_call(path, fmt, verified_sha256).trace


def open_call(path: str, fmt: str = "auto", verified_sha256: str | None = None) -> CallEvidence:
    """A trace file's evidence: its spans, and for a stack's export the transcript it carries
    and whether it held no call evidence at all (see `hotato.evidence.ingest.load_call`)."""
    if fmt == "native" or (fmt == "auto" and _is_native(path)):
        from hotato.evidence.trace import load_trace

        digest = None
        if verified_sha256:
            import hashlib  # OpenSSL loads only when a signed trace is read

            digest = hashlib.sha256()
        call = CallEvidence(load_trace(path, digest))
        read_sha256 = digest.hexdigest() if digest is not None else None
    else:
        from hotato.evidence.ingest import load_call

        call = load_call(path, fmt)
        read_sha256 = digest_file(path, "trace")[0] if verified_sha256 else None
    trace = call.trace
    if verified_sha256 and read_sha256 != verified_sha256:
        raise InputError.one(
            "the trace changed after its signature was checked; refusing to "
            "grade bytes that were not verified",
            file=path,
        )
    trace.authenticated = bool(verified_sha256)
    return call


def call_sources(
    call: CallEvidence | None, transcript: Transcript | None, state: StateSource | None
) -> Sources:
    """The one rule for what a trace file supplies. A stack's export is all the evidence it
    holds: without `transcript`, the turns it carries are the transcript. An export that held
    no call evidence is not supplied, with its cause in `gaps`, so checks that read it are
    INCONCLUSIVE rather than graded against nothing."""
    empty = call.empty if call is not None else None
    sources = Sources(
        trace=call.trace if call is not None and empty is None else None,
        transcript=transcript if transcript is not None else (call.transcript if call else None),
        state=state,
    )
    if empty is not None:
        sources.gaps["trace"] = empty
        sources.gaps["transcript"] = empty
    return sources
