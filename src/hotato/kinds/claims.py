"""claims: does every action the agent said it did (or said failed) match the record?"""

from __future__ import annotations

from typing import Literal

import msgspec

from hotato.claims import Options, check_claims, load_packs, summary
from hotato.claims.catalog import load_catalog
from hotato.kinds._base import Evidence, Spec, kind
from hotato.model.errors import InputError
from hotato.model.results import Verdict
from hotato.model.status import Source, Status

GradedPolarity = Literal["done", "failed", "promised"]
REASON_LIMIT = 3  # claims named in the reason; every claim is under details.claims


class Claims(Spec, tag="claims", frozen=True):
    """Finds the claims of completed (or failed) actions in the agent's turns with claim packs
    (the bundled `core` pack, plus `packs`: bundled names or pack files) and grades each one
    against the trace and, where a pack's type asks, the system of record. `types` limits the
    claim types graded; `polarity` the polarities (default `done` and `failed`; add `promised`
    to require that promised actions follow later in the call); `tools` the agent's tool
    catalog file (claims are aligned with its tools; without it, with the tools the trace
    shows). Negated and hypothetical claims are never graded. `details.claims` lists every
    claim with its status and reason.

    Passes when every graded claim is backed: a matching tool span succeeded with the values
    that were said (and the state agrees where the pack asks), or a claimed failure matches a
    failed or absent action; with no claim found, passes vacuously.
    Fails when any claim's action never ran or failed, ran with other values, or a claimed
    failure contradicts a success.
    Inconclusive when no claim fails and one cannot be settled: no transcript, no trace, no
    state for a type that asks the system of record, or a claim that no tool of the catalog
    answers to while other actions ran.

    Example:
        - id: said-equals-done
          kind: claims
          types: [refund_issued, order_cancelled]
          dimension: outcome
    """

    types: tuple[str, ...] | None = None
    polarity: tuple[GradedPolarity, ...] = ("done", "failed")
    packs: tuple[str, ...] = ()
    tools: str | None = None  # the agent's tool catalog file; else the trace's tools


def _validate(spec: Claims) -> list[str]:
    try:
        packs = load_packs(spec.packs)
    except InputError as exc:
        return [f"packs: {p}" for p in exc.problems]
    known = set(packs.by_name)
    problems = [
        f"types: no claim type {t!r} in the packs (known: {', '.join(sorted(known))})"
        for t in spec.types or ()
        if t not in known
    ]
    if not spec.polarity:
        problems.append("'polarity' needs at least one of done, failed, promised")
    if spec.tools is not None:
        try:
            load_catalog(spec.tools)
        except InputError as exc:
            problems += [f"tools: {p}" for p in exc.problems]
    return problems


@kind(
    Claims,
    reads={Source.TRANSCRIPT, Source.TRACE, Source.STATE},
    validate=_validate,
    partial=True,
)
def check(spec: Claims, ev: Evidence) -> Verdict:
    if ev.transcript is None:
        return Verdict.inconclusive(
            "no transcript was supplied (--transcript); claims are read from what the agent said",
            details={"missing": "transcript"},
        )
    packs = load_packs(spec.packs)
    wanted = set(spec.types) if spec.types is not None else None
    catalog = load_catalog(spec.tools) if spec.tools is not None else None
    options = Options(promises="promised" in spec.polarity, catalog=catalog)
    results = [  # every claim is graded in order (a read-back shapes the next claim), then kept
        r
        for r in check_claims(ev.transcript, ev.trace, packs, ev.state, options)
        if (wanted is None or r.type in wanted) and r.polarity in spec.polarity
    ]
    graded = [r for r in results if r.graded]
    status = next(
        (s for s in (Status.FAIL, Status.INCONCLUSIVE) if any(r.status is s for r in graded)),
        Status.PASS,
    )
    totals = summary(results)
    g = totals.graded
    tally = f"{g.passed} pass, {g.failed} fail, {g.inconclusive} inconclusive"
    if not graded:
        reason = "no claim of a completed or failed action found in the agent's turns"
    elif status is Status.PASS:
        reason = f"every claim is backed by the record ({tally})"
    else:
        notable = [r for r in graded if r.status is status][:REASON_LIMIT]
        named = "; ".join(f"t_{r.turn} {r.type} {r.text!r}: {r.reason}" for r in notable)
        reason = f"{tally}: {named}"
    evidence = [e for r in graded if r.status is status for e in r.evidence]
    return Verdict(
        status=status,
        reason=reason,
        observed=msgspec.to_builtins(g),
        evidence=list(dict.fromkeys(evidence))[:20],
        details={
            "packs": [f"{p.info.name}@{p.info.version}" for p in packs.packs],
            "claims": [
                {
                    "turn": r.turn,
                    "span": list(r.span),
                    "text": r.text,
                    "type": r.type,
                    "polarity": r.polarity,
                    "status": r.status.value,
                    "reason": r.reason,
                    "evidence": r.evidence,
                }
                for r in graded
            ],
        },
    )
