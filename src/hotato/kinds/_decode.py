"""Assertion documents into typed specs, with every problem located and reported at once."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

import msgspec

from hotato._documents import Document
from hotato.kinds._base import KindDef, Spec
from hotato.model.errors import Problem
from hotato.model.status import Policy


def did_you_mean(word: str, choices: list[str]) -> str:
    import difflib  # only on the way out with a problem

    close = difflib.get_close_matches(word, choices, n=1, cutoff=0.6)
    return f"; did you mean {close[0]!r}?" if close else ""


def field_names(spec: type[Spec]) -> list[str]:
    return [*spec.__struct_encode_fields__, "kind"]


@functools.cache
def required_fields(spec: type[Spec]) -> list[str]:
    """The encoded names of fields without a default. Read from the struct's own tables (the
    defaults align with the trailing fields): msgspec.inspect took ~2 ms per assertion."""
    fields, defaults = spec.__struct_fields__, spec.__struct_defaults__
    offset = len(fields) - len(defaults)
    return [
        spec.__struct_encode_fields__[i]
        for i in range(len(fields))
        if i < offset or defaults[i - offset] is msgspec.NODEFAULT
    ]


def decode_spec(
    item: Any, path: str, doc: Document, registry: Mapping[str, KindDef]
) -> tuple[Spec | None, list[Problem]]:
    """One assertion object at `path` into its spec, or the problems that stop it."""
    if not isinstance(item, dict):
        return None, [doc.problem(path, f"an assertion must be a mapping, got {_tn(item)}")]
    kind_name = item.get("kind")
    ident = item.get("id")
    if not isinstance(kind_name, str):
        msg = "'kind' is required" if kind_name is None else "'kind' must be a string"
        return None, [doc.problem(path, msg + f" (one of: {', '.join(sorted(registry))})")]
    kdef = registry.get(kind_name)
    if kdef is None:
        hint = did_you_mean(kind_name, sorted(registry))
        return None, [doc.problem(f"{path}.kind", f"unknown kind {kind_name!r}{hint}")]
    problems: list[Problem] = []
    # Name the assertion in every problem once its id is known: `(phrase 'said-refund')`.
    label = f"{kind_name} {ident!r}" if isinstance(ident, str) and ident else kind_name
    if not isinstance(ident, str) or not ident:
        problems.append(
            doc.problem(path, "'id' is required and must be a non-empty string", kind_name)
        )
    known = field_names(kdef.spec)
    for key in item:
        if key not in known:
            problems.append(
                doc.problem(
                    f"{path}.{key}", f"unknown key {key!r}{did_you_mean(key, known)}", label
                )
            )
    for key in required_fields(kdef.spec):
        if key not in item and key != "id":  # a missing id is reported above
            problems.append(doc.problem(path, f"{key!r} is required", label))
    if problems:
        return None, problems
    if isinstance(item.get("when"), str):  # `when: some-id`, shorthand for a one-id list
        item = {**item, "when": [item["when"]]}
    try:
        spec = msgspec.convert(item, kdef.spec)
    except msgspec.ValidationError as exc:
        return None, [_located(doc, path, str(exc), label)]
    if kdef.validate is not None:
        for message in kdef.validate(spec):
            problems.append(doc.problem(path, message, label))
    return (None if problems else spec), problems


def decode_assertion_list(
    items: Any, path: str, doc: Document, registry: Mapping[str, KindDef]
) -> tuple[list[Spec], list[Problem]]:
    """A list of assertions: each decoded, ids unique, every problem kept."""
    if not isinstance(items, list):
        return [], [doc.problem(path, f"'assertions' must be a list, got {type(items).__name__}")]
    specs: list[Spec] = []
    problems: list[Problem] = []
    seen: dict[str, str] = {}
    for i, item in enumerate(items):
        where = f"{path}[{i}]"
        spec, found = decode_spec(item, where, doc, registry)
        problems += found
        if spec is None:
            continue
        if spec.id in seen:
            problems.append(
                doc.problem(where, f"duplicate id {spec.id!r} (first at {seen[spec.id]})")
            )
            continue
        seen[spec.id] = where
        specs.append(spec)
    return specs, problems


def _located(doc: Document, base: str, message: str, kind_name: str) -> Problem:
    """msgspec says `... - at `$.count``; re-root that path under the assertion's own."""
    sub = ""
    if " - at `$" in message:
        message, _, tail = message.partition(" - at `$")
        sub = tail.rstrip("`")
    return doc.problem(base + sub, message, kind_name)


def decode_policy(value: Any, path: str, doc: Document) -> tuple[Policy | None, list[Problem]]:
    if value is None:
        return None, []
    try:
        return Policy(value), []
    except ValueError:
        choices = [p.value for p in Policy]
        return None, [
            doc.problem(
                path,
                f"inconclusive_policy must be one of {choices}, got {value!r}"
                f"{did_you_mean(str(value), choices)}",
            )
        ]


def _tn(value: Any) -> str:
    return "null" if value is None else type(value).__name__
