"""Small readers over trace spans shared by several kinds."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any, TypeVar

import msgspec

from hotato.model.evidence import Span, Trace, Transcript
from hotato.model.failure import failure_text

T = TypeVar("T")


def derived(evidence: Trace | Transcript, key: Hashable, build: Callable[[], T]) -> T:
    """A value computed from a trace (or transcript) once per run, however many assertions ask.

    Kept on the evidence object itself, as its own `cached_property` indexes are, so it lives
    exactly as long as the evidence does. A run costs O(spans + matches), not O(assertions x
    spans): a check that scans spans asks for its scan here, keyed by what it depends on.
    """
    memo = evidence.memo
    if key not in memo:
        memo[key] = build()
    value: T = memo[key]
    return value


def as_object(value: Any) -> Any:
    """Tool arguments and results are sometimes JSON strings; read them as JSON when they are."""
    if isinstance(value, str) and value[:1] in ("{", "["):
        try:
            return msgspec.json.decode(value)
        except msgspec.DecodeError:
            return value
    return value


class Indexes:
    """The trace indexes of spans listed in trace order, as a sorted sequence to bisect: each
    read when a bisection asks for it, so no list of a million places is ever built."""

    def __init__(self, spans: list[Span]) -> None:
        self.spans = spans

    def __len__(self) -> int:
        return len(self.spans)

    def __getitem__(self, i: int) -> int:
        return self.spans[i].index

    def upto(self, n: int) -> list[int]:
        return [s.index for s in self.spans[:n]]


EVIDENCE_LIMIT = 20  # span ids a verdict lists as its evidence


def span_ids(spans: list[Span], limit: int = EVIDENCE_LIMIT) -> list[str]:
    return [s.id for s in spans[:limit]]


def _is_text(value: Any) -> bool:
    return isinstance(value, str | dict) and bool(value)


def error_text(span: Span) -> str:
    # The text, when the span holds one beside a bare flag (`error: true, message: ...`).
    err = span.read("error_text", _is_text) or span.read("error_text")
    if err is None:
        if span.type == "tool_timeout":
            return "timeout"
        told = failure_text(span.read("result"))  # the tool's own words, in what it returned
        if told is not None:
            return told
        return str(span.read("status") or span.failure() or "")
    if isinstance(err, dict):
        parts = [str(err.get(k)) for k in ("type", "code", "message") if err.get(k) is not None]
        return ": ".join(parts) if parts else msgspec.json.encode(err).decode()
    return str(err)
