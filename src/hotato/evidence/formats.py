"""The trace formats hotato reads: ONE table, and everything about a source is in its row.

The CLI takes its `--from` / `--trace-format` choices and help from here without importing any
reader (they load only when a file is read). Detection asks each row's `detect` in table order,
so a format that refines another (LiveKit's or Pipecat's OTLP spans before plain OpenTelemetry)
comes first. A name not in the table is refused, never read as some other vendor's file.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import msgspec

from hotato.model.registry import Registry

if TYPE_CHECKING:
    from hotato.evidence.ingest._emit import Emitter
    from hotato.evidence.ingest.detect import Sniffed

_INGEST = "hotato.evidence.ingest"


class TraceReader(msgspec.Struct, frozen=True):
    """What a format's module offers: is a sniffed file this format, and read it into spans."""

    detect: Callable[[Sniffed], bool]
    read: Callable[[Sniffed, Emitter], None]


class TraceFormat(msgspec.Struct, frozen=True):
    name: str
    reads: str  # what the format is, in a user's words (help, docs, refusals)
    reader: str  # "module:TraceReader", imported when a file is detected or read
    aliases: tuple[str, ...] = ()


TABLE: tuple[TraceFormat, ...] = (
    TraceFormat(
        "native",
        "a hotato voice_trace JSONL",
        f"{_INGEST}._bridge:NATIVE",
        ("voice_trace", "hotato"),
    ),
    TraceFormat(
        "pipecat",
        "Pipecat's OTLP spans (tracer `pipecat`)",
        f"{_INGEST}.otel:PIPECAT",
    ),
    TraceFormat(
        "livekit",
        "a LiveKit Agents session report, its chat history, or LiveKit's OTLP spans",
        f"{_INGEST}.otel:LIVEKIT",
    ),
    TraceFormat(
        "otel",
        "OTLP/JSON (lines or a document), OTLP protobuf, or the OTel bridge JSONL",
        f"{_INGEST}.otel:OTEL",
        ("otlp", "opentelemetry"),
    ),
    TraceFormat(
        "vapi",
        "a Vapi end-of-call report, another Vapi server message that carries "
        "the call, or a call object",
        f"{_INGEST}.vapi:VAPI",
    ),
    TraceFormat(
        "retell",
        "a Retell call object or a webhook that carries it "
        "(call_ended, call_analyzed, transcript_updated, transfer_*)",
        f"{_INGEST}.retell:RETELL",
    ),
)

BY_NAME = {f.name: f for f in TABLE}
READERS: Registry[TraceReader] = Registry(
    "trace format", TraceReader, {f.name: f.reader for f in TABLE}
)
ALIASES = {alias: f.name for f in TABLE for alias in f.aliases}
NAMES: tuple[str, ...] = tuple(f.name for f in TABLE)
CHOICES: tuple[str, ...] = ("auto", *NAMES)
SHAPES = "; ".join(f.reads for f in TABLE)


def canonical(fmt: str) -> str | None:
    """`auto` or a table name for what a user typed (case and aliases allowed); None if unknown."""
    low = fmt.strip().lower()
    low = ALIASES.get(low, low)
    return low if low == "auto" or low in BY_NAME else None
