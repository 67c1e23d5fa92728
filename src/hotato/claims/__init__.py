"""Claims: what an agent said it did, found in its turns and checked against the record.

Deterministic and versioned: claim packs (YAML, RE2) say how each claim type is recognised and
which tools, spans and state back it. No model is asked anything.

    packs = load_packs(["core", "team-claims.yaml"])
    claims = extract(transcript.turns, packs)
    results = check_claims(transcript, trace, packs, state=state)
"""

from __future__ import annotations

from hotato.claims.check import ClaimResult, Options, check_claims, summary
from hotato.claims.entities import Entity, extract_entities
from hotato.claims.extract import Claim, extract
from hotato.claims.pack import BUNDLED, PackInfo, PackSet, load_pack, load_packs

__all__ = [
    "BUNDLED",
    "Claim",
    "ClaimResult",
    "Entity",
    "Options",
    "PackInfo",
    "PackSet",
    "check_claims",
    "extract",
    "extract_entities",
    "load_pack",
    "load_packs",
    "summary",
]
