"""A transcript's identifiers, found once per run: the turns where a PII detector fires.

Each detector judges a turn alone (with the cue words of that turn and the one before it), and
most turns cannot hold an identifier at all: every detector needs an `@` (a written email), at
least `FEWEST_DIGITS` digits (the shortest phone number), written or said in words (bounded by
`most_digits`), or an email cue (a spoken email). Those facts are read for the whole transcript
at once: the words and the `@` in a few linear passes over its joined turns
(`_regex.matching_lines`), the digits counted turn by turn (a pattern over the joined text
would find seven digits across almost any run of turns, and confirm each). Only the turns that
have one of them go to the detectors, so 100,000 turns cost a handful of RE2 passes and a call
per candidate turn, not several calls per turn. The answer is the one a scan of every turn
gives (a property test holds it to that).
"""

from __future__ import annotations

from hotato.kinds._pii_detect import CUE_PATTERNS, DETECTORS, FEWEST_DIGITS, scan
from hotato.kinds._pii_spoken import NUMBER_WORD, digit_count, most_digits
from hotato.kinds._regex import matching_lines
from hotato.model.evidence import Transcript, Turn

_KEY = ("pii", "lowered")  # the joined lower-cased turns, shared by the passes below


def fired_turns(transcript: Transcript) -> list[tuple[Turn, dict[str, str]]]:
    """The turns where any detector fires, in turn order, with what fired and in which form.
    Cue words carry over one turn, so the answer to "what's your social?" is read as an SSN
    even when said as nine bare digits."""
    turns = transcript.turns
    lowered = [turn.text.lower() for turn in turns]  # as the detectors read a turn

    def lines(pattern: str) -> list[int]:
        return matching_lines(transcript, _KEY, lowered, pattern)

    cued = {name: set(lines(pattern)) for name, pattern in CUE_PATTERNS.items()}
    email_cued = cued.get("email", set())
    digits = {i for i, text in enumerate(lowered) if digit_count(text.encode()) >= FEWEST_DIGITS}
    # a number in words counts when the words could add up to enough digits ("forty two" cannot)
    worded = (i for i in lines(NUMBER_WORD) if i not in digits)
    digits.update(i for i in worded if most_digits(lowered[i].encode()) >= FEWEST_DIGITS)
    candidates = digits | set(lines("@"))
    candidates |= email_cued | {i + 1 for i in email_cued if i + 1 < len(turns)}
    fired: list[tuple[Turn, dict[str, str]]] = []
    for i in sorted(candidates):
        cues = frozenset(n for n, at in cued.items() if i in at or (i - 1) in at)
        forms = scan(turns[i].text, DETECTORS, cues)
        if forms:
            fired.append((turns[i], dict(forms)))
    return fired
