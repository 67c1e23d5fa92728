"""Per-call variables: `${call.order_id}` in an assertion takes the value of the call's manifest
column, so one assertions file grades every call against its own record.

A string that is exactly one reference takes the column's value with its type (an integer
stays an integer); a reference inside a longer string is replaced by the value's text.

In a pattern (a phrase's `regex`, an order's `before`/`after`, ...) the value is matched
literally: "Chris (Kit)" stays those characters and ".*" matches only a dot and a star. The
explicit `${call.COLUMN:regex}` inserts the value as a pattern, for a column that holds one."""

from __future__ import annotations

import re
from typing import Any

import msgspec

from hotato.model.errors import InputError, Problem
from hotato.runs.fleet import AssertionSet, Spec

REFERENCE = re.compile(r"\$\{call\.([A-Za-z_][A-Za-z0-9_]*)(:regex)?\}")

# The fields each kind reads as a regular expression (at any depth: an outcome's parts).
PATTERN_FIELDS: dict[str, frozenset[str]] = {
    "phrase": frozenset({"regex"}),
    "order": frozenset({"before", "after"}),
    "count": frozenset({"phrase"}),
    "outcome": frozenset({"phrase"}),
    "tool_error": frozenset({"error_matches"}),
    "http_result": frozenset({"url_matches"}),
}


def _strings(value: Any, path: str) -> list[tuple[str, str]]:
    if isinstance(value, str):
        return [(path, value)]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in _strings(v, f"{path}.{k}")]
    if isinstance(value, list):
        return [s for i, v in enumerate(value) for s in _strings(v, f"{path}[{i}]")]
    return []


def references(aset: AssertionSet) -> dict[str, list[tuple[str, str]]]:
    """Column name -> the (JSON path, assertion kind) places that use it."""
    found: dict[str, list[tuple[str, str]]] = {}
    for i, spec in enumerate(aset.specs):
        doc = msgspec.to_builtins(spec)
        for path, text in _strings(doc, f"$.assertions[{i}]"):
            for name, _ in REFERENCE.findall(text):
                found.setdefault(name, []).append((path, str(doc.get("kind", ""))))
    return found


def check_references(aset: AssertionSet, columns: list[str], manifest: str) -> list[str]:
    """The columns the assertions use; refuses, before any call is graded, a reference to a
    column the manifest does not have."""
    found = references(aset)
    problems = [
        Problem(
            f"${{call.{name}}} names no column of the manifest {manifest} "
            f"(its columns: {', '.join(columns) or 'none'})",
            file=aset.source,
            path=path,
            kind=kind or None,
        )
        for name, places in found.items()
        if name not in columns
        for path, kind in places
    ]
    problems += [
        Problem(
            f"${{call.{name}:regex}} is only for a pattern field "
            f"({', '.join(sorted(PATTERN_FIELDS.get(kind, ())) or ['none for this kind'])}); "
            f"use ${{call.{name}}} here",
            file=aset.source,
            path=path,
            kind=kind or None,
        )
        for i, spec in enumerate(aset.specs)
        for kind in [spec_kind(spec)]
        for path, text in _strings(msgspec.to_builtins(spec), f"$.assertions[{i}]")
        for name, raw in REFERENCE.findall(text)
        if raw and _field(path) not in PATTERN_FIELDS.get(kind, frozenset())
    ]
    if problems:
        raise InputError(problems)
    return sorted(found)


def spec_kind(spec: Spec) -> str:
    return str(msgspec.to_builtins(spec).get("kind", ""))


def _field(path: str) -> str:
    """The key a JSON path ends in: `$.assertions[2].all_of[0].phrase` -> `phrase`."""
    return re.sub(r"\[\d+\]$", "", path).rsplit(".", 1)[-1]


def _substitute(value: Any, lookup: dict[str, Any], patterns: frozenset[str], key: str = "") -> Any:
    """`value` with its references replaced; under a key in `patterns`, escaped for a pattern
    unless the reference asks for `:regex`."""
    if isinstance(value, str):
        pattern = key in patterns
        whole = REFERENCE.fullmatch(value)
        if whole and not pattern:
            return lookup[whole.group(1)]

        def text(m: re.Match[str]) -> str:
            raw = _as_text(lookup[m.group(1)])
            return raw if m.group(2) or not pattern else re.escape(raw)

        return REFERENCE.sub(text, value)
    if isinstance(value, dict):
        return {k: _substitute(v, lookup, patterns, k) for k, v in value.items()}
    if isinstance(value, list):
        return [_substitute(v, lookup, patterns, key) for v in value]
    return value


def _as_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    return msgspec.json.encode(value).decode()


class Binder:
    """Binds one call's values into the assertions. Built once per job: only the assertions
    holding a reference are re-decoded per call; the rest are shared as they are."""

    def __init__(self, aset: AssertionSet, used: list[str]) -> None:
        self.aset = aset
        self.used = used
        self._templates: dict[int, Any] = {}
        if used:
            for i, spec in enumerate(aset.specs):
                doc = msgspec.to_builtins(spec)
                if _strings_with_references(doc):
                    self._templates[i] = doc

    def bind(self, values: dict[str, Any]) -> AssertionSet:
        """The assertions with this call's values in place of its references. A column this
        call leaves empty is refused for this call."""
        if not self._templates:
            return self.aset
        empty = [name for name in self.used if values.get(name) is None]
        if empty:
            raise InputError.one(
                "the call has no value for "
                + ", ".join(f"${{call.{name}}}" for name in empty)
                + " used by the assertions"
            )
        specs: list[Spec] = list(self.aset.specs)
        for i, doc in self._templates.items():
            spec = specs[i]
            try:
                patterns = PATTERN_FIELDS.get(str(doc.get("kind", "")), frozenset())
                specs[i] = msgspec.convert(_substitute(doc, values, patterns), type(spec))
            except msgspec.ValidationError as exc:
                raise InputError.one(
                    f"assertion {spec.id!r} with this call's values is invalid: {exc}"
                ) from None
        return msgspec.structs.replace(self.aset, specs=specs)


def _strings_with_references(doc: Any) -> bool:
    return any(REFERENCE.search(text) for _, text in _strings(doc, "$"))
