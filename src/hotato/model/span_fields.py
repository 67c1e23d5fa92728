"""Where a span keeps each field it may carry, and the names it may carry it under.

Traces written for hotato 1.x (and by hand, and by stacks' own exporters) put a field at the top
level of a span or under its `attributes`, under one of several names: an HTTP method as
`method`, `http.method` or `request_method`; a handoff target as `to`, `target` or `name`. Every
kind reads a span's fields through `read_field` with a logical name from this table, so a new
alias is one line here and every kind, index and report sees it.

Lookup order is the table's order; for each name the top level is read before `attributes`, and
the first value that is not null wins (as hotato 1.x read them).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

# logical field -> the names a span may carry it under, in the order they are tried
SPAN_FIELDS: Mapping[str, tuple[str, ...]] = {
    "arguments": ("arguments",),
    "result": ("result",),
    "error": ("error",),
    # the text an `error_matches` pattern is matched against
    "error_text": ("error", "error_message", "message"),
    "status": ("status",),
    "ok": ("ok",),
    "latency_ms": ("latency_ms",),
    "method": ("method", "http.method", "request_method", "http.request.method"),
    "url": ("url", "http.url", "route", "target", "url.full"),
    "status_code": ("status_code", "http.status_code", "http.response.status_code"),
    "response": ("response", "response_body", "result"),
    "handoff_to": ("to", "target", "name", "destination"),
    "digits": ("digits", "digit"),
    "reason": ("reason",),
    "ended_by": ("by", "terminated_by", "ended_by"),
}

# Span types that record how a call ended.
TERMINATION_TYPES = frozenset({"call_ended", "termination", "call_terminated", "hangup"})
# Span types that record a transfer.
HANDOFF_TYPES = frozenset({"handoff", "transfer"})


def _present(value: Any) -> bool:
    return value is not None


def read_field(
    field: str,
    top: Callable[[str], Any],
    attributes: Callable[[], Mapping[str, Any]],
    accept: Callable[[Any], bool] = _present,
) -> Any:
    """The first value of `field` under any of its names that `accept` takes (by default, the
    first that is not null): `top(name)` reads the span's own level, `attributes()` its
    attributes (asked for at most once, and only when needed)."""
    attrs: Mapping[str, Any] | None = None
    for key in SPAN_FIELDS[field]:
        value = top(key)
        if value is not None and accept(value):
            return value
        if attrs is None:
            attrs = attributes()
        value = attrs.get(key)
        if value is not None and accept(value):
            return value
    return None
