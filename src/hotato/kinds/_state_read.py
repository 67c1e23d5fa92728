"""One place where kinds read a system of record and keep the read as evidence."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hotato.model.state import NoSnapshot, StateRead, StateReader, StateSource, StateUnavailable


def read(
    source: StateSource,
    reader: StateReader,
    *,
    assertion_id: str,
    kind: str,
    phase: str,
    resource: str,
    filters: Mapping[str, Any],
    expect: Any,
) -> dict[str, Any] | None:
    """The record, or None when read and absent. StateUnavailable and NoSnapshot propagate."""
    entry = StateRead(assertion_id, kind, phase, resource, dict(filters), expect, None)
    source.reads.append(entry)
    try:
        record = reader.query(resource, filters)
    except StateUnavailable as exc:
        entry.error = {"cause": exc.cause, "message": exc.message}
        raise
    except NoSnapshot as exc:
        entry.error = {"cause": "no_snapshot", "message": str(exc)}
        raise
    entry.observed = record
    return record
