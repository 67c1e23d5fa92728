"""A database driver's exception as a typed could-not-read cause (StateUnavailable)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from hotato.adapters._redact import scrub
from hotato.model.state import StateUnavailable

# PostgreSQL SQLSTATE codes and MySQL/MariaDB error numbers with a cause of their own.
_SQLSTATE = {
    "28P01": "auth_failed",
    "28000": "auth_failed",
    "3D000": "unknown_database",
    "25006": "write_refused",
    "57014": "timeout",
    "57P01": "connection_lost",
    "57P02": "connection_lost",
    "57P03": "connection_refused",
    "42P01": "unknown_resource",
    "42703": "unknown_column",
}
_MYSQL = {
    1044: "auth_failed",
    1045: "auth_failed",
    1698: "auth_failed",
    1049: "unknown_database",
    1792: "write_refused",
    1969: "timeout",
    3024: "timeout",
    2006: "connection_lost",
    1146: "unknown_resource",
    1054: "unknown_column",
}
# Connection failures carry no code of their own; their text says what happened.
_TEXT = (
    ("connection refused", "connection_refused"),
    ("name or service not known", "dns"),
    ("failed to resolve host", "dns"),
    ("could not translate host name", "dns"),
    ("temporary failure in name resolution", "dns"),
    ("nodename nor servname", "dns"),
    ("no address associated", "dns"),
    ("timeout expired", "timeout"),
    ("timed out", "timeout"),
    ("password authentication failed", "auth_failed"),
    ("no pg_hba.conf entry", "auth_failed"),
    ("access denied", "auth_failed"),
    ('role "', "auth_failed"),  # role "x" does not exist
    ("does not exist", "unknown_database"),
    ("lost connection", "connection_lost"),
    ("server closed the connection", "connection_lost"),
    ("connection reset", "connection_lost"),
    ("can't connect", "connection_refused"),
    ("readonly database", "write_refused"),  # SQLite opened mode=ro
    ("interrupted", "timeout"),  # SQLite: the progress handler stopped a read past timeout_s
    ("connection failed", "connection_refused"),
)


def unavailable(exc: BaseException, doing: str, secrets: Iterable[str] = ()) -> StateUnavailable:
    """`doing` says what was attempted ("connect to postgresql ...", "read orders")."""
    orig = getattr(exc, "orig", None) or exc  # SQLAlchemy wraps the driver's exception
    detail = _first_line(orig)
    cause = _cause(orig, detail)
    if cause == "sql_error" and getattr(exc, "connection_invalidated", False):
        cause = "connection_lost"  # SQLAlchemy recognised a disconnect the text did not name
    return StateUnavailable(cause, scrub(f"could not {doing}: {detail}", secrets))


def _cause(orig: BaseException, detail: str) -> str:
    sqlstate = getattr(orig, "sqlstate", None)
    if sqlstate in _SQLSTATE:
        return _SQLSTATE[sqlstate]
    args: tuple[Any, ...] = getattr(orig, "args", ())
    if args and isinstance(args[0], int) and args[0] in _MYSQL:
        return _MYSQL[args[0]]
    if isinstance(orig, TimeoutError):
        return "timeout"
    if isinstance(orig, ConnectionRefusedError):
        return "connection_refused"
    low = detail.lower()
    if sqlstate is None and not (args and isinstance(args[0], int) and args[0] < 2000):
        for needle, cause in _TEXT:
            if needle in low:
                return cause
    return "sql_error"


def _first_line(orig: BaseException) -> str:
    args: tuple[Any, ...] = getattr(orig, "args", ())
    if len(args) == 2 and isinstance(args[0], int):  # pymysql: (errno, message)
        text = f"({args[0]}) {args[1]}"
    else:
        text = str(orig) or type(orig).__name__
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[0] if lines else type(orig).__name__
