"""Every user pattern runs on RE2: linear time, compiled once per (pattern, case) per process."""

from __future__ import annotations

import bisect
from array import array
from collections.abc import Iterator
from functools import lru_cache
from typing import Any

import re2

from hotato.kinds._trace_util import derived
from hotato.model.evidence import Transcript, Turn, normalize_role


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


# --- searching a transcript's turns ------------------------------------------------------------
#
# One RE2 call per turn costs about a microsecond and a half however short the turn, so 100,000
# turns x a few hundred patterns is minutes. Instead each pattern runs over the turns' text
# joined by newlines, in multi-line mode, and every hit is confirmed on its own turn: one linear
# pass per pattern plus one call per matching turn. Exact, because a match in a turn alone is
# also a match at the same place in the joined text: `^`/`$` match at every turn's edges in
# multi-line mode, and a newline on either side reads as the text's edge does for `\b`/`\B`.
# A hit that only exists across turns, or after a newline inside one, fails its confirmation.
# `\A`, `\z` and a pattern turning multi-line off are searched turn by turn.

JOIN_AT_LEAST = 64  # fewer turns than this: one call per turn is cheaper than joining them
_TURN_BY_TURN = re2.compile(rb"\\[Az]|\(\?[a-zA-Z]*-[a-zA-Z]*m")


def matching_turns(
    transcript: Transcript, role: str | None, pattern: str, case_sensitive: bool = False
) -> Iterator[Turn]:
    """The turns (of `role`) whose text matches `pattern`, in transcript order."""
    turns = transcript.of_role(role)
    compiled = compile_pattern(pattern, case_sensitive)
    if len(turns) < max(JOIN_AT_LEAST, 1) or _TURN_BY_TURN.search(pattern.encode("utf-8")):
        return (t for t in turns if compiled.search(encoded(t.text)))
    key = ("joined", "any" if role in (None, "any") else normalize_role(str(role)))
    joined, starts = derived(transcript, key, lambda: _join(turns))
    spanning = compile_pattern("(?m)" + pattern, case_sensitive)
    return _confirmed(turns, joined, starts, spanning, compiled)


def _join(turns: list[Turn]) -> tuple[bytes, array[int]]:
    starts: array[int] = array("q")
    parts = []
    at = 0
    for turn in turns:
        text = encoded(turn.text)
        starts.append(at)
        parts.append(text)
        at += len(text) + 1
    return b"\n".join(parts), starts


def _confirmed(turns: list[Turn], joined: bytes, starts: array[int], spanning: Any,
               compiled: Any) -> Iterator[Turn]:
    at = 0
    while True:
        hit = spanning.search(joined, at)
        if hit is None:
            return
        i = bisect.bisect_right(starts, hit.start()) - 1
        if compiled.search(encoded(turns[i].text)):
            yield turns[i]
        if i + 1 == len(turns):
            return
        at = starts[i + 1]  # the next turn, whatever this hit spanned
