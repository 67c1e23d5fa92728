"""Every user pattern runs on RE2: linear time, compiled once per (pattern, case) per process."""

from __future__ import annotations

import bisect
from array import array
from collections.abc import Callable, Hashable, Iterator
from functools import lru_cache
from itertools import accumulate
from operator import add
from typing import Any, Generic, NamedTuple, TypeVar

import re2

from hotato.kinds._trace_util import derived
from hotato.model.evidence import Transcript, Turn, normalize_role


class PatternError(ValueError):
    pass


@lru_cache(maxsize=4096)
def compile_pattern(pattern: str, case_sensitive: bool = False, capture: bool = True) -> Any:
    """`pattern` on RE2. `capture=False` when only where a match lies is read: RE2 then finds
    the same matches without tracking the groups inside them."""
    options = re2.Options()
    options.case_sensitive = case_sensitive
    options.never_capture = not capture
    options.log_errors = False
    try:
        return re2.compile(pattern.encode("utf-8"), options)
    except re2.error as exc:
        detail = exc.args[0].decode() if exc.args and isinstance(exc.args[0], bytes) else str(exc)
        raise PatternError(
            f"pattern {clip(pattern)!r} cannot run on RE2: {clip(detail, 120)}"
        ) from None


Span = tuple[int, int]


def span_finder(compiled: Any) -> Callable[[bytes, int], Span | None]:
    """Where `compiled` first matches `data` from `pos`, as (start, end), or None.

    RE2's Python wrapper builds a generator and a Match object per search, most of the cost of a
    search that hits early; a loop over many hits needs only the span, so it asks the compiled
    RE2 object directly (the same call the wrapper makes), or the wrapper when a google-re2
    release has no such object.
    """
    raw = getattr(compiled, "_regexp", None)
    unanchored = getattr(getattr(re2, "_Anchor", None), "UNANCHORED", None)
    if raw is None or unanchored is None:

        def via_wrapper(data: bytes, pos: int) -> Span | None:
            hit = compiled.search(data, pos)
            return None if hit is None else hit.span()

        return via_wrapper

    def direct(data: bytes, pos: int) -> Span | None:
        start, end = raw.Match(unanchored, data, pos, len(data))[0]
        return None if start < 0 else (start, end)

    return direct


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


# --- searching many texts (a transcript's turns, recorded URLs) ---------------------------------
#
# One RE2 call per turn costs about a microsecond and a half however short the turn, so 100,000
# turns x a few hundred patterns is minutes. Instead each pattern runs over the turns' text
# joined by newlines, in multi-line mode, and every hit is confirmed on its own turn: one linear
# pass per pattern plus one call per matching turn. Exact, because a match in a turn alone is
# also a match at the same place in the joined text: `^`/`$` match at every turn's edges in
# multi-line mode, and a newline on either side reads as the text's edge does for `\b`/`\B`.
# A hit that only exists across turns, or after a newline inside one, fails its confirmation.
# A hit that lies inside one turn holding no newline of its own needs no confirmation: there
# `^`/`$` match only at the turn's edges, as they do in the turn alone, and nothing else a
# pattern can say reads past the turn. `\A`, `\z` and a pattern turning multi-line off are
# searched turn by turn.

JOIN_AT_LEAST = 64  # fewer turns than this: one call per turn is cheaper than joining them
_TURN_BY_TURN = re2.compile(rb"\\[Az]|\(\?[a-zA-Z]*-[a-zA-Z]*m")


def matching_turns(
    transcript: Transcript, role: str | None, pattern: str, case_sensitive: bool = False
) -> Iterator[Turn]:
    """The turns (of `role`) whose text matches `pattern`, in transcript order. Searched once
    per (pattern, case) per transcript, however many assertions ask and for whichever roles,
    and only as far as they read: a check that needs the first hit stops the search there."""
    return iter(_found(transcript, role, pattern, case_sensitive))


def all_matching_turns(
    transcript: Transcript, role: str | None, pattern: str, case_sensitive: bool = False
) -> list[Turn]:
    """Every turn `matching_turns` yields, as a list (for a check that reads them all)."""
    return _found(transcript, role, pattern, case_sensitive).all()


def _found(
    transcript: Transcript, role: str | None, pattern: str, case_sensitive: bool
) -> Found[Turn]:
    """One search per (pattern, case) over every turn; a role's hits are read from it."""
    who = "any" if role in (None, "any") else normalize_role(str(role))

    def every() -> Found[Turn]:
        turns = transcript.turns
        texts = derived(transcript, ("texts", "any"), lambda: [t.text for t in turns])
        hits = iter_matching_lines(transcript, ("turns", "any"), texts, pattern, case_sensitive)
        return Found(map(turns.__getitem__, hits))

    found = derived(transcript, ("turns_matching", "any", pattern, case_sensitive), every)
    if who == "any":
        return found
    # the turns `of_role(role)` lists are those whose (normalized) role is `who`
    return derived(
        transcript,
        ("turns_matching", who, pattern, case_sensitive),
        lambda: Found(t for t in found if t.role == who),
    )


T = TypeVar("T")
_END = object()


class Found(Generic[T]):
    """The hits of one search, shared: those found so far, and the search itself, resumed when
    a reader goes past them. Every reader sees the same hits in the same order."""

    def __init__(self, search: Iterator[T]) -> None:
        self._seen: list[T] = []
        self._search: Iterator[T] | None = search

    def __iter__(self) -> Iterator[T]:
        i = 0
        while True:
            if i < len(self._seen):
                yield self._seen[i]
                i += 1
                continue
            if self._search is None:
                return
            hit = next(self._search, _END)
            if hit is _END:
                self._search = None
                return
            self._seen.append(hit)  # type: ignore[arg-type]

    def all(self) -> list[T]:
        """Every hit, the search run to its end (in one step, not a hit at a time)."""
        if self._search is not None:
            self._seen.extend(self._search)
            self._search = None
        return self._seen


def matching_lines(
    owner: Any, key: Hashable, texts: list[str], pattern: str, case_sensitive: bool = False
) -> list[int]:
    """The positions of the `texts` that `pattern` matches. The joined text is kept on `owner`
    (a trace or transcript) under `key`, so every pattern over the same texts shares it."""
    return list(iter_matching_lines(owner, key, texts, pattern, case_sensitive))


def iter_matching_lines(
    owner: Any, key: Hashable, texts: list[str], pattern: str, case_sensitive: bool = False
) -> Iterator[int]:
    """`matching_lines`, lazily."""
    compiled = compile_pattern(pattern, case_sensitive, capture=False)
    if len(texts) < max(JOIN_AT_LEAST, 1) or _TURN_BY_TURN.search(pattern.encode("utf-8")):
        return (i for i, text in enumerate(texts) if compiled.search(encoded(text)))
    joined = derived(owner, ("joined", key), lambda: _join(texts))
    spanning = compile_pattern("(?m)" + pattern, case_sensitive, capture=False)
    return _confirmed(texts, joined, spanning, compiled)


class _Joined(NamedTuple):
    text: bytes  # every text, a newline after each but the last
    starts: array[int]  # where each text begins in `text`
    plain: bool  # no text holds a newline of its own


def _join(texts: list[str]) -> _Joined:
    parts = list(map(str.encode, texts))  # UTF-8, as `encoded`, without filling its cache
    # text i starts after the bytes of those before it and a newline after each of them
    starts = array("q", map(add, accumulate(map(len, parts), initial=0), range(len(parts))))
    joined = b"\n".join(parts)
    return _Joined(joined, starts, joined.count(b"\n") == len(texts) - 1)


def _confirmed(texts: list[str], joined: _Joined, spanning: Any, compiled: Any) -> Iterator[int]:
    text, starts, last = joined.text, joined.starts, len(texts) - 1
    search, alone = span_finder(spanning), span_finder(compiled)
    at = 0
    while True:
        hit = search(text, at)
        if hit is None:
            return
        start, end = hit
        i = bisect.bisect_right(starts, start) - 1
        inside = end < starts[i + 1] if i < last else True
        if (inside and joined.plain) or alone(encoded(texts[i]), 0) is not None:
            yield i
        if i == last:
            return
        at = starts[i + 1]  # the next text, whatever this hit spanned
