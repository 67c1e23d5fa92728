"""The JSON sandbox: `{resource: rows}`, rows being a list, one record, or before/after snapshots."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hotato._io import read_json_file
from hotato.adapters._compare import row_matches
from hotato.model.errors import InputError, Problem
from hotato.model.state import StateUnavailable


class SandboxReader:
    """Reads one phase (`after` or `before`) of a sandbox document."""

    def __init__(self, tables: dict[str, list[dict[str, Any]]], label: str) -> None:
        self.tables = tables
        self.label = label

    def query(self, resource: str, filters: Mapping[str, Any]) -> dict[str, Any] | None:
        rows = self.tables.get(resource)
        if rows is None:
            raise StateUnavailable(
                "unknown_resource", f"the {self.label} holds no resource {resource!r}"
            )
        for row in rows:
            if row_matches(row, filters):
                return row
        return None


def load_sandbox(path: str) -> tuple[SandboxReader, SandboxReader | None]:
    """The after reader, and a before reader when any resource carries snapshots."""
    doc = read_json_file(path, "state sandbox")
    if not isinstance(doc, dict):
        raise InputError.one("a state sandbox must be a JSON object {resource: rows}", file=path, path="$")
    after: dict[str, list[dict[str, Any]]] = {}
    before: dict[str, list[dict[str, Any]]] = {}
    problems: list[Problem] = []
    for resource, rows in doc.items():
        where = f"$.{resource}"
        if isinstance(rows, dict) and ("before" in rows or "after" in rows):
            for phase, bucket in (("before", before), ("after", after)):
                if phase in rows:
                    got = _rows(rows[phase], path, f"{where}.{phase}", problems)
                    if got is not None:
                        bucket[resource] = got
            continue
        got = _rows(rows, path, where, problems)
        if got is not None:
            after[resource] = got
    if problems:
        raise InputError(problems)
    return SandboxReader(after, "state sandbox"), (
        SandboxReader(before, "before snapshot") if before else None
    )


def _rows(value: Any, file: str, where: str, problems: list[Problem]) -> list[dict[str, Any]] | None:
    if isinstance(value, dict):
        return [value]
    if isinstance(value, list) and all(isinstance(r, dict) for r in value):
        return value
    problems.append(Problem("rows must be a record, a list of records, or {before, after}", file, path=where))
    return None

