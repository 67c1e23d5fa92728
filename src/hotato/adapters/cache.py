"""The per-run cache: an identical query (same resource and filters) reaches the system once."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec

from hotato.model.state import NoSnapshot, StateReader, StateUnavailable

_Answer = dict[str, Any] | None | StateUnavailable | NoSnapshot


class CachedReader:
    """Wraps a reader for one run. Answers, "no such record" and could-not-read are all kept, so
    a dead system of record is not asked (and waited on) again for the same question."""

    def __init__(self, reader: StateReader) -> None:
        self.reader = reader
        self._answers: dict[bytes, _Answer] = {}
        self.sent = 0  # queries that reached the underlying reader

    def query(self, resource: str, filters: Mapping[str, Any]) -> dict[str, Any] | None:
        key = _key(resource, filters)
        if key not in self._answers:
            self.sent += 1
            try:
                self._answers[key] = self.reader.query(resource, filters)
            except (StateUnavailable, NoSnapshot) as exc:
                self._answers[key] = exc
        answer = self._answers[key]
        if isinstance(answer, StateUnavailable | NoSnapshot):
            raise answer.with_traceback(None)  # raised again and again: keep no frames alive
        return answer

    def close(self) -> None:
        self._answers.clear()
        close = getattr(self.reader, "close", None)
        if close is not None:
            close()


def _key(resource: str, filters: Mapping[str, Any]) -> bytes:
    # JSON keeps types apart ("1" vs 1 vs true), so type-strict questions never share an answer.
    try:
        return msgspec.json.encode([resource, dict(filters)], order="sorted")
    except (TypeError, msgspec.EncodeError):
        return msgspec.json.encode([resource, repr(sorted(filters.items(), key=str))])
