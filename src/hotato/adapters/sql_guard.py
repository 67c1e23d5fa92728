"""The SELECT-only check for configured queries, and their `:name` parameters.

The database's read-only session is the guarantee; this check refuses a configured query that
is not one SELECT before anything connects, with the adapter file's line in the message.
"""

from __future__ import annotations

import re

# Literals and comments are blanked before looking at keywords, so a string may say "delete".
_BLANK = re.compile(
    r"""'(?:[^']|'')*'|"(?:[^"]|"")*"|`(?:[^`]|``)*`|--(?=\s|$)[^\n]*|/\*(?!!).*?\*/""",
    re.DOTALL | re.MULTILINE,
)
_PARAM = re.compile(r"(?<![:\w\\]):(\w+)(?!:)")  # SQLAlchemy text() bind syntax; `::int` is a cast
_WRITES = re.compile(r"\b(INSERT|UPDATE|DELETE|MERGE|UPSERT|INTO)\b", re.IGNORECASE)
_LOCKS = re.compile(r"\bFOR\s+(NO\s+KEY\s+)?(UPDATE|SHARE|KEY\s+SHARE)\b|\bLOCK\b", re.IGNORECASE)
_DOLLAR = re.compile(r"\$\w*\$")
_FIRST = re.compile(r"^[\s(]*(\w+)", re.IGNORECASE)


def select_problem(sql: str) -> str | None:
    """Why `sql` is not a single read-only SELECT, or None when it is one."""
    if "\\" in sql:
        return "a configured query may not contain backslashes (string escapes differ by database)"
    if "/*!" in sql:
        return "a configured query may not use MySQL executable comments (/*! ... */)"
    if _DOLLAR.search(sql):
        return "a configured query may not use dollar-quoted strings"
    bare = _BLANK.sub(" ", sql)
    if "'" in bare or '"' in bare or "`" in bare or "/*" in bare:
        return "a configured query has an unterminated quote or comment"
    bare = bare.strip()
    if bare.endswith(";"):
        bare = bare[:-1].rstrip()
    if ";" in bare:
        return "a configured query must be one statement (no ';' between statements)"
    first = _FIRST.match(bare)
    if first is None or first.group(1).upper() not in ("SELECT", "WITH"):
        word = first.group(1).upper() if first else "nothing"
        return f"a configured query must be a SELECT, not {word}"
    write = _WRITES.search(bare)
    if write:
        return f"a configured query must only read: it contains {write.group(1).upper()}"
    if _LOCKS.search(bare):
        return "a configured query must not lock rows (FOR UPDATE / FOR SHARE / LOCK)"
    return None


def parameters(sql: str) -> list[str]:
    """The `:name` parameters of a configured query, in first-use order."""
    seen: list[str] = []
    for name in _PARAM.findall(_BLANK.sub(" ", sql)):
        if name not in seen:
            seen.append(name)
    return seen
