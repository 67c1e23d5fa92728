"""Assertion files (`assert.v1`): YAML or JSON into an AssertionSet, or every problem at once."""

from __future__ import annotations

import os
from collections.abc import Sequence
from functools import cached_property
from typing import Any

import msgspec

from hotato._documents import Document, load_document
from hotato.kinds import REGISTRY
from hotato.kinds._base import Spec
from hotato.kinds._decode import decode_assertion_list, decode_policy, did_you_mean
from hotato.kinds._refs import entries_of, reference_problems
from hotato.model.errors import InputError, Problem
from hotato.model.status import Policy

TOP_KEYS = ["version", "inconclusive_policy", "assertions", "name", "description"]


class AssertionSet(msgspec.Struct, dict=True):
    """A decoded assertions file: its specs in document order, the inconclusive policy it
    sets, the file it came from, and where each id came from (the file or a merged pack)."""

    specs: list[Spec]
    policy: Policy | None = None
    source: str | None = None
    origins: dict[str, str] = {}  # id -> file or pack it came from

    @cached_property
    def order(self) -> list[Spec]:
        """The specs in grading order, each after everything it references; worked out once
        however many calls are graded. A cycle or an unknown id is refused (UsageError)."""
        from hotato.engine.plan import plan

        return plan(self.specs, self.origins)


def find_overall_score(value: Any, path: str = "$") -> str | None:
    """The path of an `overall_score` key anywhere in a document (law 3 refuses them)."""
    if isinstance(value, dict):
        for key, child in value.items():
            if key == "overall_score":
                return f"{path}.{key}"
            found = find_overall_score(child, f"{path}.{key}")
            if found:
                return found
    elif isinstance(value, list):
        for i, child in enumerate(value):
            found = find_overall_score(child, f"{path}[{i}]")
            if found:
                return found
    return None


def overall_score_problem(doc: Document) -> Problem | None:
    where = find_overall_score(doc.value)
    if where is None:
        return None
    return doc.problem(
        where,
        "'overall_score' is refused: hotato reports named conditions and "
        "separate counts, never a blended number",
    )


def decode_assertion_document(doc: Document, packs: Sequence[str] = ()) -> AssertionSet:
    """A decoded assertions file, or every problem in it at once (references included).
    `packs`: the packs that will be merged, whose ids the file may reference."""
    value = doc.value
    if not isinstance(value, dict):
        raise InputError(
            [
                doc.problem(
                    "$", "an assertions file must be a mapping with 'version' and 'assertions'"
                )
            ]
        )
    problems: list[Problem] = []
    score = overall_score_problem(doc)
    if score:
        problems.append(score)
    for key in value:
        if key not in TOP_KEYS and key != "overall_score":  # refused on its own, once
            problems.append(
                doc.problem(f"$.{key}", f"unknown key {key!r}{did_you_mean(key, TOP_KEYS)}")
            )
    version = value.get("version", 1)
    if version != 1:
        problems.append(doc.problem("$.version", f"unsupported version {version!r}; expected 1"))
    if "assertions" not in value:
        problems.append(doc.problem("$", "'assertions' is required"))
    elif value["assertions"] == []:
        problems.append(
            doc.problem(
                "$.assertions",
                "'assertions' is empty: a file that checks nothing would pass vacuously; "
                "list at least one assertion",
            )
        )
    policy, found = decode_policy(value.get("inconclusive_policy"), "$.inconclusive_policy", doc)
    problems += found
    items = value.get("assertions", [])
    specs, found = decode_assertion_list(items, "$.assertions", doc, REGISTRY)
    problems += found
    entries = entries_of(items, "$.assertions", specs)
    problems += reference_problems(entries, doc, REGISTRY, _pack_ids(packs))
    if problems:
        raise InputError(problems)
    return AssertionSet(specs, policy, doc.file, {s.id: doc.file for s in specs})


def _pack_ids(packs: Sequence[str]) -> set[str]:
    if not packs:
        return set()
    from hotato.kinds._packs import load_pack

    return {spec.id for name in packs for spec in load_pack(name).specs}


def load_assertions(path: str | os.PathLike[str], packs: Sequence[str] = ()) -> AssertionSet:
    """An assertions file (YAML or JSON, assert.v1), decoded and checked; InputError, located
    at file:line and JSON path, when it is refused. `packs`: the packs that will be merged
    with it, whose ids it may reference."""
    return decode_assertion_document(load_document(path, "assertions file"), packs)
