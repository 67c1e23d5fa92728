"""Filter matching for in-memory records: type-strict column equality."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hotato.model.match import dotted, missing, same


def field_of(row: Any, key: str) -> Any:
    """`row[key]`, else the dotted path `key` into it (missing() tells when there is none)."""
    if isinstance(row, Mapping) and key in row:
        return row[key]
    return dotted(row, key)


def row_matches(row: Mapping[str, Any], filters: Mapping[str, Any]) -> bool:
    for key, want in filters.items():
        got = field_of(row, key)
        if missing(got) or not same(want, got):
            return False
    return True
