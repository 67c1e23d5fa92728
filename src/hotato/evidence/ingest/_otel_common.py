"""Reading OTel span attributes the way every convention module needs them."""

from __future__ import annotations

from typing import Any

from hotato.evidence.ingest._emit import ABSENT, Emitter
from hotato.evidence.ingest._otlp import STATUS_ERROR, STATUS_OK, OSpan, hex_id
from hotato.evidence.ingest._values import jsonish


def first(attrs: dict[str, Any], *keys: str) -> Any:
    """The first of `keys` present in `attrs` (None when none is)."""
    for key in keys:
        value = attrs.get(key)
        if value is not None:
            return value
    return None


def payload(attrs: dict[str, Any], *keys: str) -> Any:
    """A recorded payload (arguments, a result): ABSENT when no key is present at all."""
    for key in keys:
        if key in attrs:
            return jsonish(attrs[key])
    return ABSENT


def text(attrs: dict[str, Any], *keys: str) -> str | None:
    value = first(attrs, *keys)
    return value if isinstance(value, str) else None


def span_error(s: OSpan) -> Any:
    """What went wrong, per the span: `error.type`, an exception event, or an ERROR status."""
    kind = s.attributes.get("error.type")
    for event in s.events:
        if event.name == "exception":
            message = event.attributes.get("exception.message")
            etype = kind or event.attributes.get("exception.type")
            if message or etype:
                return {k: v for k, v in (("type", etype), ("message", message)) if v}
    if kind:
        return {"type": kind, "message": s.status_message} if s.status_message else str(kind)
    if s.status_code == STATUS_ERROR:
        return s.status_message or True
    return None


def span_ok(s: OSpan) -> bool | None:
    if s.status_code == STATUS_ERROR:
        return False
    return True if s.status_code == STATUS_OK else None


def ids(em: Emitter, s: OSpan, **extra: Any) -> dict[str, Any] | None:
    """Source ids (as hex) as attributes, only with --include-identifiers."""
    if not em.opts.include_identifiers:
        return None
    out = {"trace_id": hex_id(s.trace_id) or None, "span_id": hex_id(s.span_id) or None}
    out.update(extra)
    return out


def first_token(em: Emitter, s: OSpan, seconds: Any) -> None:
    """Time to first token/byte, recorded in seconds on a model or speech span."""
    if s.start_ns is None or not isinstance(seconds, int | float) or isinstance(seconds, bool):
        return
    if seconds < 0:
        return
    at = s.start_ns + round(seconds * 1_000_000_000)
    ms = round(seconds * 1000, 3)
    em.span("llm_first_token", at=at, latency_ms=int(ms) if ms == int(ms) else ms)
