"""Claims of one call as use cases: find them (`claims extract`) and grade them against the
record (`claims check`). The CLI renders what comes back; nothing here prints or exits."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from hotato.claims import Claim, ClaimResult, Options, PackSet, check_claims, extract, load_packs
from hotato.claims import summary as summarise
from hotato.model.errors import UsageError
from hotato.model.reports import ClaimsSummary
from hotato.model.status import ExitCode, Policy


@dataclass(frozen=True)
class ClaimsFound:
    packs: PackSet
    claims: list[Claim]


@dataclass(frozen=True)
class ClaimsGraded:
    packs: PackSet
    results: list[ClaimResult]
    summary: ClaimsSummary
    policy: Policy
    exit_code: ExitCode


def find_claims(transcript: str, packs: Sequence[str] = ()) -> ClaimsFound:
    """The claims in the agent's turns of a transcript file."""
    from hotato.evidence.transcript import load_transcript

    pack_set = load_packs(packs)
    return ClaimsFound(pack_set, extract(load_transcript(transcript).turns, pack_set))


def grade_claims(
    transcript: str,
    trace: str | None = None,
    state: str | None = None,
    packs: Sequence[str] = (),
    types: Sequence[str] = (),
    promises: bool = False,
    policy: Policy = Policy.REPORT,
    trace_format: str = "auto",
    tools: str | None = None,
) -> ClaimsGraded:
    """Every claim of one call graded against its trace (and state, where a pack asks).
    `types` keeps only those claim types in the results; every claim is still graded in
    order, since a read-back shapes the claim after it. `tools`: the agent's tool catalog
    file; without it, claims are aligned with the tools the trace shows."""
    from hotato.claims.catalog import load_catalog
    from hotato.claims.results import as_results
    from hotato.engine.policy import exit_code
    from hotato.runs.evidence import sources_of

    pack_set = load_packs(packs)
    unknown = sorted(set(types) - set(pack_set.by_name))
    if unknown:
        known = ", ".join(sorted(pack_set.by_name))
        raise UsageError.one(f"unknown claim type(s) {', '.join(unknown)} (known: {known})")
    catalog = load_catalog(tools) if tools is not None else None
    sources = sources_of(trace, transcript, state, None, trace_format)
    assert sources.transcript is not None
    results = check_claims(
        sources.transcript, sources.trace, pack_set, sources.state, Options(promises, catalog)
    )
    if types:
        results = [r for r in results if r.type in types]
    code = exit_code(as_results(results), policy)
    return ClaimsGraded(pack_set, results, summarise(results), policy, code)
