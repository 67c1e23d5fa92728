"""Open the evidence of one call from the paths a user gave."""

from __future__ import annotations

from hotato.engine.evaluate import Sources
from hotato.evidence.transcript import load_transcript
from hotato.model.evidence import Trace


def open_trace(path: str, fmt: str = "auto") -> Trace:
    try:
        from hotato.evidence.ingest import load_any_trace
    except ImportError:  # trace ingest not installed in this build
        from hotato.evidence.trace import load_trace

        return load_trace(path)
    return load_any_trace(path, fmt)


def open_sources(
    trace: str | None = None,
    transcript: str | None = None,
    state: str | None = None,
    state_before: str | None = None,
    trace_format: str = "auto",
) -> Sources:
    """Each argument left out stays None: not supplied, which is not the same as empty."""
    from hotato.adapters import open_state

    return Sources(
        trace=open_trace(trace, trace_format) if trace is not None else None,
        transcript=load_transcript(transcript) if transcript is not None else None,
        state=open_state(state, state_before) if state is not None else None,
    )
