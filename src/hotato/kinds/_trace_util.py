"""Small readers over trace spans shared by several kinds."""

from __future__ import annotations

from typing import Any

import msgspec

from hotato.model.evidence import Span


def as_object(value: Any) -> Any:
    """Tool arguments and results are sometimes JSON strings; read them as JSON when they are."""
    if isinstance(value, str) and value[:1] in ("{", "["):
        try:
            return msgspec.json.decode(value)
        except msgspec.DecodeError:
            return value
    return value


def span_ids(spans: list[Span], limit: int = 20) -> list[str]:
    return [s.id for s in spans[:limit]]


def error_text(span: Span) -> str:
    err = span.error()
    if err is None:
        if span.type == "tool_timeout":
            return "timeout"
        return str(span.status or "")
    if isinstance(err, dict):
        parts = [str(err.get(k)) for k in ("type", "code", "message") if err.get(k) is not None]
        return ": ".join(parts) if parts else msgspec.json.encode(err).decode()
    return str(err)
