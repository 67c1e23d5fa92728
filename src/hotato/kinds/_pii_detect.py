"""PII detectors: US SSNs, Luhn-valid card numbers, emails and phone numbers, written or spoken.

Patterns run on RE2 (linear time). Numbers are read as runs of digit groups ("4111 1111 ...",
"(555) 123-4567") and judged by arithmetic: SSN ranges, the Luhn checksum, NANP shapes. Each
detector answers only whether it found something; nothing here returns, keeps or raises with
the text it matched.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator
from typing import Literal

from hotato.kinds._pii_spoken import digit_count, most_digits, spoken_form
from hotato.kinds._regex import compile_pattern, encoded, span_finder

DETECTORS: tuple[str, ...] = ("ssn", "card_luhn", "email", "phone")
Form = Literal["written", "spoken"]

_RUN = compile_pattern(r"[0-9]+(?:[ .()\-]{1,3}[0-9]+)*", capture=False)
_RUN_AT = span_finder(_RUN)
_SEPARATORS_TO_SPACE = bytes.maketrans(b".()-", b"    ")
_DIGITS_TO_NUL = bytes.maketrans(b"0123456789", b"\0" * 10)
_LUHN_DOUBLED = bytes.maketrans(b"0123456789", bytes([0, 2, 4, 6, 8, 1, 3, 5, 7, 9]))
_SSN_SEPARATORS = (b"-", b" ", b".")
_CARD_SEPARATORS = (b" ", b"-")
# Group lengths a NANP number is written in, and whether the exchange must start 2-9 too
# (bare digit strings are held to the full rule; formatted ones only to the area code's, so
# the 555-123-4567 of examples counts). Eleven digits lead with the country code 1.
_NANP_SHAPES = {
    b"\x0a": True, b"\x0b": True, b"\x03\x03\x04": False, b"\x04\x03\x04": False, b"\x03\x07": False
}  # fmt: skip
_EMAIL = compile_pattern(r"[a-z0-9._%+\-]+@[a-z0-9\-]+(?:\.[a-z0-9\-]+)*\.[a-z]{2,}")
_SPOKEN_EMAIL = compile_pattern(
    r"(?:^|[^a-z0-9._\-])([a-z0-9][a-z0-9._\-]*)(?:\s+dot\s+[a-z0-9]+)*\s+at\s+[a-z0-9\-]+"
    r"(?:\s+dot\s+[a-z0-9\-]+)*\s+dot\s+(?:com|net|org|edu|gov|io|co|us|uk|ca|info|biz|me|ai)\b"
)
# "you can find us at example dot com" names a website, not a mailbox.
_NOT_A_MAILBOX = frozenset(b"us me you him her them it we i".split())
# A bare nine-digit number is read as an SSN, and "john at example dot com" as an email, only
# when the turn or the one before it is about one ("what's your social?").
CUE_PATTERNS = {
    "ssn": r"\b(?:social|ssn|s\.\s?s\.\s?n|s s n)\b",
    "email": r"\be[\- ]?mail\b",
}
CUES = {name: compile_pattern(pattern) for name, pattern in CUE_PATTERNS.items()}
# The fewest digits each numeric detector reads (an SSN has nine, a card 13, the shortest phone
# number, NXX-XXXX, seven): a text with fewer holds none, in any grouping.
LEAST_DIGITS = {"ssn": 9, "card_luhn": 13, "phone": 7}
FEWEST_DIGITS = min(LEAST_DIGITS.values())


def cues_in(text: str) -> frozenset[str]:
    """The cue words a turn carries, to read it and the turn after it."""
    data = encoded(text.lower())
    return frozenset(name for name, pattern in CUES.items() if pattern.search(data))


class Run:
    """Digit groups apart by one to three of ` .()-` ("(555) 123-4567"), and whether a `+`
    led them. `shape` holds each group's length as one byte, so a shape such as 3-2-4 is
    found with `bytes.find` rather than a Python loop over the groups. (A plain class: a run
    is made for every number in every turn read, and a frozen dataclass costs several times
    more to make.)"""

    __slots__ = ("groups", "plus", "separators", "shape")

    def __init__(self, groups: list[bytes], separators: list[bytes], plus: bool) -> None:
        self.groups = groups
        self.separators = separators  # separators[i] sits between groups[i] and groups[i + 1]
        self.plus = plus
        self.shape = bytes(min(len(g), 255) for g in groups)

    def at(self, shape: bytes) -> Iterator[int]:
        """Where groups of these lengths follow one another."""
        full = self.shape
        i = full.find(shape)
        while i >= 0:
            yield i
            i = full.find(shape, i + 1)

    def joined(self, i: int, n: int) -> bytes:
        return b"".join(self.groups[i : i + n])


def digit_runs(text: bytes) -> Iterator[Run]:
    at = 0
    while (hit := _RUN_AT(text, at)) is not None:  # a run is never empty: search on from its end
        start, at = hit
        run = text[start:at]
        before = text[max(0, start - 2) : start]
        yield Run(
            groups=run.translate(_SEPARATORS_TO_SPACE).split(),
            separators=[s for s in run.translate(_DIGITS_TO_NUL).split(b"\0") if s],
            plus=before.endswith(b"+") or before == b"+(",
        )


def valid_ssn(digits: bytes) -> bool:
    """Area 000, 666 and 900-999, group 00 and serial 0000 are never issued."""
    area = int(digits[:3])
    return area not in (0, 666) and area < 900 and digits[3:5] != b"00" and digits[5:] != b"0000"


def luhn_ok(digits: bytes) -> bool:
    """From the right, every second digit doubled (a two-digit product's digits summed)."""
    kept = digits[-1::-2]
    return (sum(kept) - 48 * len(kept) + sum(digits[-2::-2].translate(_LUHN_DOUBLED))) % 10 == 0


def _ssn(run: Run, cued: bool) -> bool:
    s = run.separators
    for i in run.at(b"\x03\x02\x04"):
        if s[i] in _SSN_SEPARATORS and s[i + 1] in _SSN_SEPARATORS and valid_ssn(run.joined(i, 3)):
            return True
    return cued and any(valid_ssn(run.groups[i]) for i in run.at(b"\x09"))


def _card(run: Run) -> bool:
    """13 to 19 digits passing Luhn, not starting 0: one group, or groups joined by a space or
    a dash, the first of three digits or more. Every such window is tried, so the card in
    "4111 1111 1111 1111 12 27" is found; a window holds at most 19 digits."""
    g, s = run.groups, run.separators
    for i, first in enumerate(g):
        n = len(first)
        if n < 3 or first[0] == 48:
            continue
        if n >= 13:
            if n <= 19 and luhn_ok(first):
                return True
            continue
        j = i
        while j + 1 < len(g) and s[j] in _CARD_SEPARATORS and n + len(g[j + 1]) <= 19:
            j += 1
            n += len(g[j])
            if n >= 13 and luhn_ok(run.joined(i, j - i + 1)):
                return True
    return False


def _nanp(digits: bytes, strict: bool) -> bool:
    if len(digits) == 11:
        if digits[:1] != b"1":
            return False
        digits = digits[1:]
    return digits[0] >= 50 and (not strict or digits[3] >= 50)


def _e164(groups: list[bytes]) -> bool:
    """`+` and 8 to 15 digits: the groups up to the first count of 8 or more."""
    total = 0
    for group in groups:
        total += len(group)
        if total >= 8:
            return total <= 15
    return False


def _phone(run: Run) -> bool:
    g, s = run.groups, run.separators
    if run.plus and g[0][0] != 48 and _e164(g):
        return True
    for shape, strict in _NANP_SHAPES.items():
        if any(_nanp(run.joined(i, len(shape)), strict) for i in run.at(shape)):
            return True
    # a local number, NXX-XXXX, standing alone
    return (
        len(g) == 2 and (len(g[0]), len(g[1])) == (3, 4) and s[0] in (b"-", b".") and g[0][0] >= 50
    )


def _email(text: bytes, spoken: bool, cued: bool) -> bool:
    if not spoken:
        return b"@" in text and _EMAIL.search(text) is not None
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
    digits = digit_count(text)
    numeric = [d for d in detectors if d in checks and digits >= LEAST_DIGITS[d]]
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

    `cues` are the cue words of this turn and the one before it (see `cues_in`). The spoken
    form is read only for what it could still show: an email where one is cued, a number where
    it could hold the digits the detector needs (`most_digits`).
    """
    written = encoded(text.lower())
    found: dict[str, Form] = dict.fromkeys(_scan_form(written, detectors, cues, False), "written")
    rest = [d for d in detectors if d not in found and (d != "email" or "email" in cues)]
    if any(d != "email" for d in rest):
        most = most_digits(written)
        rest = [d for d in rest if d == "email" or most >= LEAST_DIGITS[d]]
    if rest:
        spoken = spoken_form(written)
        if spoken is None:  # no number was said in words: only a spoken email is left to find
            spoken, rest = written, [d for d in rest if d == "email"]
        found.update(dict.fromkeys(_scan_form(spoken, rest, cues, True), "spoken"))
    return {d: found[d] for d in DETECTORS if d in found}
