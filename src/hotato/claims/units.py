"""Counts a claim states with their unit ("renewed for twelve months", "2 margherita pizzas"),
compared with the argument the unit names: a field named for it (`months`, `duration_months`),
or the quantity of the listed item the unit's words name (`items[{name: margherita pizza,
quantity: 1}]`). A count whose unit no argument names is not compared."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from hotato.claims.agree import fold, key_words
from hotato.claims.catalog import stem
from hotato.claims.spoken import rewrite

# A count and its unit: up to three words, the last one plural ("2 margherita pizzas", "12
# months"). Not a price, a clock time, a decimal or a part of a longer number.
_UNIT_COUNT = re.compile(
    r"(?<![\w$£€.,:/-])(\d{1,3})(?![\w.,:/-]\d)\s+(?:more |additional |extra |new |total )?"
    r"((?:[a-z]+[ -]){0,2}[a-z]{3,}s)\b",
    re.IGNORECASE,
)
_QUANTITY_KEY = re.compile(r"quantity|qty|count|number|amount_of|units")
_NOT_UNITS = frozenset({"its", "was", "has", "this", "thus", "yes", "plus", "minus", "does"})


def unit_counts(text: str) -> list[tuple[int, tuple[str, ...]]]:
    """(count, the unit's words) for each count with a unit the text states."""
    out = []
    for m in _UNIT_COUNT.finditer(rewrite(text).text):
        n = int(m.group(1))
        words = tuple(w for w in re.split(r"[ -]", m.group(2).lower()) if w)
        if 0 < n <= 500 and words[-1] not in _NOT_UNITS:
            out.append((n, words))
    return out


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str) and re.fullmatch(r"\d{1,4}(?:\.0+)?", value.strip()):
        return float(value)
    return None


def _fields(value: Any, prefix: str = "", depth: int = 0) -> Iterator[tuple[str, Any]]:
    """(dotted key, value) for every number the arguments hold, lists' items included."""
    if depth > 4:
        return
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _fields(v, f"{prefix}{k}.", depth + 1)
            if _number(v) is not None:
                yield f"{prefix}{k}", v
    elif isinstance(value, list):
        for item in value[:20]:
            yield from _fields(item, prefix.rstrip(".") + "[].", depth + 1)


def _items(value: Any, depth: int = 0) -> Iterator[dict[str, Any]]:
    """Every object in a list of the arguments (an order's lines)."""
    if depth > 4:
        return
    if isinstance(value, dict):
        for v in value.values():
            yield from _items(v, depth + 1)
    elif isinstance(value, list):
        for item in value[:50]:
            if isinstance(item, dict):
                yield item
            yield from _items(item, depth + 1)


def _by_field(n: int, head: str, arguments: Any) -> tuple[bool, list[tuple[str, Any]]]:
    """Whether a field named for the unit holds the count, and the fields named for it."""
    named = [
        (key, value)
        for key, value in _fields(arguments)
        if head in {stem(w) for w in key_words(key.split(".")[-1].replace("[]", ""))}
    ]
    return any(_number(v) == n for _, v in named), named


def _by_item(n: int, words: tuple[str, ...], arguments: Any) -> tuple[bool, list[tuple[str, Any]]]:
    """Whether the listed items the unit's words name hold the count in all (their quantities
    summed), and those items' quantities."""
    head = stem(words[-1])
    found: list[tuple[str, Any]] = []
    total = 0.0
    for item in _items(arguments):
        names = " ".join(fold(v) for k, v in item.items() if isinstance(v, str))
        if not any(stem(w) == head for w in names.split()):
            continue
        others = [w for w in words[:-1] if w not in {"more", "additional", "extra", "new"}]
        if others and not all(f" {w}" in names for w in others):
            continue
        for key, value in item.items():
            if _QUANTITY_KEY.search(key.lower()) and (q := _number(value)) is not None:
                found.append((key, value))
                total += q
                break
    return bool(found) and total == n, found


def by_unit(text: str, arguments: Any) -> list[dict[str, Any]]:
    """What the span executed against the counts `text` states with a unit that an argument
    names: one entry per count no such argument agrees with."""
    out = []
    for n, words in unit_counts(text):
        head = stem(words[-1])
        held, named = _by_field(n, head, arguments)
        if not named:
            held, named = _by_item(n, words, arguments)
        if named and not held:
            key, value = named[0]
            out.append(
                {
                    "argument": key,
                    "kind": "count",
                    "said": [f"{n} {' '.join(words)}"],
                    "executed": value,
                }
            )
    return out
