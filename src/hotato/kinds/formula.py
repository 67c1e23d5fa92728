"""formula: a boolean or weighted combination of other assertions' results."""

from __future__ import annotations

from hotato.kinds import _formula
from hotato.kinds._base import Evidence, Spec, kind
from hotato.kinds._regex import clip
from hotato.model.results import Verdict
from hotato.model.status import Source, Status


class Formula(Spec, tag="formula", frozen=True):
    """Combines other assertions by id with `and`, `or`, `not`, parentheses and weighted sums
    (`0.6*a + 0.4*b >= 0.5`). Parsed, never `eval`ed. PASS counts as 1, FAIL as 0.

    Passes when the expression is true whatever the inconclusive references turn out to be.
    Fails when it is false whatever they turn out to be.
    Inconclusive when its value depends on an inconclusive reference (`a and b` with `a`
    inconclusive and `b` passing), so an INCONCLUSIVE propagates exactly as far as it matters.
    Ids may contain `-`; write subtraction with spaces (`a - b`).

    Example:
        - id: refund-really-happened
          kind: formula
          expr: "refund-tool and (refund-row or refund-api)"
    """

    expr: str


def _validate(spec: Formula) -> list[str]:
    try:
        _formula.parse(spec.expr)
    except _formula.FormulaError as exc:
        return [f"cannot parse expr {clip(spec.expr)!r}: {exc}"]
    return []


def _refs(spec: Formula) -> list[str]:
    return _formula.refs(_formula.parse(spec.expr))


@kind(Formula, reads={Source.RESULTS}, validate=_validate, refs=_refs)
def check(spec: Formula, ev: Evidence) -> Verdict:
    tree = _formula.parse(spec.expr)
    names = _formula.refs(tree)
    truth: dict[str, bool | None] = {}
    for name in names:
        status = ev.results[name].status
        truth[name] = None if status is Status.INCONCLUSIVE else status is Status.PASS
    value = _formula.truth_of(_formula.evaluate(tree, truth))
    shown = {n: ev.results[n].status.value for n in dict.fromkeys(names)}
    if value is None:
        unknown = [n for n, t in truth.items() if t is None]
        return Verdict.inconclusive(
            f"{spec.expr!r} depends on inconclusive {unknown}", observed=shown
        )
    if value:
        return Verdict.passed(f"{spec.expr!r} holds", observed=shown)
    return Verdict.failed(f"{spec.expr!r} does not hold", observed=shown)
