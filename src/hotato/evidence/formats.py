"""The trace formats hotato reads: ONE table, and everything about a source is in its row.

The CLI takes its `--from` / `--trace-format` choices and help from here without importing any
reader (they load only when a file is read). Detection asks each row's `detect` in table order,
so a format that refines another (LiveKit's or Pipecat's OTLP spans before plain OpenTelemetry)
comes first. A name not in the table is refused, never read as some other vendor's file.
"""

from __future__ import annotations

import msgspec

_INGEST = "hotato.evidence.ingest"


class TraceFormat(msgspec.Struct, frozen=True):
    name: str
    reads: str  # what the format is, in a user's words (help, docs, refusals)
    detect: str  # "module:function" taking a Sniffed file, True when the file is this format
    read: str  # "module:function" taking (Sniffed, Emitter)
    aliases: tuple[str, ...] = ()


TABLE: tuple[TraceFormat, ...] = (
    TraceFormat(
        "native",
        "a hotato voice_trace JSONL",
        f"{_INGEST}._bridge:detect_native",
        f"{_INGEST}._bridge:read_native",
        ("voice_trace", "hotato"),
    ),
    TraceFormat(
        "pipecat",
        "Pipecat's OTLP spans (tracer `pipecat`)",
        f"{_INGEST}.pipecat:detect",
        f"{_INGEST}.otel:read_pipecat",
    ),
    TraceFormat(
        "livekit",
        "a LiveKit Agents session report, its chat history, or LiveKit's OTLP spans",
        f"{_INGEST}.livekit:detect",
        f"{_INGEST}.livekit:read",
    ),
    TraceFormat(
        "otel",
        "OTLP/JSON (lines or a document), OTLP protobuf, or the OTel bridge JSONL",
        f"{_INGEST}.otel:detect",
        f"{_INGEST}.otel:read_otel",
        ("otlp", "opentelemetry"),
    ),
    TraceFormat(
        "vapi",
        "a Vapi end-of-call report, another Vapi server message that carries "
        "the call, or a call object",
        f"{_INGEST}.vapi:detect",
        f"{_INGEST}.vapi:read",
    ),
    TraceFormat(
        "retell",
        "a Retell call object or a webhook that carries it "
        "(call_ended, call_analyzed, transcript_updated, transfer_*)",
        f"{_INGEST}.retell:detect",
        f"{_INGEST}.retell:read",
    ),
)

BY_NAME = {f.name: f for f in TABLE}
ALIASES = {alias: f.name for f in TABLE for alias in f.aliases}
NAMES: tuple[str, ...] = tuple(f.name for f in TABLE)
CHOICES: tuple[str, ...] = ("auto", *NAMES)
SHAPES = "; ".join(f.reads for f in TABLE)


def canonical(fmt: str) -> str | None:
    """`auto` or a table name for what a user typed (case and aliases allowed); None if unknown."""
    low = fmt.strip().lower()
    low = ALIASES.get(low, low)
    return low if low == "auto" or low in BY_NAME else None
