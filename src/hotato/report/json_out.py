"""The JSON envelope of `assert run` (DESIGN §4): keys in a fixed order, byte-stable."""

from __future__ import annotations

from typing import Any

import msgspec

from hotato.engine.policy import Tally
from hotato.engine.run import RunOutcome

NOTE = (
    "deterministic counts and the judge count are reported apart and never merged; "
    "judge results are advisory and do not change the exit code"
)


def envelope(outcome: RunOutcome, extra: dict[str, Any] | None = None) -> dict[str, Any]:
    judge = Tally.of(outcome.judge)
    doc: dict[str, Any] = {
        "schema": "assert.v1",
        "exit_code": int(outcome.exit_code),
        "inconclusive_policy": outcome.policy.value,
        "results": [msgspec.to_builtins(r) for r in outcome.results],
        "summary": {
            "deterministic": outcome.tally.as_dict(),
            "judge": {**judge.as_dict(), "total": len(outcome.judge)},
            "by_kind": by_kind(outcome),
            "note": NOTE,
        },
    }
    if extra:
        doc.update(extra)
    return doc


def by_kind(outcome: RunOutcome) -> dict[str, dict[str, int]]:
    kinds: dict[str, list[Any]] = {}
    for r in outcome.deterministic:
        kinds.setdefault(r.kind, []).append(r)
    return {k: Tally.of(v).as_dict() for k, v in kinds.items()}


def dumps(doc: Any) -> str:
    return msgspec.json.format(msgspec.json.encode(doc), indent=2).decode() + "\n"
