"""Every user pattern runs on RE2: linear time, compiled once per (pattern, case) per process."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import re2


class PatternError(ValueError):
    pass


@lru_cache(maxsize=4096)
def compile_pattern(pattern: str, case_sensitive: bool = False) -> Any:
    options = re2.Options()
    options.case_sensitive = case_sensitive
    options.log_errors = False
    try:
        return re2.compile(pattern.encode("utf-8"), options)
    except re2.error as exc:
        detail = exc.args[0].decode() if exc.args and isinstance(exc.args[0], bytes) else str(exc)
        raise PatternError(
            f"pattern {clip(pattern)!r} cannot run on RE2: {clip(detail, 120)}"
        ) from None


def clip(text: str, limit: int = 80) -> str:
    """A user's string shortened for a message, so a refusal stays short however long the
    input: RE2 echoes the pattern in its own errors too."""
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} characters)"


def pattern_problems(*patterns: str | None, case_sensitive: bool = False) -> list[str]:
    out = []
    for p in patterns:
        if p is None:
            continue
        try:
            compile_pattern(p, case_sensitive)
        except PatternError as exc:
            out.append(str(exc))
    return out


@lru_cache(maxsize=65536)
def encoded(text: str) -> bytes:
    """Turn text as UTF-8, encoded once however many patterns read it."""
    return text.encode("utf-8")
