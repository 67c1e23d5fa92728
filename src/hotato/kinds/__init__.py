"""Assertion kinds: one module per kind, listed explicitly here. Adding a kind adds one line."""

from __future__ import annotations

from hotato.kinds import (
    count,
    dtmf,
    formula,
    handoff,
    http_result,
    latency,
    order,
    outcome,
    phrase,
    pii,
    policy,
    rubric,
    sequence,
    state,
    state_change,
    termination,
    tool_call,
    tool_error,
    tool_result,
)
from hotato.kinds._base import Evidence, KindDef, Spec

BUILTIN: tuple[KindDef, ...] = (
    tool_call.check,
    tool_result.check,
    tool_error.check,
    http_result.check,
    state.check,
    state_change.check,
    handoff.check,
    dtmf.check,
    termination.check,
    sequence.check,
    count.check,
    latency.check,
    phrase.check,
    order.check,
    pii.check,
    policy.check,
    outcome.check,
    formula.check,
    rubric.check_judge,
    rubric.check_human,
)

REGISTRY: dict[str, KindDef] = {k.tag: k for k in BUILTIN}

__all__ = ["BUILTIN", "REGISTRY", "Evidence", "KindDef", "Spec"]
