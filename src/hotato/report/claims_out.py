"""Rendering claims: JSON (fixed key order, byte-stable), text, and JUnit via the shared suite.

The exit code is decided with the results (`hotato.runs.claims`); this module only shows them."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

import msgspec

from hotato.claims import Claim, ClaimResult, PackSet
from hotato.claims.results import claim_ids
from hotato.model.reports import ClaimsSummary
from hotato.model.status import Policy

SCHEMA = "hotato.claims.v1"


def packs_doc(packs: PackSet) -> list[dict[str, str]]:
    return [
        {"name": p.info.name, "version": p.info.version, "sha256": p.info.sha256}
        for p in packs.packs
    ]


def check_doc(
    results: Sequence[ClaimResult],
    summary: ClaimsSummary,
    packs: PackSet,
    code: int,
    policy: Policy,
) -> dict[str, Any]:
    return {
        "schema": SCHEMA,
        "exit_code": int(code),
        "inconclusive_policy": policy.value,
        "packs": packs_doc(packs),
        "claims": [msgspec.to_builtins(r) for r in results],
        "summary": summary,
    }


def extract_doc(claims: Sequence[Claim], packs: PackSet) -> dict[str, Any]:
    by_type: dict[str, dict[str, int]] = {}
    for c in claims:
        row = by_type.setdefault(c.type, {})
        row[c.polarity] = row.get(c.polarity, 0) + 1
    polarity = Counter(c.polarity for c in claims)
    return {
        "schema": SCHEMA,
        "packs": packs_doc(packs),
        "claims": [
            {k: v for k, v in msgspec.to_builtins(c).items() if k != "pack"} for c in claims
        ],
        "summary": {
            "claims": len(claims),
            "by_polarity": {p: polarity[p] for p in ("done", "failed", "promised", "negated")},
            "by_type": dict(sorted(by_type.items())),
        },
    }


def _entities(c: Claim | ClaimResult) -> str:
    if not c.entities:
        return ""
    return "  [" + ", ".join(f"{e.kind}={e.value}" for e in c.entities) + "]"


def extract_text(claims: Sequence[Claim], header: str) -> str:
    lines = [header, ""]
    for cid, c in zip(claim_ids(claims), claims, strict=True):
        lines.append(f"  {cid:<14} {c.type:<22} {c.polarity:<9} {c.text!r}{_entities(c)}")
    if not claims:
        lines.append("  no claims found in the agent's turns")
    return "\n".join(lines) + "\n"


def check_text(results: Sequence[ClaimResult], summary: ClaimsSummary, header: str) -> str:
    lines = [header, ""]
    for cid, r in zip(claim_ids(results), results, strict=True):
        word = r.status.value if r.graded else "NOT GRADED"
        lines.append(f"  {word:<12}  {cid:<14} {r.type} ({r.polarity}) {r.text!r}{_entities(r)}")
        lines.append(f"  {'':<12}  {'':<14} {r.reason}")
    if not results:
        lines.append("  no claims found in the agent's turns")
    g = summary.graded
    lines += [
        "",
        f"claims: {g.passed} pass, {g.failed} fail, {g.inconclusive} inconclusive"
        f"; {summary.not_graded} not graded (negated, or promised without --promises)",
    ]
    return "\n".join(lines) + "\n"
