"""Reading vendor JSON with refusals that name the file, line and JSON path.

Vendor documents (session reports, end-of-call reports, call objects) are small and read whole;
`Walk` checks the fields hotato uses and collects every mismatch before refusing, so a user can
fix a file in one pass.
"""

from __future__ import annotations

import math
import re
from typing import Any

import msgspec

from hotato.evidence.ingest._values import instant_to_ns, parse_iso
from hotato.model.errors import InputError, Problem

MAX_PROBLEMS = 20

_BYTE = re.compile(r"\(byte (\d+)\)")
_AT_PATH = re.compile(r"^(.*) - at `(\$[^`]*)`$")
_decode_any = msgspec.json.Decoder().decode


def locate(data: bytes, message: str) -> tuple[int | None, int | None]:
    """Turn msgspec's `(byte N)` into a 1-based line and column."""
    found = _BYTE.search(message)
    if found:
        offset = min(int(found.group(1)), len(data))
    elif "truncated" in message:
        offset = len(data.rstrip())  # the document stops early: point at where it stops
    else:
        return None, None
    line = data.count(b"\n", 0, offset) + 1
    col = offset - (data.rfind(b"\n", 0, offset) + 1) + 1
    return line, col


def split_path(message: str) -> tuple[str, str | None]:
    """msgspec validation messages end in `- at `$.path``; separate the two."""
    found = _AT_PATH.match(message)
    return (found.group(1), found.group(2)) if found else (message, None)


def decode_document(data: bytes, name: str, what: str) -> Any:
    try:
        return _decode_any(data)
    except msgspec.DecodeError as exc:
        text = str(exc)
        line, col = locate(data, text)
        raise InputError.one(
            f"{what} is not valid JSON ({text})", file=name, line=line, col=col
        ) from None


def type_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list):
        return "array"
    if isinstance(value, str):
        return "string"
    if isinstance(value, int | float):
        return "number"
    return type(value).__name__


class Walk:
    """Typed reads from a decoded document; a wrong type is recorded with its JSON path."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.problems: list[Problem] = []

    def bad(self, path: str, message: str) -> None:
        if len(self.problems) < MAX_PROBLEMS:
            self.problems.append(Problem(message, file=self.name, path=path))

    def obj(self, value: Any, path: str) -> dict[str, Any] | None:
        """An optional object: absent or null is None, anything else but an object is a problem."""
        if value is None or isinstance(value, dict):
            return value
        self.bad(path, f"expected an object, got {type_name(value)}")
        return None

    def items(self, value: Any, path: str) -> list[Any]:
        if value is None:
            return []
        if isinstance(value, list):
            return value
        self.bad(path, f"expected an array, got {type_name(value)}")
        return []

    def text(self, value: Any, path: str) -> str | None:
        if value is None or isinstance(value, str):
            return value
        self.bad(path, f"expected a string, got {type_name(value)}")
        return None

    def number(self, value: Any, path: str) -> float | None:
        if value is None:
            return None
        if isinstance(value, int | float) and not isinstance(value, bool):
            if math.isfinite(value):
                return float(value)
            self.bad(path, "expected a finite number")
            return None
        self.bad(path, f"expected a number, got {type_name(value)}")
        return None

    def instant(self, value: Any, path: str) -> int | None:
        """A vendor's timestamp, epoch nanoseconds: ISO 8601 text or epoch seconds /
        milliseconds (a number or numeric text) alike. ISO text that names no zone is an
        unknown instant (None), not a refusal; other text, an object, a list or a boolean is
        refused."""
        if value is None or value == "":
            return None
        if isinstance(value, str):
            found = instant_to_ns(value)
            if found is None and parse_iso(value) is None:
                shown = value if len(value) <= 40 else value[:40] + "..."
                self.bad(path, f"expected a timestamp (ISO 8601 or epoch), got {shown!r}")
            return found
        if isinstance(value, int | float) and not isinstance(value, bool):
            if math.isfinite(value):
                return instant_to_ns(value)
            self.bad(path, "expected a finite number")
            return None
        self.bad(path, f"expected a timestamp (ISO 8601 or epoch), got {type_name(value)}")
        return None

    def flag(self, value: Any, path: str) -> bool | None:
        if value is None or isinstance(value, bool):
            return value
        self.bad(path, f"expected true or false, got {type_name(value)}")
        return None

    def done(self) -> None:
        """Refuse with every recorded problem, if there are any."""
        if self.problems:
            raise InputError(list(self.problems))
