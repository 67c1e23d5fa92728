"""The shapes in which a tool says it failed: one table, read by every kind and by claims.

A tool's own failure marker is often inside what it returned, not on the span: Retell's
function result `content` is `{"success": false, "error": "card declined"}` beside
`successful: true` (the call itself went through). `failure(value)` reads a span's fields or a
returned value against the table below and says which shape it found; `Span.raised()` asks it
of both, so `tool_error` passes an honest agent and `absent: true` fails one that hid the
failure.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

# key -> the shape that marks a failure under it
FALSE_FLAGS = ("ok", "success", "successful")  # false means the tool failed
FAILED_STATUSES = frozenset({"error", "failed", "failure"})  # `status` words, any case
HTTP_STATUS_KEYS = ("status", "status_code", "statusCode", "http_status", "httpStatus")
ERROR_KEYS = ("error",)  # a string or an object (or `true`) here is a failure
HTTP_ERROR_FROM = 400

# Bytes at least one of these shapes holds when written as JSON (or an escape that may spell
# one): a search for them finds every payload that may be a failure, and others besides.
FAILURE_BYTES = (b"false", b'"error', b"status", b"Status", b"\\")


def _http_error(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= HTTP_ERROR_FROM


def failure(value: Any) -> str | None:
    """The failure shape `value` (a mapping) holds, as `key: value`; None when it holds none
    (or is not a mapping). Shapes: `ok` / `success` / `successful` false; `status` error,
    failed or failure (any case); an `error` that is a non-empty string or object, or true; an
    HTTP status of 400 or more under `status`, `status_code`, `statusCode`, `http_status` or
    `httpStatus`."""
    if not isinstance(value, Mapping):
        return None
    for key in FALSE_FLAGS:
        if value.get(key) is False:
            return f"{key}: false"
    for key in ERROR_KEYS:
        err = value.get(key)
        if err is True or (isinstance(err, str | Mapping) and err):
            return f"{key}: {err if isinstance(err, str) else 'an error object'}"
    status = value.get("status")
    if isinstance(status, str) and status.strip().lower() in FAILED_STATUSES:
        return f"status: {status}"
    for key in HTTP_STATUS_KEYS:
        if _http_error(value.get(key)):
            return f"{key}: {value[key]}"
    return None


def failure_text(value: Any) -> str | None:
    """The words of the failure `value` holds: its `error` (or the error object's message),
    else a `message`, else the shape itself; None when it holds no failure."""
    shape = failure(value)
    if shape is None:
        return None
    err = value.get("error")
    if isinstance(err, str) and err:
        return err
    if isinstance(err, Mapping):
        for key in ("message", "detail", "code", "type"):
            if isinstance(err.get(key), str) and err[key]:
                return str(err[key])
    message = value.get("message")
    if isinstance(message, str) and message:
        return message
    return shape
