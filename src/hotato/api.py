"""The library surface: the same engine the CLI runs, without the CLI.

    from hotato import load_assertions, load_trace, load_transcript, run_assertions

    outcome = run_assertions("assertions.yaml", trace="call.jsonl", transcript="turns.json")
    for result in outcome.results:
        print(result.id, result.status, result.reason)
    outcome.exit_code  # 0, 1 or 2, as `hotato assert run` would exit
"""

from __future__ import annotations

import os

from hotato.engine.loader import AssertionSet, load_assertions
from hotato.engine.packs import merge_packs
from hotato.engine.run import RunOutcome, run
from hotato.engine.sources import open_sources
from hotato.evidence.trace import load_trace
from hotato.evidence.transcript import load_transcript

PathLike = str | os.PathLike[str]


def run_assertions(
    assertions: PathLike | AssertionSet,
    *,
    trace: PathLike | None = None,
    transcript: PathLike | None = None,
    state: str | None = None,
    state_before: str | None = None,
    packs: list[str] | None = None,
    inconclusive_policy: str | None = None,
    trace_format: str = "auto",
) -> RunOutcome:
    """Grade one call. Evidence left as None is "not supplied" and its checks are INCONCLUSIVE.

    Raises hotato.model.errors.InputError for malformed input (the CLI's exit 2).
    """
    aset = assertions if isinstance(assertions, AssertionSet) else load_assertions(assertions)
    aset = merge_packs(aset, packs or [])
    sources = open_sources(
        str(trace) if trace is not None else None,
        str(transcript) if transcript is not None else None,
        state,
        state_before,
        trace_format,
    )
    return run(aset, sources, inconclusive_policy)


__all__ = ["load_assertions", "load_trace", "load_transcript", "run_assertions"]
