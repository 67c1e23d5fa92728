"""Assertion kinds: one module per kind, listed explicitly here. Adding a kind adds one line.

A kind's module is imported the first time a run asks for that kind, so a file that uses three
kinds pays for three (start-up is part of every CI step).
"""

from __future__ import annotations

from typing import Any

from hotato.kinds._base import Evidence, KindDef, Spec
from hotato.model.registry import Registry

# tag -> "module:KindDef" (a team's own kinds come from the `hotato.kinds` entry-point group)
KINDS: dict[str, str] = {
    "tool_call": "hotato.kinds.tool_call:check",
    "tool_result": "hotato.kinds.tool_result:check",
    "tool_error": "hotato.kinds.tool_error:check",
    "http_result": "hotato.kinds.http_result:check",
    "state": "hotato.kinds.state:check",
    "state_change": "hotato.kinds.state_change:check",
    "handoff": "hotato.kinds.handoff:check",
    "dtmf": "hotato.kinds.dtmf:check",
    "termination": "hotato.kinds.termination:check",
    "sequence": "hotato.kinds.sequence:check",
    "count": "hotato.kinds.count:check",
    "latency": "hotato.kinds.latency:check",
    "entity_accuracy": "hotato.kinds.entity_accuracy:check",
    "timing_contract": "hotato.kinds.timing_contract:check",
    "phrase": "hotato.kinds.phrase:check",
    "order": "hotato.kinds.order:check",
    "pii": "hotato.kinds.pii:check",
    "policy": "hotato.kinds.policy:check",
    "outcome": "hotato.kinds.outcome:check",
    "formula": "hotato.kinds.formula:check",
    "claims": "hotato.kinds.claims:check",
    "judge_rubric": "hotato.kinds.rubric:check_judge",
    "human_rubric": "hotato.kinds.rubric:check_human",
}

REGISTRY: Registry[KindDef] = Registry(
    "assertion kind", KindDef, KINDS, group="hotato.kinds", check=lambda tag, k: k.tag == tag
)


def __getattr__(name: str) -> Any:
    if name == "BUILTIN":  # every kind, loaded: for docs and tests
        return tuple(REGISTRY[tag] for tag in REGISTRY.names())
    raise AttributeError(f"module 'hotato.kinds' has no attribute {name!r}")


__all__ = ["BUILTIN", "KINDS", "REGISTRY", "Evidence", "KindDef", "Spec"]
