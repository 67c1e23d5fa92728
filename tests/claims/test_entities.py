"""Entities a turn states, normalised: spoken numbers, amounts, dates, times, counts, ids."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hotato.claims.entities import extract_entities
from hotato.claims.spoken import rewrite

CASES = [
    ("a refund of forty two fifty", "amount", "42.50"),
    ("that is $18.99 in total", "amount", "18.99"),
    ("six dollars and fifty cents", "amount", "6.50"),
    ("one hundred and twenty dollars", "amount", "120.00"),
    ("twelve hundred dollars", "amount", "1200.00"),
    ("the charge of nineteen dollars", "amount", "19.00"),
    ("March third at seven pm", "date", "--03-03"),
    ("March third at seven pm", "time", "19:00"),
    ("the 3rd of March 2026", "date", "2026-03-03"),
    ("on the twenty first", "date", "---21"),
    ("on 2019-03-09", "date", "2019-03-09"),
    ("see you tomorrow", "date", "tomorrow"),
    ("at seven thirty in the evening", "time", "19:30"),
    ("a quarter to 5 in the evening", "time", "16:45"),
    ("ten to five pm", "time", "16:50"),
    ("a ninety day supply", "count", 90),
    ("four payments of one twenty", "count", 4),
    ("thursday, eight to ten a m", "time", "10:00"),
    ("flight HAT318 on the twelfth", "id", "HAT318"),
    ("at half past six pm", "time", "18:30"),
    ("at noon", "time", "12:00"),
    ("at 19:45", "time", "19:45"),
    ("a table for four", "count", 4),
    ("party of six", "count", 6),
    ("book 2 tickets", "count", 2),
    ("just one ticket", "count", 1),
    ("your confirmation number is four seven two nine one", "id", "47291"),
    ("order number A B 1 2 3 4", "id", "AB1234"),
    ("the card ending in four four one two", "id", "4412"),
    ("reference double five oh two one", "id", "55021"),
]


@pytest.mark.parametrize(("text", "kind", "value"), CASES, ids=[c[0] for c in CASES])
def test_entity_is_normalised(text: str, kind: str, value: object) -> None:
    found = [(e.kind, e.value) for e in extract_entities(text)]
    assert (kind, value) in found, found


def test_a_time_without_am_pm_is_marked_ambiguous() -> None:
    (entity,) = [e for e in extract_entities("we'll see you at seven") if e.kind == "time"]
    assert entity.value == "07:00" and entity.ambiguous


def test_spans_point_at_the_words_said() -> None:
    text = "I refunded forty two fifty today"
    (amount,) = [e for e in extract_entities(text) if e.kind == "amount"]
    assert text[amount.span[0] : amount.span[1]] == amount.text == "forty two fifty"


def test_no_entities_in_plain_words() -> None:
    assert extract_entities("Is there anything else I can help with?") == []


_UNITS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]
_TEENS = [
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
]
_TENS = ["_", "_", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]


def _words(n: int) -> str:
    """A cardinal below a million as words: how speech-to-text writes it."""
    parts: list[str] = []
    if n >= 1000:
        parts += [_words(n // 1000), "thousand"]
        n %= 1000
    if n >= 100:
        parts += [_UNITS[n // 100], "hundred"]
        n %= 100
    if n >= 20:
        parts.append(_TENS[n // 10] + (f"-{_UNITS[n % 10]}" if n % 10 else ""))
    elif n >= 10:
        parts.append(_TEENS[n - 10])
    elif n or not parts:
        parts.append(_UNITS[n])
    return " ".join(parts)


@given(st.integers(min_value=10, max_value=999_999))
def test_spoken_cardinals_read_back_as_digits(n: int) -> None:
    assert rewrite(f"it costs {_words(n)} dollars").text == f"it costs {n} dollars"


@given(st.text(max_size=80))
def test_rewrite_maps_every_span_back_inside_the_original(text: str) -> None:
    rw = rewrite(text)
    for start in range(0, len(rw.text), 7):
        s, e = rw.source(start, min(len(rw.text), start + 5))
        assert 0 <= s <= e <= len(text)


def test_claims_and_the_pii_detectors_read_the_same_digit_words() -> None:
    from hotato.kinds._pii_spoken import spoken_form

    said = "confirmation four niner nought seven"
    assert rewrite(said).text == "confirmation 4907"
    assert spoken_form(said.encode()) == b"confirmation 4907"
