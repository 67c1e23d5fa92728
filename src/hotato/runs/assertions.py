"""Grade one call against an assertions file (`hotato assert run`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from hotato.engine.loader import AssertionSet, load_assertions
from hotato.engine.run import RunOutcome, run
from hotato.runs.trace_auth import auth_doc, authenticate, verified_digest

if TYPE_CHECKING:
    from hotato.artifacts.trace_auth import TraceAuth


@dataclass
class AssertionsRun:
    """One call graded against an assertions file: the outcome, and the trace's authentication
    when a check of its signature was asked for."""

    outcome: RunOutcome
    auth: TraceAuth | None = None

    @property
    def exit_code(self) -> int:
        return int(self.outcome.exit_code)

    def extra(self) -> dict[str, Any] | None:
        """The envelope's extra keys: `trace_auth` when the trace's signature was checked."""
        return {"trace_auth": auth_doc(self.auth)} if self.auth is not None else None


def grade_assertions(
    assertions: str | AssertionSet,
    *,
    packs: Sequence[str] = (),
    trace: str | None = None,
    transcript: str | None = None,
    state: str | None = None,
    state_before: str | None = None,
    trace_format: str = "auto",
    trace_keys: Sequence[str] = (),
    require_signed_trace: bool = False,
    inconclusive_policy: str | None = None,
) -> AssertionsRun:
    """Load (when given a path), merge packs, check the plan, authenticate the trace when asked,
    read the evidence and grade. Raises InputError for anything refused."""
    from hotato.engine.packs import merge_packs
    from hotato.engine.plan import plan
    from hotato.engine.sources import open_sources

    aset = assertions if isinstance(assertions, AssertionSet) else load_assertions(assertions)
    aset = merge_packs(aset, list(packs))
    plan(aset.specs, aset.origins)  # refuse cycles and unknown ids before reading evidence
    auth = authenticate(trace, tuple(trace_keys), require_signed_trace)
    sources = open_sources(
        trace, transcript, state, state_before, trace_format, verified_digest(auth)
    )
    return AssertionsRun(run(aset, sources, inconclusive_policy), auth)
