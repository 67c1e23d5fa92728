"""Numbers spoken as words, rewritten as digits so the PII detectors can read them.

"five five five, one two one two" becomes "555-1212": digits said one after another (words, or
single numerals as some recognisers write them) join into one group; a pause (comma, period,
dash) or a numeral of several digits starts a new group, written as "-". Also read: "oh" and
"o" for zero after another digit, "double"/"triple", teens and tens ("forty two" is 42),
"hundred"/"thousand" after a digit ("eight hundred" is 800) and "plus" before a number.

Linear: one RE2 pass finds the tokens, one Python pass over them rewrites the runs. Text
outside number runs is copied unchanged. Works on lower-cased UTF-8 bytes.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from hotato.kinds._regex import compile_pattern

_UNITS = {
    b"zero": b"0",
    b"nought": b"0",
    b"one": b"1",
    b"two": b"2",
    b"three": b"3",
    b"four": b"4",
    b"five": b"5",
    b"six": b"6",
    b"seven": b"7",
    b"eight": b"8",
    b"nine": b"9",
    b"niner": b"9",
}
_ZERO_INSIDE = {b"oh", b"o"}  # zero only after another digit: "oh" alone is an interjection
_TEENS = {
    b"ten": b"10",
    b"eleven": b"11",
    b"twelve": b"12",
    b"thirteen": b"13",
    b"fourteen": b"14",
    b"fifteen": b"15",
    b"sixteen": b"16",
    b"seventeen": b"17",
    b"eighteen": b"18",
    b"nineteen": b"19",
}
_TENS = {
    b"twenty": b"2",
    b"thirty": b"3",
    b"forty": b"4",
    b"fourty": b"4",
    b"fifty": b"5",
    b"sixty": b"6",
    b"seventy": b"7",
    b"eighty": b"8",
    b"ninety": b"9",
}
_REPEAT = {b"double": 2, b"triple": 3}
_SCALE = {b"hundred": b"00", b"thousand": b"000"}

_TOKEN = compile_pattern(r"\pL+|[0-9]+")
# A turn without any of these has no spoken number to rewrite (the common case: skip it).
_STARTERS = compile_pattern(
    r"\b(?:" + "|".join(w.decode() for w in (*_UNITS, *_TEENS, *_TENS, *_REPEAT)) + r"|[0-9])\b"
)
_PAUSE_CHARS = b" \t\r\n,.;:-"


class Gap(Enum):
    SPACE = "space"  # whitespace only: the digits are one group
    PAUSE = "pause"  # punctuation: a new group
    BREAK = "break"  # anything else: the run of numbers ends


def gap_kind(gap: bytes) -> Gap:
    if 0 < len(gap) <= 3 and gap.isspace():
        return Gap.SPACE
    if 0 < len(gap) <= 4 and not gap.strip(_PAUSE_CHARS):
        return Gap.PAUSE
    return Gap.BREAK


@dataclass
class Atom:
    """One spoken number: its digits, where it sits, and whether it was said digit by digit."""

    start: int
    end: int
    digits: bytes
    spoken: bool  # a word, or a single numeral: joins its neighbours without a separator


def _atoms(text: bytes) -> list[Atom]:
    tokens = [m.span() for m in _TOKEN.finditer(text)]
    atoms: list[Atom] = []
    i = 0
    while i < len(tokens):
        start, end = tokens[i]
        word = text[start:end]
        nxt = tokens[i + 1] if i + 1 < len(tokens) else None
        after = text[nxt[0] : nxt[1]] if nxt else b""
        gap = gap_kind(text[end : nxt[0]]) if nxt else Gap.BREAK
        prev = atoms[-1] if atoms else None
        joined = prev is not None and gap_kind(text[prev.end : start]) is not Gap.BREAK
        atom: Atom | None = None
        if word.isdigit():
            atom = Atom(start, end, word, spoken=len(word) == 1)
        elif word in _UNITS:
            atom = Atom(start, end, _UNITS[word], spoken=True)
        elif word in _ZERO_INSIDE and joined:
            atom = Atom(start, end, b"0", spoken=True)
        elif word in _TEENS:
            atom = Atom(start, end, _TEENS[word], spoken=True)
        elif word in _TENS:
            unit = _UNITS.get(after, b"0")
            if nxt and unit != b"0" and (gap is Gap.SPACE or text[end : nxt[0]] == b"-"):
                atom, i = Atom(start, nxt[1], _TENS[word] + unit, spoken=True), i + 1
            else:
                atom = Atom(start, end, _TENS[word] + b"0", spoken=True)
        elif word in _REPEAT and nxt and gap is Gap.SPACE:
            digit = _single_digit(after)
            if digit is not None:
                atom, i = Atom(start, nxt[1], digit * _REPEAT[word], spoken=True), i + 1
        elif (
            word in _SCALE
            and prev is not None
            and joined
            and prev.spoken
            and len(prev.digits) == 1
            and text[prev.end : start].isspace()
        ):
            prev.digits += _SCALE[word]
            prev.end = end
        elif word == b"plus" and nxt and gap is Gap.SPACE and _single_digit(after) is not None:
            atom = Atom(start, end, b"+", spoken=True)
        if atom is not None:
            atoms.append(atom)
        i += 1
    return atoms


def _single_digit(word: bytes) -> bytes | None:
    if word in _UNITS:
        return _UNITS[word]
    if word in _ZERO_INSIDE:
        return b"0"
    return word if len(word) == 1 and word.isdigit() else None


def spoken_form(text: bytes) -> bytes | None:
    """`text` with its spoken numbers as digit groups, or None when it says no number."""
    if _STARTERS.search(text) is None:
        return None
    atoms = _atoms(text)
    if not atoms:
        return None
    out: list[bytes] = []
    copied = 0
    prev: Atom | None = None
    for atom in atoms:
        gap = gap_kind(text[prev.end : atom.start]) if prev is not None else Gap.BREAK
        if prev is None or gap is Gap.BREAK:
            out.append(text[copied : atom.start])
        elif prev.digits == b"+" or (gap is Gap.SPACE and prev.spoken and atom.spoken):
            pass  # one group: digits said one after another
        else:
            out.append(b"-")
        out.append(atom.digits)
        copied = atom.end
        prev = atom
    out.append(text[copied:])
    return b"".join(out)
