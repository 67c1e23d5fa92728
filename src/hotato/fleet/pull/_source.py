"""What a platform supplies to the pull: how to list calls since a time, page after page, and
what each call's id, agent and start time are."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from hotato.fleet.pull._http import Http

Lister = Callable[[Http, datetime, datetime | None, int], Iterator[list[dict[str, Any]]]]


@dataclass(frozen=True)
class Called:
    call_id: str
    agent: str | None
    started_at: str | None  # ISO 8601, UTC


@dataclass(frozen=True)
class Source:
    name: str
    base_url: str
    key_env: str  # the environment variable holding the API key, by default
    pages: Lister
    identify: Callable[[dict[str, Any]], Called]


def call_id_of(value: Any) -> str:
    """A listed call's id as text; ValueError when it has none (absent, null, empty, or not
    a string or number)."""
    if isinstance(value, bool) or not isinstance(value, str | int) or value == "":
        raise ValueError("no call id")
    return str(value)
