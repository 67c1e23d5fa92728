"""The state-adapter seam (Authority 2): what a system of record answers, or why it could not."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

import msgspec


class StateUnavailable(Exception):
    """The system of record could not be read. `cause` is a short typed reason code."""

    def __init__(self, cause: str, message: str) -> None:
        super().__init__(message)
        self.cause = cause  # e.g. connection_refused, timeout, auth_failed, http_5xx, sql_error
        self.message = message


class NoSnapshot(Exception):
    """No before-snapshot exists for this resource: a state_change cannot be judged."""


class StateReader(Protocol):
    def query(self, resource: str, filters: Mapping[str, Any]) -> dict[str, Any] | None:
        """The first record of `resource` matching every filter, None when there is none.

        Raises StateUnavailable when the system of record cannot be read.
        """
        ...


class StateRead(msgspec.Struct):
    """One read, kept as evidence: what was asked and what was observed (or why not)."""

    assertion_id: str
    kind: str
    phase: str  # "after" or "before"
    resource: str
    filters: dict[str, Any]
    expect: Any
    observed: dict[str, Any] | None
    error: dict[str, str] | None = None


class StateSource(msgspec.Struct):
    """The state evidence of one run: the post-call reader, and the before-snapshot reader."""

    after: StateReader
    before: StateReader | None = None
    description: str = ""
    reads: list[StateRead] = []
