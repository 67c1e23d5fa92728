"""Spoken numbers to digits: "forty two fifty" -> "42 50", "four seven two nine" -> "4729".

Speech-to-text writes numbers as words about as often as digits. Entity patterns are written
once, for digits, and run on a rewritten copy of the text; `Rewritten.source` maps a position in
the copy back to the original, so an entity's span is always a span of what was said.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass

# The one vocabulary of numbers said as words: claims read it here, the PII detectors read it
# as bytes (`hotato.kinds._pii_spoken`). Each reader keeps its own rules for how words combine.
DIGITS = {
    "zero": 0, "nought": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "niner": 9,
}  # fmt: skip
ZERO_SOUNDS = ("oh", "o")  # zero said as a letter: a digit only beside other digits
TEENS = {
    "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
    "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19,
}  # fmt: skip
TENS = {
    "twenty": 20, "thirty": 30, "forty": 40, "fourty": 40, "fifty": 50, "sixty": 60,
    "seventy": 70, "eighty": 80, "ninety": 90,
}  # fmt: skip
ORDINALS = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7,
    "eighth": 8, "ninth": 9, "tenth": 10, "eleventh": 11, "twelfth": 12, "thirteenth": 13,
    "fourteenth": 14, "fifteenth": 15, "sixteenth": 16, "seventeenth": 17, "eighteenth": 18,
    "nineteenth": 19, "twentieth": 20, "thirtieth": 30,
}  # fmt: skip
SCALES = {"hundred": 100, "thousand": 1000, "million": 1_000_000}
DOUBLES = {"double": 2, "triple": 3}

# a digit run may start with "oh" ("oh four seven" is 047); a cardinal never holds it
UNITS = {**DIGITS, "oh": 0}

# Words and digit groups; a sentence end breaks a number, a comma or hyphen does not
# ("twenty-one", "four one five, five five five").
_WORD = re.compile(r"[A-Za-z]+|\d+(?:[.,:]\d+)*|[.!?;]", re.ASCII)
_SUFFIX = {1: "st", 2: "nd", 3: "rd"}


def ordinal_suffix(n: int) -> str:
    return "th" if 10 <= n % 100 <= 20 else _SUFFIX.get(n % 10, "th")


@dataclass(frozen=True)
class Rewritten:
    """The text with spoken numbers as digits, and a map back to the original positions."""

    text: str
    original: str
    _starts: tuple[int, ...]  # start of each piece in `text`
    _sources: tuple[tuple[int, int], ...]  # that piece's span in `original`
    _verbatim: tuple[bool, ...]  # a piece copied as it was (offsets inside it map one to one)

    def source(self, start: int, end: int) -> tuple[int, int]:
        """The span of `original` that text[start:end] came from."""
        if not self._starts:
            return start, end
        i = max(0, bisect_right(self._starts, start) - 1)
        j = max(0, bisect_right(self._starts, max(start, end - 1)) - 1)
        a0, _ = self._sources[i]
        b0, b1 = self._sources[j]
        s = a0 + (start - self._starts[i]) if self._verbatim[i] else a0
        e = b0 + (end - self._starts[j]) if self._verbatim[j] else b1
        return s, max(s, min(e, len(self.original)))


def _cardinal(words: list[str], i: int) -> tuple[int, int] | None:
    """A cardinal read from words[i:], as (value, words used); None when none starts there."""
    total, current, used, last = 0, 0, 0, ""
    n = len(words)
    while i + used < n:
        w = words[i + used]
        if w in UNITS and w != "oh" and last in ("", "hundred", "thousand", "million", "tens"):
            current += UNITS[w]
            last = "unit"
        elif w in TEENS and last in ("", "hundred", "thousand", "million"):
            current += TEENS[w]
            last = "teen"
        elif w in TENS and last in ("", "hundred", "thousand", "million"):
            current += TENS[w]
            last = "tens"
        elif w == "hundred" and last in ("unit", "teen", "tens") and current < 100:
            current *= 100
            last = "hundred"
        elif w in ("thousand", "million") and last in ("unit", "teen", "tens", "hundred"):
            total += current * SCALES[w]
            current = 0
            last = w
        elif (
            w == "and"
            and last in ("hundred", "thousand")
            and i + used + 1 < n
            and (
                words[i + used + 1] in UNITS
                or words[i + used + 1] in TEENS
                or words[i + used + 1] in TENS
            )
        ):
            pass
        elif w == "a" and used == 0 and i + 1 < n and words[i + 1] in ("hundred", "thousand"):
            current = 1
            last = "unit"
        else:
            break
        used += 1
    if used == 0 or last == "" or (words[i + used - 1] == "and"):
        return None
    return total + current, used


def _digit_run(words: list[str], i: int) -> tuple[str, int] | None:
    """Digits spoken one by one ("four seven two", "double five", "oh"): three or more."""
    out: list[str] = []
    used = 0
    while i + used < len(words):
        w = words[i + used]
        if w in DOUBLES and i + used + 1 < len(words) and words[i + used + 1] in UNITS:
            out.append(str(UNITS[words[i + used + 1]]) * DOUBLES[w])
            used += 2
        elif w in UNITS:
            out.append(str(UNITS[w]))
            used += 1
        elif w.isdigit() and len(w) == 1:
            out.append(w)
            used += 1
        else:
            break
    digits = "".join(out)
    return (digits, used) if len(digits) >= 3 and used >= 3 else None


def rewrite(text: str) -> Rewritten:
    """Rewrite spoken numbers as digits; everything else is copied as it is."""
    tokens = [(m.start(), m.end(), m.group()) for m in _WORD.finditer(text)]
    words = [t[2].lower() for t in tokens]
    pieces: list[str] = []
    starts: list[int] = []
    sources: list[tuple[int, int]] = []
    verbatim: list[bool] = []
    pos_out = 0
    pos_in = 0
    i = 0

    def emit(chunk: str, src: tuple[int, int], same: bool) -> None:
        nonlocal pos_out
        if not chunk:
            return
        starts.append(pos_out)
        sources.append(src)
        verbatim.append(same)
        pieces.append(chunk)
        pos_out += len(chunk)

    changed = False
    while i < len(tokens):
        replacement: tuple[str, int] | None = None
        run = _digit_run(words, i)
        if run is not None:
            replacement = run
        else:
            if words[i] in ORDINALS:
                n = ORDINALS[words[i]]
                replacement = (f"{n}{ordinal_suffix(n)}", 1)
            elif words[i] in TENS and i + 1 < len(words) and words[i + 1] in ORDINALS:
                n = TENS[words[i]] + ORDINALS[words[i + 1]]
                replacement = (f"{n}{ordinal_suffix(n)}", 2)
            else:
                got = _cardinal(words, i)
                if got is not None:
                    replacement = (str(got[0]), got[1])
        if replacement is None:
            i += 1
            continue
        chunk, used = replacement
        a, b = tokens[i][0], tokens[i + used - 1][1]
        emit(text[pos_in:a], (pos_in, a), True)
        emit(chunk, (a, b), False)
        pos_in = b
        i += used
        changed = True
    if not changed:
        return Rewritten(text, text, (), (), ())
    emit(text[pos_in:], (pos_in, len(text)), True)
    return Rewritten("".join(pieces), text, tuple(starts), tuple(sources), tuple(verbatim))
