"""What was said beside what was done: transcript turns and trace spans on one time axis.

Pure data for the page: rows in time order, each in the `said` or the `done` lane, with the
checks that cite it. Rendering (and escaping) is the template's job.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import msgspec

from hotato.model.evidence import Span, Trace, Transcript, Turn

# Audio activity spans repeat the transcript's timing; the page shows the turns instead.
QUIET_SUFFIXES = ("_audio_active",)
QUIET_TYPES = frozenset({"llm_first_token"})
MAX_ROWS = 400  # a long call keeps every cited row, and the first rows up to this many


@dataclass
class Cite:
    """A check that rests on a row: its anchor, id and status."""

    anchor: str
    id: str
    status: str


@dataclass
class Row:
    ref: str  # s_3 or t_2, as results name their evidence
    anchor: str
    lane: str  # said | done
    time: float | None
    end: float | None
    title: str  # a role (said) or a span type and tool name (done)
    text: str = ""
    fields: list[tuple[str, str]] = field(default_factory=list)  # label, value (JSON text)
    problem: bool = False  # a tool error, a failed status
    cites: list[Cite] = field(default_factory=list)
    left: str = "0"  # position on the call's time axis, percent
    width: str = "0"


@dataclass
class Timeline:
    rows: list[Row]
    duration: float | None
    hidden: int  # rows left out of a long call
    has_trace: bool
    has_transcript: bool


def pretty(value: Any) -> str:
    """A value as indented JSON, keys in the order the evidence gave them."""
    return msgspec.json.format(msgspec.json.encode(value), indent=2).decode()


def _span_fields(span: Span) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for label in ("to", "by", "reason", "digits", "method", "url", "status_code", "status"):
        value = getattr(span, label)
        if value is not None:
            out.append((label, str(value)))
    for label, raw in (
        ("arguments", span.arguments_raw),
        ("result", span.result_raw),
        ("error", span.error_raw),
        ("response", span.response_raw),
    ):
        if raw:
            out.append((label, pretty(msgspec.json.decode(raw))))
    if span.latency_ms is not None:
        out.append(("latency_ms", f"{span.latency_ms:g}"))
    return out


def _span_row(span: Span, anchor: str) -> Row:
    title = span.type if span.name is None else f"{span.type} {span.name}"
    return Row(
        ref=span.id,
        anchor=anchor,
        lane="done",
        time=span.time,
        end=span.end_sec,
        title=title,
        fields=_span_fields(span),
        problem=span.raised(),
    )


def _quiet(span: Span) -> bool:
    return span.type in QUIET_TYPES or span.type.endswith(QUIET_SUFFIXES)


def build(
    trace: Trace | None,
    transcript: Transcript | None,
    cites: dict[str, list[Cite]],
    prefix: str,
) -> Timeline:
    """Rows of the call in time order (untimed rows last, in evidence order). A long call keeps
    its first MAX_ROWS rows and every row a check cites; only kept rows are built, so a
    million-span trace costs a sort, not a million decoded payloads."""
    said: list[Turn] = transcript.turns if transcript is not None else []
    done: list[Span] = (
        [s for s in trace.spans if not _quiet(s) or s.id in cites] if trace is not None else []
    )
    # Said before done at the same instant, each in its evidence order (a stable sort).
    items: list[Turn | Span] = [*said, *done]
    order = sorted(range(len(items)), key=lambda i: _when(items[i]))
    kept = [i for n, i in enumerate(order) if n < MAX_ROWS or _ref(items[i]) in cites]
    rows = [_row(items[i], prefix) for i in kept]
    for row in rows:
        row.cites = cites.get(row.ref, [])
    duration = _place(rows)
    return Timeline(
        rows, duration, len(order) - len(kept), trace is not None, transcript is not None
    )


def _when(item: Turn | Span) -> tuple[bool, float]:
    t = item.start if isinstance(item, Turn) else item.time
    return (t is None, t if t is not None else 0.0)


def _ref(item: Turn | Span) -> str:
    return item.id


def _row(item: Turn | Span, prefix: str) -> Row:
    if isinstance(item, Span):
        return _span_row(item, f"{prefix}{item.id}")
    return Row(
        ref=item.id,
        anchor=f"{prefix}{item.id}",
        lane="said",
        time=item.start,
        end=item.end,
        title=item.role,
        text=item.text,
    )


def _place(rows: list[Row]) -> float | None:
    """Each timed row's position on the axis, as fixed-precision percentages."""
    ends = [r.end if r.end is not None else r.time for r in rows if r.time is not None]
    ends = [e for e in ends if e is not None]
    if not ends:
        return None
    duration = max(max(ends), 0.0)
    for row in rows:
        if row.time is None or duration <= 0:
            continue
        start = min(max(row.time, 0.0), duration)
        end = row.end if row.end is not None and row.end >= start else start
        row.left = f"{100 * start / duration:.2f}"
        row.width = f"{max(100 * (min(end, duration) - start) / duration, 0.6):.2f}"
    return duration
