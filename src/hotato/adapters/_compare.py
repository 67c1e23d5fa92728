"""Filter matching for in-memory records: type-strict column equality."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hotato.model.match import dotted, missing, same


def row_matches(row: Mapping[str, Any], filters: Mapping[str, Any]) -> bool:
    for key, want in filters.items():
        got = row[key] if key in row else dotted(row, key)
        if missing(got) or not same(want, got):
            return False
    return True
