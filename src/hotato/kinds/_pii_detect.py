"""PII detectors: US SSNs, Luhn-valid card numbers, emails and phone numbers, written or spoken.

Patterns run on RE2 (linear time). Numbers are read as runs of digit groups ("4111 1111 ...",
"(555) 123-4567") and judged by arithmetic: SSN ranges, the Luhn checksum, NANP shapes. Each
detector answers only whether it found something; nothing here returns, keeps or raises with
the text it matched.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass
from typing import Literal

from hotato.kinds._pii_spoken import spoken_form
from hotato.kinds._regex import compile_pattern, encoded

DETECTORS: tuple[str, ...] = ("ssn", "card_luhn", "email", "phone")
Form = Literal["written", "spoken"]

_DIGITS = compile_pattern(r"[0-9]+")
_GROUP_SEPARATORS = frozenset(b" .()-")
_SSN_SEPARATORS = (b"-", b" ", b".")
_CARD_SEPARATORS = (b" ", b"-")
_EMAIL = compile_pattern(r"[a-z0-9._%+\-]+@[a-z0-9\-]+(?:\.[a-z0-9\-]+)*\.[a-z]{2,}")
_SPOKEN_EMAIL = compile_pattern(
    r"(?:^|[^a-z0-9._\-])([a-z0-9][a-z0-9._\-]*)(?:\s+dot\s+[a-z0-9]+)*\s+at\s+[a-z0-9\-]+"
    r"(?:\s+dot\s+[a-z0-9\-]+)*\s+dot\s+(?:com|net|org|edu|gov|io|co|us|uk|ca|info|biz|me|ai)\b"
)
# "you can find us at example dot com" names a website, not a mailbox.
_NOT_A_MAILBOX = frozenset(b"us me you him her them it we i".split())
# A bare nine-digit number is read as an SSN, and "john at example dot com" as an email, only
# when the turn or the one before it is about one ("what's your social?").
CUES = {
    "ssn": compile_pattern(r"\b(?:social|ssn|s\.\s?s\.\s?n|s s n)\b"),
    "email": compile_pattern(r"\be[\- ]?mail\b"),
}


def cues_in(text: str) -> frozenset[str]:
    """The cue words a turn carries, to read it and the turn after it."""
    data = encoded(text.lower())
    return frozenset(name for name, pattern in CUES.items() if pattern.search(data))


@dataclass(frozen=True)
class Run:
    """Digit groups separated by at most three of ` .()-`, and whether a `+` led them."""

    groups: tuple[bytes, ...]
    separators: tuple[bytes, ...]  # separators[i] sits between groups[i] and groups[i + 1]
    plus: bool


def digit_runs(text: bytes) -> Iterator[Run]:
    groups: list[bytes] = []
    seps: list[bytes] = []
    plus = False
    last = 0
    for match in _DIGITS.finditer(text):
        start, end = match.span()
        gap = text[last:start]
        if groups and 0 < len(gap) <= 3 and all(c in _GROUP_SEPARATORS for c in gap):
            seps.append(gap)
            groups.append(text[start:end])
        else:
            if groups:
                yield Run(tuple(groups), tuple(seps), plus)
            groups, seps = [text[start:end]], []
            before = text[max(0, start - 2) : start]
            plus = before.endswith(b"+") or before == b"+("
        last = end
    if groups:
        yield Run(tuple(groups), tuple(seps), plus)


def valid_ssn(digits: bytes) -> bool:
    """Area 000, 666 and 900-999, group 00 and serial 0000 are never issued."""
    area = int(digits[:3])
    return area not in (0, 666) and area < 900 and digits[3:5] != b"00" and digits[5:] != b"0000"


def _ssn(run: Run, cued: bool) -> bool:
    g, s = run.groups, run.separators
    for i, group in enumerate(g):
        if len(group) == 9 and cued and valid_ssn(group):
            return True
        if (
            i + 2 < len(g)
            and (len(group), len(g[i + 1]), len(g[i + 2])) == (3, 2, 4)
            and s[i] in _SSN_SEPARATORS
            and s[i + 1] in _SSN_SEPARATORS
            and valid_ssn(group + g[i + 1] + g[i + 2])
        ):
            return True
    return False


def _card(run: Run) -> bool:
    """13 to 19 digits, in groups joined by a space or a dash, passing Luhn, not starting 0.

    Every window of whole groups is tried ("4111 1111 1111 1111 12/25" holds a card), with
    the Luhn sum kept up to date as the window grows: at most 19 digits per starting group.
    """
    g, s = run.groups, run.separators
    for i in range(len(g)):
        if g[i][:1] == b"0":
            continue
        plain, doubled = [0, 0], [0, 0]  # digit sums by offset parity within the window
        length = 0
        for j in range(i, len(g)):
            if (j > i and s[j - 1] not in _CARD_SEPARATORS) or length + len(g[j]) > 19:
                break
            for c in g[j]:
                d = c - 48
                plain[length % 2] += d
                doubled[length % 2] += d * 2 - 9 if d > 4 else d * 2
                length += 1
            # the rightmost digit is not doubled: doubled offsets share the length's parity
            if length >= 13 and (doubled[length % 2] + plain[1 - length % 2]) % 10 == 0:
                return True
    return False


def _nanp10(digits: bytes, strict: bool) -> bool:
    """Area code starts 2-9; written bare, the exchange must start 2-9 too."""
    return digits[0] >= 50 and (not strict or digits[3] >= 50)


def _phone(run: Run) -> bool:
    g, s = run.groups, run.separators
    if run.plus:  # E.164: + and 8 to 15 digits, the first not 0
        total = 0
        for group in g:
            total += len(group)
            if 8 <= total <= 15 and g[0][:1] != b"0":
                return True
    for i, group in enumerate(g):
        if len(group) == 10 and _nanp10(group, strict=True):
            return True
        if len(group) == 11 and group[:1] == b"1" and _nanp10(group[1:], strict=True):
            return True
        if i + 2 < len(g) and (len(g[i + 1]), len(g[i + 2])) == (3, 4):
            # 555-123-4567, or 1800-555-1234 as "one eight hundred, ..." is written out
            area = group if len(group) == 3 else group[1:] if group[:1] == b"1" else b""
            if len(area) == 3 and _nanp10(area + g[i + 1] + g[i + 2], strict=False):
                return True
    # a local number, NXX-XXXX, standing alone
    return (
        len(g) == 2 and (len(g[0]), len(g[1])) == (3, 4) and s[0] in (b"-", b".") and g[0][0] >= 50
    )


def _email(text: bytes, spoken: bool, cued: bool) -> bool:
    if not spoken:
        return _EMAIL.search(text) is not None
    return cued and any(m.group(1) not in _NOT_A_MAILBOX for m in _SPOKEN_EMAIL.finditer(text))


def _scan_form(
    text: bytes, detectors: Collection[str], cues: frozenset[str], spoken: bool
) -> set[str]:
    found: set[str] = set()
    if "email" in detectors and _email(text, spoken, "email" in cues):
        found.add("email")
    checks: dict[str, Callable[[Run], bool]] = {
        "ssn": lambda r: _ssn(r, "ssn" in cues),
        "card_luhn": _card,
        "phone": _phone,
    }
    numeric = [d for d in detectors if d in checks]
    if numeric:
        for run in digit_runs(text):
            found |= {d for d in numeric if d not in found and checks[d](run)}
            if found.issuperset(numeric):
                break
    return found


def scan(
    text: str, detectors: Collection[str], cues: frozenset[str] = frozenset()
) -> dict[str, Form]:
    """Which detectors fire on `text`, and whether on its written or its spoken form.

    `cues` are the cue words of this turn and the one before it (see `cues_in`).
    """
    written = encoded(text.lower())
    found: dict[str, Form] = dict.fromkeys(_scan_form(written, detectors, cues, False), "written")
    rest = [d for d in detectors if d not in found]
    if rest:
        spoken = spoken_form(written)
        if spoken is None:  # no number was said in words: only a spoken email is left to find
            spoken, rest = written, [d for d in rest if d == "email"]
        found.update(dict.fromkeys(_scan_form(spoken, rest, cues, True), "spoken"))
    return {d: found[d] for d in DETECTORS if d in found}
