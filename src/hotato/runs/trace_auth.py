"""Trace authentication for a run (`--trace-key`, `--require-signed-trace`): a trace's
signature is checked before any check reads it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from hotato.model.errors import InputError
from hotato.model.reports import TraceAuthResult

if TYPE_CHECKING:
    from hotato.artifacts.trace_auth import TraceAuth


def authenticate(trace: str | None, trace_keys: tuple[str, ...], require: bool) -> TraceAuth | None:
    """The trace's TraceAuth, or None when no check was asked for.

    A badly signed trace is refused (exit 2); an unsigned one only under `require`."""
    if require and trace is None:
        raise InputError.one("--require-signed-trace needs a --trace to check")
    if trace is None or not (trace_keys or require):
        return None
    from hotato.artifacts.signing import load_trust
    from hotato.artifacts.trace_auth import authenticate_trace

    trust = load_trust(list(trace_keys)) if trace_keys else None
    return authenticate_trace(trace, trust, require=require)


def auth_doc(auth: TraceAuth) -> TraceAuthResult:
    """What a run's document says of the trace's signature (`trace_auth`)."""
    return TraceAuthResult(authenticated=auth.authenticated, key_id=auth.key_id, reason=auth.reason)


def verified_digest(auth: TraceAuth | None) -> str | None:
    """The sha256 a good signature covers: the loader then reads exactly those bytes."""
    return auth.sha256 if auth is not None and auth.authenticated else None
