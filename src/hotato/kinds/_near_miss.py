"""The call that came closest to an `args_subset` nobody passed, and how it differed.

"issue_refund with arguments {'amount': '40'} was never called" hides that it ran with the
number 40: a failure names the closest call and each difference, with its JSON type, so the
reader sees a quoted YAML scalar (a string) or a typo at once.
"""

from __future__ import annotations

from itertools import islice
from typing import Any

from hotato.model.evidence import Span
from hotato.model.match import subset

# Calls read to find the closest one: a failure's message, not a scan of a million calls.
NEAR_MISS_LIMIT = 1000

_ABSENT: Any = object()


def json_type(value: Any) -> str:
    """The JSON name of a value's type."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list | tuple):
        return "array"
    return type(value).__name__


def _shown(value: Any) -> str:
    return f"{value!r} ({json_type(value)})"


def differences(expected: dict[str, Any], observed: Any, prefix: str = "") -> list[str]:
    """Each place `observed` does not hold `expected`: a missing key, or the value it holds
    instead (both with their types); nested mappings are followed key by key."""
    if not isinstance(observed, dict):
        return [f"arguments are {_shown(observed)}, not an object"]
    found: list[str] = []
    for key, want in expected.items():
        path = f"{prefix}{key}"
        got = observed.get(key, _ABSENT)
        if got is _ABSENT:
            found.append(f"{path} is missing")
        elif isinstance(want, dict) and isinstance(got, dict):
            found += differences(want, got, f"{path}.")
        elif not subset(want, got):
            found.append(f"{path} is {_shown(got)}, not {_shown(want)}")
    return found


def closest(
    spans: list[Span], values: list[Any], expected: dict[str, Any]
) -> tuple[Span, list[str]] | None:
    """The call (among the first NEAR_MISS_LIMIT) whose arguments differ from `expected` in the
    fewest places, first in trace order on a tie, with those differences."""
    best: tuple[Span, list[str]] | None = None
    for span, value in islice(zip(spans, values, strict=True), NEAR_MISS_LIMIT):
        diff = differences(expected, value)
        if best is None or len(diff) < len(best[1]):
            best = (span, diff)
    return best


def describe(spans: list[Span], values: list[Any], expected: dict[str, Any]) -> str:
    """`; the closest call, s_4, differs: amount is 40 (integer), not '40' (string)`, or ""
    when the tool never ran."""
    found = closest(spans, values, expected)
    if found is None:
        return ""
    span, diff = found
    return f"; the closest call, {span.id}, differs: {', '.join(diff)}"
