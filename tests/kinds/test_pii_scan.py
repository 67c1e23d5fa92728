"""The transcript's PII is found once per run, and only the turns that could hold an identifier
are read by the detectors (kinds._pii_scan). These properties hold that to the plain definition,
every turn scanned with its cue words and the previous turn's, on generated turns made of the
pieces identifiers are built from: digits in every grouping, numbers in words, cues, `@`,
newlines."""

from __future__ import annotations

from unittest.mock import patch

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from hotato.kinds._pii_detect import DETECTORS, LEAST_DIGITS, cues_in, scan
from hotato.kinds._pii_scan import fired_turns
from hotato.kinds._pii_spoken import digit_count, most_digits, spoken_form
from hotato.kinds._regex import encoded
from hotato.model.evidence import Transcript, Turn

SETTINGS = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
PIECES = [
    "4111 1111 1111 1111",
    "4111",
    "1111",
    "123",
    "45",
    "6789",
    "555",
    "0142",
    "1",
    "5",
    "+",
    "+44",
    "(",
    ")",
    "-",
    ".",
    ",",
    " ",
    "\n",
    "five",
    "one two",
    "oh",
    "o",
    "double",
    "triple",
    "hundred",
    "thousand",
    "forty",
    "nineteen",
    "plus",
    "social",
    "SSN",
    "s.s.n",
    "email",
    "E-Mail",
    "jo",
    "@",
    "at",
    "example",
    "dot",
    "\u017fix",  # a long s: RE2 folds it to `s` without case
    "\u212a",  # the Kelvin sign, lower-cased to an ASCII k
    "com",
    "us",
    "thanks",
    "é",
    "İ",
]
# Numbers said digit by digit, so spoken identifiers come up often.
SPOKEN = ["five five five one two one two", "one two three four five six seven eight nine", "oh"]
pieces = st.sampled_from(PIECES) | st.sampled_from(SPOKEN)
texts = st.lists(pieces, max_size=10).map(" ".join) | st.lists(pieces, max_size=10).map("".join)


def every_turn_scanned(transcript: Transcript) -> list[tuple[int, dict[str, str]]]:
    found, before = [], frozenset[str]()
    for turn in transcript.turns:
        here = cues_in(turn.text)
        forms = scan(turn.text, DETECTORS, here | before)
        if forms:
            found.append((turn.index, forms))
        before = here
    return found


@SETTINGS
@given(st.lists(texts, max_size=24), st.sampled_from([0, 64]))
@example(["what's your email?", "jo at example dot com"], 0)  # a cue read on the next turn
@example(["my email is jo at example dot com"], 0)
@example(["five five five, one two one two"], 0)  # seven digits, all said in words
@example(["five five five one two one two", "4111 1111 1111 1111", "jo@example.com"], 0)
def test_the_candidate_turns_hold_every_hit(turns: list[str], join_at_least: int) -> None:
    transcript = Transcript([Turn(i, "caller", text) for i, text in enumerate(turns)])
    with patch("hotato.kinds._regex.JOIN_AT_LEAST", join_at_least):  # joined, and turn by turn
        got = [(turn.index, forms) for turn, forms in fired_turns(transcript)]
    assert got == every_turn_scanned(transcript)


@SETTINGS
@given(texts, st.sets(st.sampled_from(["ssn", "email"])))
@example("call 555-0142", set())  # seven digits: the shortest phone number
@example("555 0142 or 5 5 5 0 1 4 2", set())
@example("4111 1111 1111 1111 and 123 45 6789", set())  # regrouped in the spoken form
@example("1 2 3 4 5 6 7 8 9", {"ssn"})
@example("4222222222222", set())  # 13 digits: the shortest card
@example("4 2 2 2 2 2 2 2 2 2 2 2 2", set())
@example("5 5 5-0 1 4 2", set())
@example("123-45-6789 and 4 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1", set())
def test_the_digit_floors_drop_no_identifier(text: str, cues: set[str]) -> None:
    """A detector is not run on a text with fewer digits than it reads (LEAST_DIGITS), nor on a
    spoken form that cannot hold that many (`most_digits`): with no floor at all, and so the
    spoken form always read, the answer is the same."""
    floorless = dict.fromkeys(LEAST_DIGITS, 0)
    with patch.dict("hotato.kinds._pii_detect.LEAST_DIGITS", floorless):
        unguarded = scan(text, DETECTORS, frozenset(cues))
    assert scan(text, DETECTORS, frozenset(cues)) == unguarded


@SETTINGS
@given(texts)
@example("eight thousand")
@example("eight hundred")
@example("triple two")
@example("nineteen")
@example("forty")
@example("one oh one")
@example("a\u017fix \u017feven Kilo 5five five_five \u00e9 five")
def test_most_digits_bounds_the_spoken_form(text: str) -> None:
    written = encoded(text.lower())
    spoken = spoken_form(written) or written
    assert most_digits(written) >= digit_count(spoken)
