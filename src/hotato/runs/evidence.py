"""Evidence given as a path or as an already loaded object: both are accepted everywhere."""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import msgspec

from hotato.engine.evaluate import Sources
from hotato.engine.sources import call_sources
from hotato.model.errors import InputError
from hotato.model.evidence import CallEvidence, Trace, Transcript
from hotato.model.state import StateReader, StateSource

if TYPE_CHECKING:
    from hotato.kinds._base import Spec

PathLike = str | os.PathLike[str]
TraceInput = PathLike | Trace | CallEvidence
TranscriptInput = PathLike | Transcript
StateInput = PathLike | StateReader | StateSource


class Call(msgspec.Struct, frozen=True):
    """One recorded call given to `run_trials` as objects: each piece a path or an already
    loaded object (a Trace or CallEvidence, a Transcript, a state reader). `name` is how the
    results name the trial (default `call-1`, `call-2`, ... in the order given)."""

    trace: TraceInput | None = None
    transcript: TranscriptInput | None = None
    state: StateInput | None = None
    name: str | None = None


def loaded(value: Any) -> bool:
    """True for evidence given as an object rather than a path (or not given)."""
    return value is not None and not isinstance(value, str | os.PathLike)


def is_reader(value: Any) -> bool:
    """A user's own state reader: any object with `query(resource, filters)`."""
    return callable(getattr(value, "query", None))


def call_of(
    trace: TraceInput | None, trace_format: str, verified: str | None = None
) -> CallEvidence | None:
    """What a trace file holds (a stack's export also carries its transcript); a loaded Trace
    or CallEvidence is taken as it is."""
    if trace is None or isinstance(trace, CallEvidence):
        return trace
    if isinstance(trace, Trace):
        return CallEvidence(trace)
    from hotato.engine.sources import open_call

    return open_call(os.fspath(trace), trace_format, verified)


def transcript_of(transcript: TranscriptInput | None) -> Transcript | None:
    if transcript is None or isinstance(transcript, Transcript):
        return transcript
    from hotato.evidence.transcript import load_transcript

    return load_transcript(os.fspath(transcript))


def path_of(value: Any, what: str) -> str | None:
    """The path of a file argument, or None; an object where a path is needed is refused."""
    if value is None:
        return None
    if isinstance(value, str | os.PathLike):
        return os.fspath(value)
    raise InputError.one(f"{what} must be a path here, not a {type(value).__name__}")


def state_source(
    state: StateInput | None, state_before: PathLike | None, *, evidence: bool = False
) -> StateSource | None:
    """A StateSource for one call. A path opens its adapter (closed with the call's Sources); a
    user's reader object is asked through a per-call cache and never closed by hotato.
    `evidence`: the path was found beside a call, so it is opened as data only (a sandbox or a
    SQLite file, never an adapter: see hotato.adapters.open)."""
    if state is None or isinstance(state, StateSource):
        return state
    before = os.fspath(state_before) if state_before is not None else None
    if is_reader(state):
        from hotato.adapters.cache import CachedReader
        from hotato.adapters.sandbox import read_sandbox

        return StateSource(
            after=CachedReader(state),  # type: ignore[arg-type]
            before=CachedReader(read_sandbox(before).as_before()) if before else None,
            description=f"reader {type(state).__name__}",
        )
    from hotato.adapters import open_state

    return open_state(os.fspath(state), before, evidence=evidence)  # type: ignore[arg-type]


def sources_of(
    trace: TraceInput | None = None,
    transcript: TranscriptInput | None = None,
    state: StateInput | None = None,
    state_before: PathLike | None = None,
    trace_format: str = "auto",
    trace_sha256: str | None = None,
    evidence_state: bool = False,
) -> Sources:
    """The Sources of one call from paths or loaded objects (None: not supplied): the one
    builder every use case opens a call's evidence with. `trace_sha256`: the digest an
    authenticated trace's signature covers. `evidence_state`: a `state` path was found beside
    the call (data only)."""
    return call_sources(
        call_of(trace, trace_format, trace_sha256),
        transcript_of(transcript),
        state_source(state, state_before, evidence=evidence_state),
    )


def attach_timing(
    sources: Sources,
    specs: Iterable[Spec],
    timing: PathLike | None,
    audio: PathLike | None,
    layout: str = "caller-left",
) -> None:
    """A call's timing evidence, the one way both grading doors (`assert run`'s Grader and
    `test run`) open it: the timing file when one is given, else the recording scored (its
    channels read by `layout`), and only when one of `specs` reads timing."""
    if timing is not None:
        from hotato.evidence.timing import load_timing

        sources.timing = load_timing(timing)
    elif audio is not None:
        from hotato.runs.timing import reads_timing, recorded_timing

        if reads_timing(specs):
            sources.timing = recorded_timing(audio, layout).events
