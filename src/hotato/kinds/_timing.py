"""Reading measured timing: a JSON object, or a list of event objects (as a scored run's
`events` list is), searched by a dotted path."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from hotato.model.match import dotted, missing


def _objects(timing: Any) -> Iterator[Any]:
    if isinstance(timing, list):
        yield from timing
    else:
        yield timing


def first_value(timing: Any, path: str, accept: Callable[[Any], bool]) -> Any:
    """The first value at `path` (in the object, or in the first event holding one) that
    `accept` takes; None when none does."""
    for event in _objects(timing):
        value = dotted(event, path)
        if not missing(value) and accept(value):
            return value
    return None


def is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def is_present(value: Any) -> bool:
    return value is not None


def unscorable(timing: Any) -> str | None:
    """Why the timing cannot be read, when every event in it is marked `scorable: false` (a
    recording that could not be scored); None otherwise."""
    events = list(_objects(timing))
    if events and all(isinstance(e, dict) and e.get("scorable") is False for e in events):
        reason = events[0].get("not_scorable_reason")
        return f"the recording could not be scored: {reason or 'no reason given'}"
    return None
