"""Per-dimension counts and the named success conditions. No overall score, by design."""

from __future__ import annotations

from typing import Any

from hotato.engine.policy import Tally
from hotato.model.results import Result
from hotato.model.status import DIMENSIONS, Status

RUBRIC_CONDITIONS = frozenset({"no_rubric_failure"})


def dimensions(results: list[Result]) -> dict[str, dict[str, int]]:
    out = {d: Tally.of([r for r in results if r.dimension == d]).as_dict() for d in DIMENSIONS}
    untagged = [r for r in results if r.dimension is None]
    if untagged:
        out["untagged"] = Tally.of(untagged).as_dict()
    return out


def conditions(
    required: list[str],
    deterministic: list[Result],
    rubric: list[dict[str, Any]],
    settled: set[str],
) -> dict[str, bool]:
    """Each required condition, true or false.

    `settled` holds the ids of INCONCLUSIVE results a verified human label settles."""
    statuses = [r.status for r in deterministic]
    inconclusive = [r.id for r in deterministic if r.status is Status.INCONCLUSIVE]
    value = {
        "all_deterministic_assertions_pass": all(s is Status.PASS for s in statuses),
        "no_deterministic_fail": Status.FAIL not in statuses,
        "no_rubric_failure": not any(r["status"] in ("FAIL", "ERROR") for r in rubric),
        "no_inconclusive": not inconclusive,
        "no_unresolved_inconclusive": all(i in settled for i in inconclusive),
    }
    return {name: value[name] for name in required}


def passed(conds: dict[str, bool], gate_judge: bool) -> bool:
    """The rubric lane's condition counts only when the user gates on the judge (law 7)."""
    return all(v for k, v in conds.items() if gate_judge or k not in RUBRIC_CONDITIONS)
