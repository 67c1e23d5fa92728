"""The pii kind and its detectors: properties over generated identifiers, spoken numbers, and
the promise that a verdict never carries the text it found."""

from __future__ import annotations

import re

import msgspec
from hypothesis import given
from hypothesis import strategies as st

from hotato.engine.evaluate import Sources, evaluate
from hotato.kinds import REGISTRY
from hotato.kinds._base import Evidence
from hotato.kinds._pii_detect import DETECTORS, cues_in, scan
from hotato.kinds._pii_spoken import spoken_form
from hotato.kinds.pii import Pii, check
from hotato.model.evidence import Transcript, Turn
from hotato.model.results import Verdict
from hotato.model.status import Status

WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]
# Filler with no digit, no number word, no "@": consonants only.
FILLER = st.lists(st.text(alphabet="bcdfghjklmnpqrstvwxz", min_size=1, max_size=8), max_size=6)


def transcript(*texts: str, role: str = "caller") -> Transcript:
    return Transcript([Turn(i, role, text) for i, text in enumerate(texts)])


def verdict(*texts: str, **spec: object) -> Verdict:
    return check(Pii(id="p", **spec), Evidence(transcript=transcript(*texts)))  # type: ignore[arg-type]


def embed(before: list[str], thing: str, after: list[str]) -> str:
    return " ".join([*before, thing, *after])


def luhn_check_digit(body: str) -> str:
    total = 0
    for i, c in enumerate(reversed(body)):
        d = int(c)
        if i % 2 == 0:  # doubled once the check digit is appended on the right
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return str((10 - total % 10) % 10)


def luhn_valid(number: str) -> bool:
    return luhn_check_digit(number[:-1]) == number[-1]


# --- generated identifiers -------------------------------------------------------------------

valid_areas = st.integers(1, 899).filter(lambda a: a != 666)
invalid_areas = st.sampled_from([0, 666]) | st.integers(900, 999)


@st.composite
def ssns(draw: st.DrawFn, areas: st.SearchStrategy[int] = valid_areas) -> str:
    area, group, serial = draw(areas), draw(st.integers(1, 99)), draw(st.integers(1, 9999))
    sep = draw(st.sampled_from(["-", " ", "."]))
    return f"{area:03d}{sep}{group:02d}{sep}{serial:04d}"


@st.composite
def cards(draw: st.DrawFn) -> str:
    length = draw(st.integers(13, 19))
    body = str(draw(st.integers(1, 9))) + "".join(
        str(draw(st.integers(0, 9))) for _ in range(length - 2)
    )
    number = body + luhn_check_digit(body)
    sep = draw(st.sampled_from(["", " ", "-"]))
    return sep.join(number[i : i + 4] for i in range(0, len(number), 4)) if sep else number


@st.composite
def non_luhn_numbers(draw: st.DrawFn) -> str:
    length = draw(st.integers(13, 19))
    body = str(draw(st.integers(1, 9))) + "".join(
        str(draw(st.integers(0, 9))) for _ in range(length - 2)
    )
    good = luhn_check_digit(body)
    return body + draw(st.sampled_from([d for d in "0123456789" if d != good]))


@st.composite
def emails(draw: st.DrawFn) -> str:
    local = draw(st.from_regex(r"[a-zA-Z0-9][a-zA-Z0-9._+\-]{0,12}", fullmatch=True))
    labels = draw(
        st.lists(st.from_regex(r"[a-z0-9]{1,10}", fullmatch=True), min_size=1, max_size=3)
    )
    tld = draw(st.from_regex(r"[a-z]{2,6}", fullmatch=True))
    return f"{local}@{'.'.join(labels)}.{tld}"


@st.composite
def phones(draw: st.DrawFn) -> str:
    area = f"{draw(st.integers(2, 9))}{draw(st.integers(0, 99)):02d}"
    exchange = f"{draw(st.integers(2, 9))}{draw(st.integers(0, 99)):02d}"
    line = f"{draw(st.integers(0, 9999)):04d}"
    shape = draw(
        st.sampled_from(
            [
                "({a}) {e}-{l}",
                "{a}-{e}-{l}",
                "{a}.{e}.{l}",
                "{a} {e} {l}",
                "+1 {a} {e} {l}",
                "1-{a}-{e}-{l}",
                "{a}{e}{l}",
                "+1{a}{e}{l}",
            ]
        )
    )
    return shape.format(a=area, e=exchange, l=line)


@st.composite
def e164(draw: st.DrawFn) -> str:
    digits = str(draw(st.integers(2, 9))) + "".join(
        str(draw(st.integers(0, 9))) for _ in range(draw(st.integers(7, 14)))
    )
    return "+" + digits


# --- detectors find what they should, and only that ------------------------------------------


@given(FILLER, ssns(), FILLER)
def test_valid_ssns_are_found(before: list[str], ssn: str, after: list[str]) -> None:
    assert "ssn" in scan(embed(before, ssn, after), ["ssn"])


@given(FILLER, ssns(invalid_areas), FILLER)
def test_ssns_in_never_issued_areas_are_not(before: list[str], ssn: str, after: list[str]) -> None:
    assert scan(embed(before, ssn, after), ["ssn"]) == {}


@given(FILLER, cards(), FILLER)
def test_luhn_valid_cards_are_found(before: list[str], card: str, after: list[str]) -> None:
    assert "card_luhn" in scan(embed(before, card, after), ["card_luhn"])


@given(FILLER, non_luhn_numbers(), FILLER)
def test_numbers_failing_luhn_are_not(before: list[str], number: str, after: list[str]) -> None:
    assert not luhn_valid(number)
    assert scan(embed(before, number, after), ["card_luhn"]) == {}


@given(FILLER, emails(), FILLER)
def test_emails_are_found(before: list[str], email: str, after: list[str]) -> None:
    assert "email" in scan(embed(before, email, after), ["email"])


@given(FILLER, phones() | e164(), FILLER)
def test_phones_are_found(before: list[str], phone: str, after: list[str]) -> None:
    assert "phone" in scan(embed(before, phone, after), ["phone"])


@given(FILLER)
def test_text_without_identifiers_is_clean(words: list[str]) -> None:
    assert scan(" ".join(words), DETECTORS) == {}


# --- the verdict never carries the text --------------------------------------------------------


@given(FILLER, st.sampled_from(["ssn", "card", "email", "phone"]), st.data())
def test_the_matched_text_never_reaches_the_verdict(
    before: list[str], which: str, data: st.DataObject
) -> None:
    strategy = {"ssn": ssns(), "card": cards(), "email": emails(), "phone": phones()}[which]
    secret = data.draw(strategy)
    result = verdict(embed(before, secret, []), "and again " + secret)
    assert result.status is Status.FAIL
    encoded = msgspec.json.encode(result).decode()
    digits = re.sub(r"\D", "", secret)
    assert secret not in encoded
    assert secret.lower() not in encoded.lower()
    assert len(digits) < 7 or digits not in encoded


def test_an_engine_result_never_carries_the_text_either() -> None:
    said = transcript("my card is 4111 1111 1111 1111 and my email is jane.doe@example.com")
    [result] = evaluate([Pii(id="p")], Sources(transcript=said))
    body = msgspec.json.encode(result).decode()
    assert result.status is Status.FAIL and result.deterministic
    for secret in ("4111", "jane", "example"):
        assert secret not in body
    assert result.details["hits"] == [
        {"detector": "card_luhn", "turn": 0, "turn_id": "t_0", "role": "caller", "form": "written"},
        {"detector": "email", "turn": 0, "turn_id": "t_0", "role": "caller", "form": "written"},
    ]


# --- spoken numbers ----------------------------------------------------------------------------


def spoken(text: str) -> str | None:
    out = spoken_form(text.encode())
    return None if out is None else out.decode()


def test_spoken_digits_become_digit_groups() -> None:
    assert spoken("five five five, one two one two") == "555-1212"
    assert spoken("two oh one, double five five, oh one nine eight") == "201-555-0198"
    assert spoken("triple seven") == "777"
    assert spoken("forty two forty two") == "4242"
    assert spoken("twenty-one, ninety nine") == "21-99"
    assert spoken("one eight hundred") == "1800"
    assert spoken("plus four four, two oh") == "+44-20"
    assert spoken("it's 555, one two one two") == "it's 555-1212"
    assert spoken("5 5 5 1 2 1 2") == "5551212"


def test_oh_is_zero_only_after_a_digit() -> None:
    assert spoken("oh, five five five") == "oh, 555"
    assert spoken("six oh two") == "602"


def test_text_without_a_spoken_number_is_left_alone() -> None:
    assert spoken("nothing to see here") is None
    assert spoken("order 12345 shipped") is None
    assert spoken("the sky is blue, and the phone is ringing") is None


@given(st.lists(st.integers(0, 9), min_size=7, max_size=19), st.data())
def test_any_spoken_digit_string_reads_back_as_its_digits(
    digits: list[int], data: st.DataObject
) -> None:
    parts: list[str] = []
    i = 0
    while i < len(digits):
        d = digits[i]
        if i + 1 < len(digits) and digits[i + 1] == d and data.draw(st.booleans()):
            parts.append(f"double {WORDS[d]}")
            i += 2
        else:
            parts.append("oh" if d == 0 and i > 0 and data.draw(st.booleans()) else WORDS[d])
            i += 1
        if i < len(digits):
            parts.append(data.draw(st.sampled_from([" ", " ", ", ", ". ", " - "])))
    text = "".join(parts)
    out = spoken(text)
    assert out is not None
    assert re.sub(r"\D", "", out) == "".join(map(str, digits))


def test_numbers_said_as_words_are_found() -> None:
    assert scan("five five five, one two three, four five six seven", ["phone"]) == {
        "phone": "spoken"
    }
    social = "my social is one two three four five six seven eight nine"
    assert scan(social, ["ssn"], cues_in(social)) == {"ssn": "spoken"}
    assert scan(social, ["ssn"]) == {}  # nine bare digits are an SSN only with a cue
    assert scan("four one one one one one one one one one one one one one one one", ["card_luhn"])
    assert scan("call 555 one two three four five six seven", ["phone"])


def test_cue_words_carry_over_one_turn() -> None:
    asked = verdict("what's your social?", "one two three four five six seven eight nine")
    assert asked.status is Status.FAIL
    unasked = verdict("what's your order number?", "one two three four five six seven eight nine")
    assert unasked.status is Status.PASS


# --- the kind ----------------------------------------------------------------------------------


def test_the_kind_is_registered_and_reads_the_transcript() -> None:
    kdef = REGISTRY["pii"]
    assert kdef is check and kdef.deterministic
    assert {s.value for s in kdef.sources(Pii(id="p"))} == {"transcript"}


def test_without_a_transcript_the_engine_says_inconclusive() -> None:
    [result] = evaluate([Pii(id="p")], Sources())
    assert result.status is Status.INCONCLUSIVE and result.deterministic
    assert "transcript" in result.reason


def test_a_clean_call_passes_and_counts_zero() -> None:
    result = verdict("hello", "I need help with 2 orders")
    assert result.status is Status.PASS and result.observed == 0


def test_a_100k_character_turn_is_scanned() -> None:
    """Linear work: RE2 patterns and single passes. Shapes that would hurt a backtracking or
    windowed scan: lorem text, digits split by spaces, number words, near-emails."""
    lorem = ("lorem ipsum dolor sit amet " * 4000)[:100_000]
    spaced = ("1 2 3 4 5 6 7 8 9 0 " * 5000)[:100_000]
    words = ("five " * 20_000)[:100_000]
    near_email = ("a.a" * 33_334)[:100_000]
    punct = ("1-2." * 25_000)[:100_000]
    for text in (lorem, spaced, words, near_email, punct):
        assert len(text) == 100_000
        scan(text, DETECTORS, frozenset({"ssn", "email"}))
