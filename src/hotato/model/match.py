"""Subset matching shared by every kind that compares an expectation with observed data."""

from __future__ import annotations

from typing import Any

_MISSING = object()


def same(expected: Any, observed: Any) -> bool:
    """Type-strict equality: the string "02139" is not the number 2139, True is not 1."""
    if isinstance(expected, bool) or isinstance(observed, bool):
        return type(expected) is type(observed) and expected == observed
    if isinstance(expected, int | float) and isinstance(observed, int | float):
        return expected == observed
    if type(expected) is not type(observed):
        return False
    return bool(expected == observed)


def subset(expected: Any, observed: Any) -> bool:
    """`expected` is contained in `observed`: dicts key by key, lists element-wise, else equal."""
    if isinstance(expected, dict):
        return isinstance(observed, dict) and all(
            k in observed and subset(v, observed[k]) for k, v in expected.items()
        )
    if isinstance(expected, list):
        return (
            isinstance(observed, list)
            and len(expected) == len(observed)
            and all(subset(e, o) for e, o in zip(expected, observed, strict=True))
        )
    return same(expected, observed)


def dotted(record: Any, path: str) -> Any:
    """`a.b.0.c` into nested dicts and lists; _MISSING when any step is absent."""
    return follow(record, path.split("."))


def follow(record: Any, parts: list[str]) -> Any:
    """Step through nested dicts (by key) and lists (by index); _MISSING when a step is absent."""
    node = record
    for part in parts:
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return _MISSING
    return node


def missing(value: Any) -> bool:
    return value is _MISSING


def mismatched_fields(expect: dict[str, Any], record: dict[str, Any]) -> list[str]:
    """The dotted paths of `expect` whose value the record does not hold (or holds differently)."""
    bad = []
    for path, want in expect.items():
        got = record.get(path, _MISSING) if path in record else dotted(record, path)
        if got is _MISSING or not subset(want, got):
            bad.append(path)
    return bad
