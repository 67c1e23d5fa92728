"""The JSON sandbox: `{resource: rows}`, rows being a list, one record, or before/after snapshots.

A sandbox states whole tables: a resource it lists answers None when no row matches ("read and
no such row"). A resource it does not list is no answer at all: the after side raises
StateUnavailable(unknown_resource), the before side raises NoSnapshot, so a state_change over it
is INCONCLUSIVE, never "unchanged". A snapshot written by `hotato state snapshot` states only
the questions it captured (its `_meta.captures`); a question it did not capture is NoSnapshot.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass, field
from heapq import merge
from typing import Any, NoReturn

import msgspec

from hotato._io import read_json_file
from hotato.adapters._compare import field_of, row_matches
from hotato.adapters.snapshot import META_KEY, Capture, SnapshotMeta
from hotato.model.errors import InputError, Problem
from hotato.model.match import missing, same
from hotato.model.state import NoSnapshot, StateUnavailable

Rows = list[dict[str, Any]]


def _indexable(value: Any) -> bool:
    """A value a dict can find again: hashable, and equal to itself (NaN is not)."""
    return isinstance(value, Hashable) and value == value


def _column_index(rows: Rows, key: str) -> tuple[dict[Any, list[int]], list[int]]:
    """Each row's place under the value it holds at `key` (equal numbers share a bucket: 1,
    1.0 and True hash alike, and `same` then tells them apart), and the rows whose value
    cannot be looked up (unhashable, or NaN), which every question tries."""
    by_value: dict[Any, list[int]] = {}
    anyhow: list[int] = []
    for i, row in enumerate(rows):
        got = field_of(row, key)
        if missing(got):
            continue
        if _indexable(got):
            by_value.setdefault(got, []).append(i)
        else:
            anyhow.append(i)
    return by_value, anyhow


class SandboxReader:
    """Reads one phase (`after` or `before`) of a sandbox or snapshot document."""

    def __init__(
        self,
        tables: dict[str, Rows],
        label: str,
        phase: str = "after",
        captures: list[Capture] | None = None,
    ) -> None:
        self.tables = tables
        self.label = label
        self.phase = phase
        self.captures = captures
        # (resource, column) -> (rows by the column's value, rows to try whatever is asked)
        self._indexes: dict[tuple[str, str], tuple[dict[Any, list[int]], list[int]]] = {}

    def query(self, resource: str, filters: Mapping[str, Any]) -> dict[str, Any] | None:
        rows = self.tables.get(resource)
        if rows is None:
            self._no_answer(f"the {self.label} holds no resource {resource!r}")
        for i in self._candidates(resource, rows, filters):
            if row_matches(rows[i], filters):
                return rows[i]
        if self.captures is not None:
            self._from_captures(resource, filters)
        return None

    def _candidates(self, resource: str, rows: Rows, filters: Mapping[str, Any]) -> Iterable[int]:
        """The rows that may match `filters`, in order: those holding the first filter's value
        (from an index of that column, built once per resource and column), else every row.
        Each is still held to `row_matches`: the index only narrows."""
        key, want = next(iter(filters.items()), (None, None))
        if (
            key is None
            or not isinstance(want, Hashable)
            or (isinstance(want, float) and want != want)
        ):
            return range(len(rows))
        index = self._indexes.get((resource, key))
        if index is None:
            index = self._indexes[(resource, key)] = _column_index(rows, key)
        by_value, anyhow = index
        return merge(by_value.get(want, ()), anyhow)

    def close(self) -> None:
        """Nothing to release: the document was read when the source was opened."""

    def _from_captures(self, resource: str, filters: Mapping[str, Any]) -> None:
        """Returns when the captures prove there was no such row; raises otherwise."""
        covering = [
            c
            for c in self.captures or ()
            if c.resource == resource
            and all(k in filters and same(v, filters[k]) for k, v in c.filters.items())
        ]
        # No row matched a question at most as narrow as this one: none matches this one either.
        if any(c.error is None and not c.found for c in covering):
            return None
        for capture in covering:
            if capture.error is not None:
                raise StateUnavailable(
                    capture.error.cause,
                    f"when the {self.label} was taken, "
                    f"{resource!r} could not be read: {capture.error.message}",
                )
        asked = [c.filters for c in self.captures or () if c.resource == resource]
        self._no_answer(
            f"the {self.label} did not capture {resource!r} for {dict(filters)} "
            f"(it captured {asked or 'nothing for it'})"
        )

    def _no_answer(self, message: str) -> NoReturn:
        if self.phase == "before":
            raise NoSnapshot(message)
        raise StateUnavailable("unknown_resource", message)


@dataclass
class Sandbox:
    file: str
    after: dict[str, Rows] = field(default_factory=dict)
    before: dict[str, Rows] = field(default_factory=dict)
    plain: set[str] = field(default_factory=set)  # resources given as rows, not before/after
    captures: list[Capture] | None = None

    def after_reader(self) -> SandboxReader:
        return SandboxReader(self.after, f"state sandbox {self.file}", "after", self.captures)

    def before_reader(self) -> SandboxReader | None:
        """The before side of a sandbox that has one."""
        if not self.before:
            return None
        return SandboxReader(self.before, f"before side of {self.file}", "before", self.captures)

    def as_before(self) -> SandboxReader:
        """The whole file as a before snapshot (`--state-before`): before sides and plain rows."""
        tables = {r: rows for r, rows in self.after.items() if r in self.plain}
        tables.update(self.before)
        return SandboxReader(tables, f"before snapshot {self.file}", "before", self.captures)


def read_sandbox(path: str) -> Sandbox:
    return parse_sandbox(read_json_file(path, "state sandbox"), path)


def parse_sandbox(doc: Any, path: str) -> Sandbox:
    if not isinstance(doc, dict):
        raise InputError.one(
            "a state sandbox must be a JSON object {resource: rows}", file=path, path="$"
        )
    box = Sandbox(path)
    problems: list[Problem] = []
    for resource, rows in doc.items():
        where = f"$.{resource}"
        if resource == META_KEY:
            box.captures = _captures(rows, path, problems)
        elif isinstance(rows, dict) and ("before" in rows or "after" in rows):
            for phase, bucket in (("before", box.before), ("after", box.after)):
                if phase in rows:
                    got = _rows(rows[phase], path, f"{where}.{phase}", problems)
                    if got is not None:
                        bucket[resource] = got
        elif (got := _rows(rows, path, where, problems)) is not None:
            box.after[resource] = got
            box.plain.add(resource)
    if problems:
        raise InputError(problems)
    return box


def _captures(value: Any, file: str, problems: list[Problem]) -> list[Capture] | None:
    try:
        return msgspec.convert(value, SnapshotMeta).captures
    except msgspec.ValidationError as exc:
        message, _, at = str(exc).partition(" - at `")
        path = f"$.{META_KEY}" + (at.rstrip("`")[1:] if at.startswith("$") else "")
        problems.append(Problem(f"not a hotato state snapshot header: {message}", file, path=path))
        return None


def _rows(value: Any, file: str, where: str, problems: list[Problem]) -> Rows | None:
    if isinstance(value, dict):
        return [value]
    if isinstance(value, list) and all(isinstance(r, dict) for r in value):
        return value
    problems.append(
        Problem("rows must be a record, a list of records, or {before, after}", file, path=where)
    )
    return None
