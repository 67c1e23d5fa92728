"""The per-run cache: identical questions are answered once, typed keys never collide."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from hotato.adapters.cache import CachedReader
from hotato.model.state import NoSnapshot, StateUnavailable


class Counting:
    def __init__(self) -> None:
        self.asked: list[tuple[str, dict[str, Any]]] = []
        self.closed = False

    def query(self, resource: str, filters: Mapping[str, Any]) -> dict[str, Any] | None:
        self.asked.append((resource, dict(filters)))
        if resource == "down":
            raise StateUnavailable("timeout", "no answer")
        if resource == "never":
            raise NoSnapshot("never captured")
        return {"resource": resource, **filters} if filters.get("id") != 0 else None

    def close(self) -> None:
        self.closed = True


def test_identical_questions_reach_the_reader_once() -> None:
    inner = Counting()
    cache = CachedReader(inner)
    for _ in range(3):
        assert cache.query("orders", {"id": 1, "zip": "02139"}) is not None
        assert cache.query("orders", {"zip": "02139", "id": 1}) is not None  # key order
        assert cache.query("orders", {"id": 0}) is None
    assert len(inner.asked) == 2 and cache.sent == 2


def test_values_of_different_types_are_different_questions() -> None:
    inner = Counting()
    cache = CachedReader(inner)
    for value in (1, "1", True, None, [1], {"a": 1}):
        cache.query("orders", {"id": value})
    assert len(inner.asked) == 6


def test_could_not_read_is_remembered_too() -> None:
    inner = Counting()
    cache = CachedReader(inner)
    for _ in range(3):
        with pytest.raises(StateUnavailable):
            cache.query("down", {})
        with pytest.raises(NoSnapshot):
            cache.query("never", {})
    assert len(inner.asked) == 2


def test_close_reaches_the_reader() -> None:
    inner = Counting()
    CachedReader(inner).close()
    assert inner.closed


def test_filter_values_become_json_values_first() -> None:
    import datetime as dt

    inner = Counting()
    cache = CachedReader(inner)
    cache.query("orders", {"due": dt.date(2024, 3, 1)})  # a YAML date
    cache.query("orders", {"due": "2024-03-01"})
    assert inner.asked == [("orders", {"due": "2024-03-01"})]


def test_nan_and_null_are_different_questions() -> None:
    inner = Counting()
    cache = CachedReader(inner)
    cache.query("orders", {"a": float("nan")})
    cache.query("orders", {"a": None})
    assert len(inner.asked) == 2
