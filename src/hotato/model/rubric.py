"""The rubric lane's results: a model judge's advisory opinion, or a person's signed label.

They live here, below every layer that reads them (the runner, the scorecard, the renderers),
and are counted apart from the deterministic results (DESIGN law 7)."""

from __future__ import annotations

from enum import StrEnum
from typing import Any

import msgspec


class JudgeStatus(StrEnum):
    PASS = "PASS"
    FAIL = "FAIL"
    INCONCLUSIVE = "INCONCLUSIVE"
    ERROR = "ERROR"  # the judge could not be asked or answered nonsense; never a FAIL


class Provenance(msgspec.Struct, kw_only=True):
    """Which model answered, over which prompt and evidence (digests), and whether the answer
    was replayed from the cache."""

    model: str
    prompt_sha256: str
    input_sha256: str
    cached: bool


class RubricResult(msgspec.Struct, kw_only=True, omit_defaults=True):
    """One criterion's result in the rubric lane. Never counted with the deterministic results.

    `authority` is `human` when a verified, signed label settled the criterion; the judge's own
    answer is then kept as `judge_status` (law 8: a person is an authority, a model never is)."""

    id: str
    kind: str
    deterministic: bool  # always False; no default, so it is always written
    status: JudgeStatus
    reason: str
    human_required: bool
    dimension: str | None = None
    rationale: str | None = None
    provenance: Provenance | None = None
    authority: str | None = None
    judge_status: JudgeStatus | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = msgspec.to_builtins(self)
        return out


__all__ = ["JudgeStatus", "Provenance", "RubricResult"]
