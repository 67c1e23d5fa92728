"""Evidence from real voice stacks: OpenTelemetry, LiveKit, Pipecat, Vapi and Retell.

`load_any_trace` reads any supported file straight into a `Trace` (nothing is written);
`ingest` converts a file and writes `hotato.voice_trace.v1` JSONL (and a transcript) atomically.
Both redact call ids, agent ids and span text by default and order spans by start time, ties in
source order, so the same input always gives the same spans.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from itertools import islice

from hotato._io import gc_paused
from hotato.evidence.ingest._emit import Emitter, Options
from hotato.evidence.ingest._pipeline import convert, empty_reason, meta, spoken_turns
from hotato.evidence.ingest.detect import FORMATS, classify, detect_format, normalize, sniff
from hotato.evidence.ingest.writer import (
    check_target,
    write_outputs,
    write_trace,
    write_transcript,
)
from hotato.evidence.trace import decode_span, load_trace, read_spans
from hotato.model.errors import InputError
from hotato.model.evidence import CallEvidence, Trace, TraceIndexer, Transcript

_BATCH = 4096


def _trace(em: Emitter, path: str) -> Trace:
    """The converted spans in the native loader's store (`TraceIndexer`: compact spans and the
    indexes the checks read), read as the native loader reads a trace's lines (`read_spans`: a
    run of lines per call, a line with keys of its own, such as a turn's `text`, folded within
    it), a few thousand lines at a time, with the cyclic GC paused."""
    index = TraceIndexer()
    lines = em.col.lines()
    with gc_paused():
        while batch := list(islice(lines, _BATCH)):
            at = 0
            while (at := read_spans(index, batch, at)) < len(batch):
                index.add(decode_span(batch[at]), batch[at])  # raises what stopped the run
                at += 1
    return index.trace(meta(em), path)


@dataclass
class IngestResult:
    out: str
    transcript_out: str | None
    meta: dict[str, object]
    span_count: int
    span_types: dict[str, int] = field(default_factory=dict)
    turn_count: int = 0
    empty: str | None = None  # why a recognised export yielded no call evidence


def load_call(path: str | os.PathLike[str], fmt: str = "auto") -> CallEvidence:
    """The trace and the transcript a stack's export carries, read once, nothing written.

    `fmt` is `auto` (detected) or one of `FORMATS`. A native voice_trace has no transcript of
    its own. `empty` is set when a vendor export held no tool call, handoff, keypad tone, HTTP
    exchange or spoken turn: grading it would be grading nothing, so callers report the trace
    as INCONCLUSIVE evidence rather than a clean call. Malformed input raises InputError.
    """
    wanted = normalize(fmt)
    if wanted == "native":
        return CallEvidence(load_trace(path))
    sn = None
    if wanted == "auto":
        sn = sniff(path)  # read once: detected here, then converted from the same read
        wanted = classify(sn)
        if wanted == "native":
            return CallEvidence(load_trace(path))
    em = convert(path, wanted, sniffed=sn)
    try:
        trace = _trace(em, str(path))
        turns = spoken_turns(em)
        said = Transcript(turns, path=str(path)) if turns or em.never_connected else None
        return CallEvidence(trace, said, empty_reason(em))
    finally:
        em.col.close()


def load_any_trace(path: str | os.PathLike[str], fmt: str = "auto") -> Trace:
    """A `Trace` from a native voice_trace JSONL or any supported stack's file, without writing.

    `fmt` is `auto` (detected) or one of `FORMATS`. Spans are exactly those `hotato trace
    ingest` would write, with the same default redaction. Malformed input raises InputError
    naming file, line and JSON path. `load_call` also gives the transcript the file carries.
    """
    return load_call(path, fmt).trace


def ingest(
    path: str | os.PathLike[str],
    *,
    fmt: str = "auto",
    out: str | os.PathLike[str],
    transcript_out: str | os.PathLike[str] | None = None,
    include_text: bool = False,
    include_identifiers: bool = False,
) -> IngestResult:
    """Convert `path` and write the trace (and transcript) atomically; nothing partial on error."""
    trace_target = check_target(out, "--out")
    transcript_target = (
        check_target(transcript_out, "--transcript-out") if transcript_out is not None else None
    )
    if transcript_target is not None and transcript_target.resolve() == trace_target.resolve():
        raise InputError.one("--out and --transcript-out name the same file", file=str(out))
    opts = Options(
        include_text=include_text,
        include_identifiers=include_identifiers,
        want_transcript=transcript_target is not None,
    )
    em = convert(path, fmt, opts)
    try:
        if transcript_target is not None and not em.ordered_turns() and not em.never_connected:
            raise InputError.one(
                "the input records no spoken text, so there is no transcript to write; "
                "drop --transcript-out",
                file=str(path),
            )
        targets = [(trace_target, lambda h: write_trace(em, h))]
        if transcript_target is not None:
            targets.append((transcript_target, lambda h: write_transcript(em, h)))
        write_outputs(targets)
        return IngestResult(
            out=str(out),
            transcript_out=str(transcript_out) if transcript_out is not None else None,
            meta=meta(em),
            span_count=len(em.col),
            span_types=dict(sorted(em.col.counts.items())),
            turn_count=len(em.ordered_turns()),
            empty=empty_reason(em),
        )
    finally:
        em.col.close()


__all__ = [
    "FORMATS",
    "CallEvidence",
    "IngestResult",
    "detect_format",
    "ingest",
    "load_any_trace",
    "load_call",
]
