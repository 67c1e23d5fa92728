"""Byte strings joined into one buffer and searched in C: a search costs its matches, not a
Python step per string (`hotato.kinds._payloads` searches tool payloads so)."""

from __future__ import annotations

from array import array
from bisect import bisect_right
from collections.abc import Iterator
from itertools import accumulate
from typing import Any

_SEP = b"\x00"  # never inside valid JSON text, so no needle match spans two payloads


class Haystack:
    """Byte strings joined into one buffer, each found again by its offset."""

    def __init__(self, parts: list[Any]) -> None:
        self.buf = _SEP.join(parts)
        # part i starts at starts[i]: the lengths before it, plus a separator each (all in C)
        ends = accumulate(map(_plus_one, map(len, parts)), initial=0)
        self.starts = array("q", ends)

    def count(self, needle: bytes) -> int:
        return self.buf.count(needle)

    def containing(self, needle: bytes) -> Iterator[int]:
        """The positions of the parts that hold `needle`, ascending, found as they are read:
        C-speed search, Python work per part found."""
        find, starts = self.buf.find, self.starts
        at = find(needle)
        while at != -1:
            i = bisect_right(starts, at) - 1
            yield i
            at = find(needle, starts[i + 1])


_plus_one = (1).__add__
