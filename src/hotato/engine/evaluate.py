"""Grade every assertion against the evidence: one pass, each kind handed only what it reads."""

from __future__ import annotations

from typing import Any

import msgspec

from hotato.engine.plan import plan
from hotato.kinds import REGISTRY
from hotato.kinds._base import Spec, run_check
from hotato.model.evidence import Trace, Transcript
from hotato.model.results import Result, Verdict
from hotato.model.state import StateSource
from hotato.model.status import Status


class Sources(msgspec.Struct):
    """The evidence of one call. None means "not supplied", never "supplied and empty"."""

    trace: Trace | None = None
    transcript: Transcript | None = None
    state: StateSource | None = None
    timing: Any = None  # a JSON object or a list of event objects (see kinds.latency)
    # why a source given on the command line counts as not supplied (an export that held no
    # call evidence), by source name; checks that read it are INCONCLUSIVE with this cause
    gaps: dict[str, str] = {}

    def close(self) -> None:
        """Release what the state source holds open (database connections, HTTP clients)."""
        close = getattr(self.state, "close", None)
        if close is not None:
            close()


def _when_unmet(spec: Spec, done: dict[str, Result]) -> Verdict | None:
    unmet = [w for w in spec.when if done[w].status is not Status.PASS]
    if not unmet:
        return None
    states = {w: done[w].status.value for w in unmet}
    return Verdict.inconclusive(f"skipped: 'when' requires {states} to PASS first", skipped=True)


def grade(spec: Spec, sources: Sources, done: dict[str, Result]) -> Result:
    kdef = REGISTRY[str(spec.__struct_config__.tag)]
    verdict = _when_unmet(spec, done) or run_check(kdef, spec, sources, done)
    return Result(
        id=spec.id,
        kind=kdef.tag,
        deterministic=kdef.deterministic,
        status=verdict.status,
        reason=verdict.reason,
        dimension=spec.dimension,
        skipped=verdict.skipped,
        observed=verdict.observed,
        evidence=verdict.evidence,
        details=verdict.details,
    )


def evaluate(
    specs: list[Spec],
    sources: Sources,
    origins: dict[str, str] | None = None,
    order: list[Spec] | None = None,
) -> list[Result]:
    """Results in document order; references are graded before whatever reads them (`order`:
    the specs' plan when the caller has it, see `AssertionSet.order`)."""
    done: dict[str, Result] = {}
    for spec in order if order is not None else plan(specs, origins):
        done[spec.id] = grade(spec, sources, done)
    return [done[s.id] for s in specs]
