"""Grade one call against an assertions file (`hotato assert run`)."""

from __future__ import annotations

from collections.abc import Sequence

from hotato.engine.loader import AssertionSet
from hotato.runs.evidence import PathLike, StateInput, TraceInput, TranscriptInput
from hotato.runs.grader import Grader
from hotato.runs.result import AssertionsResult


def grade_assertions(
    assertions: PathLike | AssertionSet,
    *,
    packs: Sequence[str] = (),
    trace: TraceInput | None = None,
    transcript: TranscriptInput | None = None,
    state: StateInput | None = None,
    state_before: PathLike | None = None,
    trace_format: str = "auto",
    trace_keys: Sequence[str] = (),
    require_signed_trace: bool = False,
    inconclusive_policy: str | None = None,
    keep_evidence: bool = False,
    timing: PathLike | None = None,
    audio: PathLike | None = None,
    audio_layout: str = "caller-left",
) -> AssertionsResult:
    """Load (when given a path), merge packs, check the plan, authenticate the trace when asked,
    read the evidence and grade. Raises InputError for anything refused."""
    with Grader(
        assertions,
        state=state,
        state_before=state_before,
        packs=packs,
        inconclusive_policy=inconclusive_policy,
        trace_format=trace_format,
        trace_keys=trace_keys,
        require_signed_trace=require_signed_trace,
    ) as grader:
        return grader.grade(
            trace=trace,
            transcript=transcript,
            keep_evidence=keep_evidence,
            timing=timing,
            audio=audio,
            audio_layout=audio_layout,
        )
