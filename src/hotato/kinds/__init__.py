"""Assertion kinds: one module per kind, listed explicitly here. Adding a kind adds one line.

A kind's module is imported the first time a run asks for that kind, so a file that uses three
kinds pays for three (start-up is part of every CI step).
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping
from typing import Any

from hotato.kinds._base import Evidence, KindDef, Spec

# tag -> (module in hotato.kinds, the KindDef's name in it)
KINDS: dict[str, tuple[str, str]] = {
    "tool_call": ("tool_call", "check"),
    "tool_result": ("tool_result", "check"),
    "tool_error": ("tool_error", "check"),
    "http_result": ("http_result", "check"),
    "state": ("state", "check"),
    "state_change": ("state_change", "check"),
    "handoff": ("handoff", "check"),
    "dtmf": ("dtmf", "check"),
    "termination": ("termination", "check"),
    "sequence": ("sequence", "check"),
    "count": ("count", "check"),
    "latency": ("latency", "check"),
    "entity_accuracy": ("entity_accuracy", "check"),
    "timing_contract": ("timing_contract", "check"),
    "phrase": ("phrase", "check"),
    "order": ("order", "check"),
    "pii": ("pii", "check"),
    "policy": ("policy", "check"),
    "outcome": ("outcome", "check"),
    "formula": ("formula", "check"),
    "claims": ("claims", "check"),
    "judge_rubric": ("rubric", "check_judge"),
    "human_rubric": ("rubric", "check_human"),
}


class Registry(Mapping[str, KindDef]):
    """The built-in kinds by tag, each loaded on first use."""

    def __init__(self) -> None:
        self._loaded: dict[str, KindDef] = {}

    def __getitem__(self, tag: str) -> KindDef:
        found = self._loaded.get(tag)
        if found is None:
            module, attr = KINDS[tag]  # KeyError for an unknown kind, as a Mapping should
            found = getattr(importlib.import_module(f"hotato.kinds.{module}"), attr)
            assert isinstance(found, KindDef) and found.tag == tag, tag
            self._loaded[tag] = found
        return found

    def __iter__(self) -> Iterator[str]:
        return iter(KINDS)

    def __len__(self) -> int:
        return len(KINDS)


REGISTRY = Registry()


def __getattr__(name: str) -> Any:
    if name == "BUILTIN":  # every kind, loaded: for docs and tests
        return tuple(REGISTRY[tag] for tag in KINDS)
    raise AttributeError(f"module 'hotato.kinds' has no attribute {name!r}")


__all__ = ["BUILTIN", "KINDS", "REGISTRY", "Evidence", "KindDef", "Registry", "Spec"]
