"""Per-dimension counts and the named success conditions. No overall score, by design."""

from __future__ import annotations

from collections.abc import Mapping

from msgspec.structs import replace

from hotato.model.reports import Counts, Figures
from hotato.model.results import Result
from hotato.model.rubric import JudgeStatus, RubricResult
from hotato.model.status import DIMENSIONS, Status

RUBRIC_CONDITIONS = frozenset({"no_rubric_failure"})
_RUBRIC_FAILURES = frozenset({JudgeStatus.FAIL, JudgeStatus.ERROR})

HumanVerdicts = Mapping[str, frozenset[Status]]
"""Per assertion id, the verdicts verified human labels give it (several when in conflict)."""


def settle_rubric(rubric: list[RubricResult], human: HumanVerdicts) -> list[RubricResult]:
    """The rubric shelf with each criterion a person labelled showing that person's verdict,
    `authority: human` (law 8: a person is an authority, a model never is). Labels in conflict
    settle nothing and say so. A judge's own answer is kept beside it as `judge_status`."""
    shelf = []
    for result in rubric:
        verdicts = human.get(result.id)
        if not verdicts:
            shelf.append(result)
            continue
        if len(verdicts) > 1:
            shown = sorted(v.value for v in verdicts)
            reason = f"verified human labels disagree ({shown}); nothing is settled"
            shelf.append(replace(result, reason=reason))
            continue
        (verdict,) = verdicts
        shelf.append(
            replace(
                result,
                status=JudgeStatus(verdict.value),
                authority="human",
                reason=f"settled by a verified, signed human label: {verdict.value}",
                judge_status=result.status if result.kind == "judge_rubric" else None,
            )
        )
    return shelf


def settled_pass(human: HumanVerdicts) -> set[str]:
    """Ids a person confirmed as PASS, every label agreeing. Only these settle an INCONCLUSIVE."""
    return {i for i, v in human.items() if v == {Status.PASS}}


def human_failures(human: HumanVerdicts) -> list[str]:
    """Ids a person judged FAIL (in conflict or not). A person's FAIL never becomes success."""
    return sorted(i for i, v in human.items() if Status.FAIL in v)


def dimensions(results: list[Result]) -> dict[str, Counts]:
    out = {d: Counts.of([r for r in results if r.dimension == d]) for d in DIMENSIONS}
    untagged = [r for r in results if r.dimension is None]
    if untagged:
        out["untagged"] = Counts.of(untagged)
    return out


def scorecard(
    results: list[Result], report_dimensions: list[str], reliability: Figures
) -> dict[str, Counts]:
    """The dimensions a test reports, in its order, and no others (plus `untagged` when a
    result carries no dimension). The Reliability row carries the reliability figures (pass@1,
    pass@k, pass^k, the Wilson interval) beside the counts of results tagged `reliability`."""
    rows = dimensions(results)
    card = {d: rows[d] for d in report_dimensions}
    if "reliability" in card:
        card["reliability"] = reliability.row(card["reliability"])
    if "untagged" in rows:
        card["untagged"] = rows["untagged"]
    return card


def conditions(
    required: list[str],
    deterministic: list[Result],
    rubric: list[RubricResult],
    human: HumanVerdicts,
) -> dict[str, bool]:
    """Each required condition, true or false.

    `human` holds the verified human verdicts; an INCONCLUSIVE is settled only by an agreed PASS."""
    statuses = [r.status for r in deterministic]
    settled = settled_pass(human)
    inconclusive = [r.id for r in deterministic if r.status is Status.INCONCLUSIVE]
    value = {
        "all_deterministic_assertions_pass": all(s is Status.PASS for s in statuses),
        "no_deterministic_fail": Status.FAIL not in statuses,
        "no_rubric_failure": not any(r.status in _RUBRIC_FAILURES for r in rubric),
        "no_inconclusive": not inconclusive,
        "no_unresolved_inconclusive": all(i in settled for i in inconclusive),
    }
    return {name: value[name] for name in required}


def passed(conds: dict[str, bool], gate_judge: bool, human: HumanVerdicts | None = None) -> bool:
    """The rubric lane's condition counts only when the user gates on the judge (law 7); a
    person's FAIL fails the run whatever the required conditions say (law 8)."""
    if human and human_failures(human):
        return False
    return all(v for k, v in conds.items() if gate_judge or k not in RUBRIC_CONDITIONS)
