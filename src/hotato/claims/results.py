"""Graded claims as ordinary `Result`s (id `claim-t<turn>-<n>`, kind `claims`), so their exit
code follows the same inconclusive policy as `assert run` and JUnit shows them as any result."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from hotato.claims.check import ClaimResult
from hotato.claims.extract import Claim
from hotato.model.results import Result


def claim_ids(items: Sequence[Claim | ClaimResult]) -> list[str]:
    """Stable ids: the turn, then the claim's position within its turn."""
    seen: Counter[int] = Counter()
    out = []
    for c in items:
        seen[c.turn] += 1
        out.append(f"claim-t{c.turn}-{seen[c.turn]}")
    return out


def as_results(results: Sequence[ClaimResult]) -> list[Result]:
    """The graded claims, as assertion results."""
    return [
        Result(
            id=cid,
            kind="claims",
            deterministic=True,
            status=r.status,
            reason=f"{r.type} ({r.polarity}) {r.text!r}: {r.reason}",
            evidence=r.evidence,
        )
        for cid, r in zip(claim_ids(results), results, strict=True)
        if r.graded
    ]
