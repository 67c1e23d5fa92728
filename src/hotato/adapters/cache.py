"""The per-run front of every reader: an identical question reaches the system of record once.

Filter values are made JSON values first (a YAML date is its ISO text, as a database's date is),
so the same question in two spellings is one question, and readers see JSON values only.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hotato.adapters._values import to_json_value
from hotato.model.state import NoSnapshot, StateReader, StateUnavailable

_Answer = dict[str, Any] | None | StateUnavailable | NoSnapshot


class CachedReader:
    """Wraps a reader for one run. Answers, "no such record" and could-not-read are all kept, so
    a dead system of record is not asked (and waited on) again for the same question."""

    def __init__(self, reader: StateReader) -> None:
        self.reader = reader
        self._answers: dict[str, _Answer] = {}
        self.sent = 0  # queries that reached the underlying reader

    def query(self, resource: str, filters: Mapping[str, Any]) -> dict[str, Any] | None:
        wanted = {str(k): to_json_value(v) for k, v in filters.items()}
        key = _key(resource, wanted)
        if key not in self._answers:
            self.sent += 1
            try:
                self._answers[key] = self.reader.query(resource, wanted)
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


def _key(resource: str, filters: dict[str, Any]) -> str:
    # repr keeps types apart ("1" vs 1 vs True vs None vs nan), so type-strict questions never
    # share an answer; a spelling difference deeper down only costs a second read.
    return repr((resource, sorted(filters.items())))
