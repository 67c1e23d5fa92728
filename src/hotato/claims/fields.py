"""Parts of a record a claim states, against the arguments the call ran with: the part of an
address said differently from the rest ("... San Francisco, CA 94110" when the call ran with zip
94101 and every other part as said), an option the claim says was chosen that the call ran
turned off ("ordered with expedited shipping", `expedited: false`), the date of a named item of
a list, a number of several digits (a meter reading) and a phone number."""

from __future__ import annotations

import re
from typing import Any

from hotato.claims.agree import flat_args, fold, key_words
from hotato.claims.catalog import stem
from hotato.claims.spoken import rewrite

_DIGITS = re.compile(r"\d{4,6}")
_WORD = re.compile(r"[a-z]+")
_NEGATION = frozenset({"no", "not", "without", "instead", "standard", "skip", "skipped", "off"})


def _groups(arguments: Any) -> dict[str, list[tuple[str, str]]]:
    """String arguments by the object that holds them (an address's lines, city and zip)."""
    out: dict[str, list[tuple[str, str]]] = {}
    for key, value in flat_args(arguments):
        if isinstance(value, str) and len(value.strip()) >= 2:
            parent = key.rsplit(".", 1)[0] if "." in key else ""
            out.setdefault(parent, []).append((key, value))
    return out


def by_parts(text: str, arguments: Any) -> list[dict[str, Any]]:
    """A code of digits (a zip, a house number) held beside at least two other parts of the
    same object the claim states word for word, where the claim states another number of its
    length in its place and never this one."""
    folded = fold(text)
    said_numbers = set(_DIGITS.findall(folded))
    if not said_numbers:
        return []
    out = []
    for parts in _groups(arguments).values():
        found = [v for _, v in parts if len(fold(v).strip()) >= 3 and fold(v) in folded]
        if len(found) < 2:
            continue
        for key, value in parts:
            code = value.strip()
            if not _DIGITS.fullmatch(code) or code in said_numbers:
                continue
            rivals = sorted(n for n in said_numbers if len(n) == len(code) and n != code)
            if rivals:
                out.append({"argument": key, "kind": "id", "said": rivals, "executed": value})
    return out


def by_flags(text: str, arguments: Any) -> list[dict[str, Any]]:
    """An option the claim names as done ("with expedited shipping") that the call ran set to
    false, when no word of negation comes just before it ("without expedited shipping")."""
    words = _WORD.findall(text.lower())
    stems = [stem(w) for w in words]
    out = []
    for key, value in flat_args(arguments):
        if value is not False:
            continue
        leaf = key.rsplit(".", 1)[-1]
        names = {stem(w) for w in key_words(leaf) if len(w) >= 5 and w.isalpha()}
        if len(names) != 1:
            continue  # one telling word ("expedited"), not a phrase read loosely
        (name,) = names
        for i, s in enumerate(stems):
            if s == name and not _NEGATION & set(words[max(0, i - 3) : i]):
                out.append(
                    {"argument": key, "kind": "choice", "said": [words[i]], "executed": False}
                )
                break
    return out


_ISO_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")


def _named_items(value: Any, folded: str, depth: int = 0) -> list[dict[str, Any]]:
    """The objects of the arguments' lists that the text names by one of their words (a
    passenger "Emily"), when it does not name every object of their list."""
    out: list[dict[str, Any]] = []
    if depth > 4:
        return out
    if isinstance(value, dict):
        for v in value.values():
            out.extend(_named_items(v, folded, depth + 1))
    elif isinstance(value, list):
        items = [i for i in value[:50] if isinstance(i, dict)]
        named = [
            i
            for i in items
            if any(
                isinstance(v, str) and v.isalpha() and len(v) >= 3 and f" {v.lower()} " in folded
                for v in i.values()
            )
        ]
        if 0 < len(named) < len(items):
            out.extend(named)
        for i in items:
            out.extend(_named_items(i, folded, depth + 1))
    return out


def by_item(text: str, dates: list[str], arguments: Any) -> list[dict[str, Any]]:
    """A whole date (`dates`, ISO) the claim states of an item of a list it names ("Emily's
    date of birth ... April 21, 1990") against that item's one date, when they differ."""
    whole = [d for d in dates if _ISO_DAY.fullmatch(d)]
    if not whole:
        return []
    out = []
    for item in _named_items(arguments, fold(text)):
        held = [(k, v) for k, v in item.items() if isinstance(v, str) and _ISO_DAY.fullmatch(v)]
        if len(held) == 1 and held[0][1] not in whole:
            key, value = held[0]
            out.append({"argument": key, "kind": "date", "said": whole, "executed": value})
    return out


_CODE_KEY = re.compile(
    r"(?:^|_|\b)(?:id|ids|number|no|code|ref|reference|account|card|zip|postal)$"
)
_PHONE_KEY = re.compile(r"phone|mobile|cell|msisdn|tel(?:ephone)?$|sms")
_NUMERAL = re.compile(r"(?<![\w.,$£€:/-])\d{4,9}(?![\w:/%-]|[.,]\d)")
_DIGIT_RUN = re.compile(r"\+?\d[\d ,.()-]{5,}\d")


_MONEY_KEY = re.compile(
    r"amount|price|cost|fee|fare|cents|total|balance|limit|deposit|charge|credit|refund|rate|"
    r"premium|salary|pay|sum|value_cents|points"
)
_NOT_A_QUANTITY = re.compile(r"(?:ending|ends|card|account|last|digits|year|in|since|of)\W+$")


def _said_numbers(text: str) -> set[str]:
    """Numbers of four to nine digits the text states that are no year and no card's or
    account's last digits ("the card ending 4417")."""
    plain = rewrite(text).text
    return {
        m.group(0)
        for m in _NUMERAL.finditer(plain)
        if not re.fullmatch(r"(?:19|20)\d\d", m.group(0))
        and not _NOT_A_QUANTITY.search(plain[max(0, m.start() - 24) : m.start()].lower())
    }


def by_number(text: str, arguments: Any) -> list[dict[str, Any]]:
    """A number of four or more digits the call ran with (a meter reading 38124) that is not
    an identifier, where the claim states another number of as many digits and never it."""
    said = _said_numbers(text)
    if not said:
        return []
    out = []
    for key, value in flat_args(arguments):
        leaf = key.rsplit(".", 1)[-1].lower()
        if isinstance(value, bool) or _CODE_KEY.search(leaf) or _PHONE_KEY.search(leaf):
            continue
        if _MONEY_KEY.search(leaf):  # an amount is compared as an amount
            continue
        held = str(value) if isinstance(value, int) else value if isinstance(value, str) else ""
        if not re.fullmatch(r"\d{4,9}", held) or held in said:
            continue
        rivals = sorted(n for n in said if len(n) == len(held))
        if rivals:
            out.append({"argument": key, "kind": "count", "said": rivals, "executed": value})
    return out


def by_phone(text: str, arguments: Any) -> list[dict[str, Any]]:
    """A phone number the claim states ("five five five, three one two, four four seven
    eight") against the phone argument, by their last seven digits or more."""
    runs = {
        digits
        for m in _DIGIT_RUN.finditer(rewrite(text).text)
        if 7 <= len(digits := re.sub(r"\D", "", m.group(0))) <= 15
    }
    if not runs:
        return []
    out = []
    for key, value in flat_args(arguments):
        leaf = key.rsplit(".", 1)[-1].lower()
        if not isinstance(value, str) or not _PHONE_KEY.search(leaf):
            continue
        held = re.sub(r"\D", "", value)
        if len(held) < 7:
            continue
        if not any(held.endswith(r[-10:]) or r.endswith(held[-10:]) for r in runs):
            out.append({"argument": key, "kind": "id", "said": sorted(runs), "executed": value})
    return out


def _options(payload: Any, depth: int = 0) -> list[dict[str, Any]]:
    """Objects of the lists a read returned: the options a caller chose among."""
    out: list[dict[str, Any]] = []
    if depth > 4:
        return out
    if isinstance(payload, dict):
        for v in payload.values():
            out.extend(_options(v, depth + 1))
    elif isinstance(payload, list):
        items = [i for i in payload[:50] if isinstance(i, dict)]
        if len(items) >= 2:
            out.extend(items)
        for i in payload[:50]:
            out.extend(_options(i, depth + 1))
    return out


def _words_of(item: dict[str, Any]) -> set[str]:
    """An option's telling strings, folded: names of two words or more, and codes."""
    return {
        fold(v)
        for v in item.values()
        if isinstance(v, str) and len(v) >= 3 and (" " in v.strip() or any(c.isdigit() for c in v))
    }


def by_option(text: str, reads: list[Any], payload: list[Any]) -> list[dict[str, Any]]:
    """One of the options a read listed that the claim names ("on Green Flex") while the call
    acted on another of them (its code GFX12, or its name) and not on the one named."""
    said = fold(text)
    acted = {fold(v) for p in payload for _, v in flat_args(p) if isinstance(v, str)}
    for read in reads:
        options = [(item, _words_of(item)) for item in _options(read)]
        named = [item for item, words in options if any(w in said for w in words)]
        used = [item for item, words in options if words & acted]
        if len(named) == 1 and used and named[0] not in used:
            other = used[0]
            shown = next((v for v in other.values() if isinstance(v, str)), "")
            return [
                {
                    "argument": "(an option the record listed)",
                    "kind": "choice",
                    "said": sorted(w.strip() for w in _words_of(named[0]) if w in said)[:1],
                    "executed": shown,
                }
            ]
    return []
