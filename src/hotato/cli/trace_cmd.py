"""`hotato trace`: bring traces in from real voice stacks (and sign them, see trace_sign)."""

from __future__ import annotations

import click
import msgspec

from hotato.cli.trace_sign import trace_sign
from hotato.evidence.formats import CHOICES
from hotato.model.errors import UsageError


@click.group("trace")
def trace_group() -> None:
    """Ingest traces from voice stacks into hotato.voice_trace.v1; sign traces."""


@trace_group.command("ingest")
@click.argument("input_path", metavar="INPUT", required=False)
@click.option(
    "--from",
    "source",
    type=click.Choice(CHOICES, case_sensitive=False),
    default=None,
    help="What wrote INPUT (default: auto, detected from the file's shape).",
)
@click.option(
    "--otel",
    "otel_path",
    metavar="FILE",
    default=None,
    help="Same as `INPUT --from otel` (kept for earlier releases).",
)
@click.option("--out", required=True, metavar="FILE", help="Where to write voice_trace JSONL.")
@click.option(
    "--transcript-out",
    metavar="FILE",
    default=None,
    help="Also write the spoken turns as transcript JSON (this file holds their text).",
)
@click.option("--include-text", is_flag=True, help="Keep span text (redacted by default).")
@click.option(
    "--include-identifiers",
    is_flag=True,
    help="Keep call ids, agent ids and source span ids (redacted by default).",
)
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["text", "json"]),
    default="text",
    help="How to report what was written.",
)
def ingest_cmd(
    input_path: str | None,
    source: str | None,
    otel_path: str | None,
    out: str,
    transcript_out: str | None,
    include_text: bool,
    include_identifiers: bool,
    output_format: str,
) -> None:
    """Convert INPUT (OTLP JSON/protobuf, LiveKit, Pipecat, Vapi, Retell) into a hotato trace.

    Spans are ordered by start time (ties in source order), with no wall-clock value, so the
    same input always gives the same bytes. Call ids, agent ids and span text are dropped unless
    asked for. Malformed input is refused (exit 2) with its file, line and JSON path, and
    nothing is written. An OTLP/JSON export of 32 MB or more is converted on two cores, with
    the same output; set HOTATO_SERIAL=1 to use one.
    """
    from hotato.evidence.ingest import ingest

    if otel_path is not None:
        if input_path is not None:
            raise UsageError.one("give the input once: either INPUT or --otel FILE")
        if source not in (None, "otel"):
            raise UsageError.one(f"--otel FILE reads OpenTelemetry; it cannot be --from {source}")
        input_path, source = otel_path, "otel"
    if input_path is None:
        raise UsageError.one("missing INPUT: hotato trace ingest INPUT --out voice_trace.jsonl")
    result = ingest(
        input_path,
        fmt=source or "auto",
        out=out,
        transcript_out=transcript_out,
        include_text=include_text,
        include_identifiers=include_identifiers,
    )
    if output_format == "json":
        report = {
            "kind": "trace-ingest",
            "out": result.out,
            "transcript_out": result.transcript_out,
            "voice_trace": {k: v for k, v in result.meta.items() if k != "_meta"},
            "span_count": result.span_count,
            "span_types": result.span_types,
            "turn_count": result.turn_count,
            "empty": result.empty,
            "redacted": {"text": not include_text, "identifiers": not include_identifiers},
        }
        click.echo(msgspec.json.format(msgspec.json.encode(report), indent=2).decode())
        return
    source_info = result.meta["source"]
    assert isinstance(source_info, dict)
    types = ", ".join(f"{k} {v}" for k, v in result.span_types.items()) or "none"
    click.echo(
        f"wrote {result.span_count} span(s) to {result.out} "
        f"from {source_info['format']} ({source_info['input_span_count']} source record(s))"
    )
    click.echo(f"  span types: {types}")
    if result.transcript_out:
        click.echo(f"  wrote {result.turn_count} turn(s) to {result.transcript_out}")
    hidden = [
        w
        for w, on in (
            ("span text", not include_text),
            ("call and agent ids", not include_identifiers),
        )
        if on
    ]
    if result.empty:
        click.echo(f"  empty: {result.empty}; graded, it is INCONCLUSIVE evidence", err=True)
    if hidden:
        click.echo(
            f"  redacted: {' and '.join(hidden)} (see --include-text, --include-identifiers)"
        )


trace_group.add_command(trace_sign, "sign")
