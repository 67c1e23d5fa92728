"""Numbers spoken as words, rewritten as digits so the PII detectors can read them.

"five five five, one two one two" becomes "555-1212": digits said one after another (words, or
single numerals as some recognisers write them) join into one group; a pause (comma, period,
dash) or a numeral of several digits starts a new group, written as "-". Also read: "oh" and
"o" for zero after another digit, "double"/"triple", teens and tens ("forty two" is 42),
"hundred"/"thousand" after a digit ("eight hundred" is 800) and "plus" before a number.

Linear: one RE2 pass finds the runs of number words, and each run is rewritten token by token.
Text outside those runs is copied unchanged. Works on lower-cased UTF-8 bytes.
"""

from __future__ import annotations

from itertools import repeat

import msgspec

from hotato.claims.spoken import DIGITS, DOUBLES, SCALES, TEENS, TENS, ZERO_SOUNDS
from hotato.kinds._regex import compile_pattern

# the one vocabulary (hotato.claims.spoken), as bytes
_UNITS = {w.encode(): str(n).encode() for w, n in DIGITS.items()}
_ZERO_INSIDE = {w.encode() for w in ZERO_SOUNDS}  # "oh" alone is an interjection
_TEENS = {w.encode(): str(n).encode() for w, n in TEENS.items()}
_TENS = {w.encode(): str(n // 10).encode() for w, n in TENS.items()}  # the tens digit
_REPEAT = {w.encode(): n for w, n in DOUBLES.items()}
# the zeros a scale word adds after one digit; no identifier is said in millions
_SCALE = {w.encode(): b"0" * (len(str(n)) - 1) for w, n in SCALES.items() if n < 1_000_000}
_PLUS = b"plus"

_GAP_CHARS = b" \t\r\n\f,.;:-"
_WORD = "|".join(
    w.decode() for w in (*_UNITS, *_ZERO_INSIDE, *_TEENS, *_TENS, *_REPEAT, *_SCALE, _PLUS)
)
# A text this pattern does not match has no number said in words: its spoken form holds the
# digits its written form holds, regrouped at most.
NUMBER_WORD = rf"\b(?:{_WORD})\b"
# The most digits a number word adds to the spoken form ("triple five" is 555, "eight thousand"
# 8000; "forty two" is 42, under the 2 + 1 counted for its words).
_MOST_DIGITS = {
    **dict.fromkeys([*_UNITS, *_ZERO_INSIDE], 1),
    **dict.fromkeys([*_TEENS, *_TENS], 2),
    **{b"double": 2, b"triple": 3, b"hundred": 2, b"thousand": 3},
}
_ASCII_WORD = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_"
_NON_WORD_TO_SPACE = bytes(b if b in _ASCII_WORD else 32 for b in range(256))
_DIGITS = b"0123456789"
# A run: number words and numerals, each apart from the next by at most four gap characters.
_RUN = compile_pattern(rf"\b(?:{_WORD}|[0-9]+)\b(?:[\s,.;:\-]{{1,4}}(?:{_WORD}|[0-9]+)\b)*")
_GAPS_TO_SPACE = bytes.maketrans(_GAP_CHARS, b" " * len(_GAP_CHARS))
_WORD_CHARS = b"abcdefghijklmnopqrstuvwxyz0123456789"
_WORD_CHARS_TO_NUL = bytes.maketrans(_WORD_CHARS, b"\0" * len(_WORD_CHARS))


class Atom(msgspec.Struct):
    """One spoken number: its digits, and whether it was said digit by digit."""

    digits: bytes
    spoken: bool  # a word, or a single numeral: joins its neighbours without a separator


# Stands in for a word folded into the number before it ("two" in "forty two", "hundred").
_FOLDED = Atom(b"", spoken=False)


def _single_digit(word: bytes) -> bytes | None:
    if word in _UNITS:
        return _UNITS[word]
    if word in _ZERO_INSIDE:
        return b"0"
    return word if len(word) == 1 and word.isdigit() else None


def _read(tokens: list[bytes], gaps: list[bytes]) -> list[Atom | bytes]:
    """Each token as a number (an Atom) or as itself; in a two-token number ("forty two",
    "double five", "eight hundred") the second token reads as _FOLDED."""
    out: list[Atom | bytes] = []
    i = 0
    while i < len(tokens):
        word = tokens[i]
        after = tokens[i + 1] if i + 1 < len(tokens) else b""
        gap = gaps[i] if i < len(gaps) else b""
        prev = out[-1] if out and out[-1] is not _FOLDED else out[-2] if len(out) > 1 else None
        atom: Atom | None = None
        pair = False
        if word.isdigit():
            atom = Atom(word, spoken=len(word) == 1)
        elif word in _UNITS:
            atom = Atom(_UNITS[word], spoken=True)
        elif word in _ZERO_INSIDE and isinstance(prev, Atom):
            atom = Atom(b"0", spoken=True)
        elif word in _TEENS:
            atom = Atom(_TEENS[word], spoken=True)
        elif word in _TENS:
            unit = _UNITS.get(after, b"0")
            pair = unit != b"0" and (gap.isspace() or gap == b"-")
            atom = Atom(_TENS[word] + (unit if pair else b"0"), spoken=True)
        elif word in _REPEAT and gap.isspace() and (digit := _single_digit(after)) is not None:
            atom, pair = Atom(digit * _REPEAT[word], spoken=True), True
        elif (
            word in _SCALE
            and isinstance(prev, Atom)
            and prev.spoken
            and len(prev.digits) == 1
            and gaps[i - 1].isspace()
        ):
            prev.digits += _SCALE[word]
            out.append(_FOLDED)
            i += 1
            continue
        elif word == _PLUS and gap.isspace() and _single_digit(after) is not None:
            atom = Atom(b"+", spoken=True)
        out.append(atom if atom is not None else word)
        if pair:
            out.append(_FOLDED)
            i += 1
        i += 1
    return out


def _rewrite(run: bytes) -> bytes:
    tokens = run.translate(_GAPS_TO_SPACE).split()
    gaps = [g for g in run.translate(_WORD_CHARS_TO_NUL).split(b"\0") if g]
    read = _read(tokens, gaps)
    pieces: list[bytes] = []
    prev: Atom | bytes | None = None
    for i, item in enumerate(read):
        if item is _FOLDED:
            continue
        if prev is not None:
            gap = gaps[i - 1]
            if not (isinstance(prev, Atom) and isinstance(item, Atom)):
                pieces.append(gap)
            elif not (prev.digits == b"+" or (gap.isspace() and prev.spoken and item.spoken)):
                pieces.append(b"-")  # a pause, or a numeral: a new group
        pieces.append(item.digits if isinstance(item, Atom) else item)
        prev = item
    return b"".join(pieces)


def digit_count(text: bytes) -> int:
    return len(text) - len(text.translate(None, _DIGITS))


def most_digits(text: bytes) -> int:
    """At least as many digits as `spoken_form(text)` (or `text`) holds: the text's own digits,
    and for each number word, as RE2's `\\b` delimits words, the most it can add. A spoken form
    is only rewritten from such words and numerals, so a detector that needs more digits than
    this cannot fire on it."""
    words = text.translate(_NON_WORD_TO_SPACE).split()
    return digit_count(text) + sum(map(_MOST_DIGITS.get, words, repeat(0)))


def spoken_form(text: bytes) -> bytes | None:
    """`text` with its spoken numbers as digit groups, or None when that changes nothing."""
    pieces: list[bytes] = []
    copied = 0
    for match in _RUN.finditer(text):
        start, end = match.span()
        pieces += [text[copied:start], _rewrite(text[start:end])]
        copied = end
    if not pieces:
        return None
    pieces.append(text[copied:])
    out = b"".join(pieces)
    return None if out == text else out
