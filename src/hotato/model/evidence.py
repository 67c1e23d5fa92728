"""The evidence model: spans of a trace and turns of a transcript.

A trace that was not supplied is `None`; a trace that was supplied and holds no spans is a
`Trace` with an empty `spans` list. Kinds rely on that difference (DESIGN law 2).
"""

# No `from __future__ import annotations` here: msgspec then reads Span's field types as they
# are, instead of compiling each from its string every time a decoder or field table asks.
import math
from collections import defaultdict
from collections.abc import Callable
from functools import cached_property
from typing import Any

import msgspec

from hotato.model.failure import FAILED_STATUSES, FAILURE_BYTES, failure
from hotato.model.haystack import Haystack
from hotato.model.span_fields import HANDOFF_TYPES as HANDOFF_TYPES
from hotato.model.span_fields import TERMINATION_TYPES as TERMINATION_TYPES
from hotato.model.span_fields import read_field

_decode_any = msgspec.json.Decoder().decode


class Span(msgspec.Struct, kw_only=True, gc=False):
    """One span line of a `hotato.voice_trace.v1` trace.

    Payload fields (arguments, result, error, attributes, response) stay as raw JSON until a
    check asks for them: a million-span trace is indexed without building a million dicts.
    `result` absent and `result: null` differ: absent is an unknown result.
    Fields a span keeps elsewhere than here (under `attributes`, or under another name) are
    read with `read(field)`; the loader folds top-level keys this struct does not name into
    `attributes`, so nothing a trace wrote is lost.
    """

    type: str
    name: str | None = None
    start_sec: float | None = None
    end_sec: float | None = None
    time_sec: float | None = None
    latency_ms: float | None = None
    status: str | int | None = None
    to: str | None = None
    by: str | None = None
    reason: str | None = None
    digits: str | int | None = None
    method: str | None = None
    url: str | None = None
    status_code: int | None = None
    attempt: int | None = None
    arguments_raw: msgspec.Raw = msgspec.field(name="arguments", default=msgspec.Raw(b""))
    result_raw: msgspec.Raw = msgspec.field(name="result", default=msgspec.Raw(b""))
    error_raw: msgspec.Raw = msgspec.field(name="error", default=msgspec.Raw(b""))
    attributes_raw: msgspec.Raw = msgspec.field(name="attributes", default=msgspec.Raw(b""))
    response_raw: msgspec.Raw = msgspec.field(name="response", default=msgspec.Raw(b""))
    index: int = -1  # position among span lines; set by the loader

    @property
    def id(self) -> str:
        return f"s_{self.index}"

    @property
    def has_result(self) -> bool:
        """The span recorded a result (null included), at the top level or in `attributes`."""
        if self.result_raw:
            return True
        return (
            bool(self.attributes_raw)
            and b'"result"' in bytes(self.attributes_raw)
            and ("result" in self.attributes())
        )

    def arguments(self) -> Any:
        return _decode_any(self.arguments_raw) if self.arguments_raw else None

    def result(self) -> Any:
        return _decode_any(self.result_raw) if self.result_raw else None

    def error(self) -> Any:
        return _decode_any(self.error_raw) if self.error_raw else None

    def attributes(self) -> dict[str, Any]:
        value = _decode_any(self.attributes_raw) if self.attributes_raw else None
        return value if isinstance(value, dict) else {}

    def response(self) -> Any:
        return _decode_any(self.response_raw) if self.response_raw else None

    def top(self, key: str) -> Any:
        """The value this span holds at its own level under `key` (None when it holds none)."""
        raw = _RAW_FIELDS.get(key)
        if raw is not None:
            data = getattr(self, raw)
            return _decode_any(data) if data else None
        return getattr(self, key) if key in _TYPED_FIELDS else None

    def read(self, field: str, accept: Callable[[Any], bool] | None = None) -> Any:
        """A logical field (see `hotato.model.span_fields.SPAN_FIELDS`) under any of its names,
        at the top level or under `attributes`; None when the span carries none. With `accept`,
        the first value it takes (`error: true` beside `message: "declined"`: the text)."""
        if accept is None:
            return read_field(field, self.top, self.attributes)
        return read_field(field, self.top, self.attributes, accept)

    @property
    def time(self) -> float | None:
        """When the span started, for ordering."""
        return self.start_sec if self.start_sec is not None else self.time_sec

    def raised(self) -> bool:
        """The tool failed: the span's own fields or its returned value hold one of the failure
        shapes of `hotato.model.failure` (a truthy `error`, `status: error`, `ok: false`,
        `success: false`, an HTTP status of 400 or more, ...)."""
        return self.failure() is not None

    def failure(self) -> str | None:
        """Which failure shape the span (its own fields first) or its result holds; None when
        neither holds one."""
        err = self.read("error")
        if err not in (None, "", False) and err != {}:
            return "error"
        status = self.read("status")
        if isinstance(status, str) and status.strip().lower() in FAILED_STATUSES:
            return f"status: {status}"
        if isinstance(status, int) and not isinstance(status, bool) and status >= 400:
            return f"status: {status}"
        code = self.read("status_code")
        if isinstance(code, int) and not isinstance(code, bool) and code >= 400:
            return f"status_code: {code}"
        if self.read("ok") is False:
            return "ok: false"
        return failure(self.read("result"))

    def measured_latency_ms(self) -> float | None:
        if self.latency_ms is not None:
            return self.latency_ms
        if self.attributes_raw:
            value = self.attributes().get("latency_ms")
            if isinstance(value, int | float) and not isinstance(value, bool):
                return float(value)
        if self.start_sec is not None and self.end_sec is not None:
            return round((self.end_sec - self.start_sec) * 1000.0, 3)
        return None


# Top-level keys held as raw JSON, by their name in a trace, and the typed ones (the fields read
# once: each read resolves every annotation again).
_SPAN_FIELDS = msgspec.structs.fields(Span)
_RAW_FIELDS = {f.encode_name: f.name for f in _SPAN_FIELDS if f.type is msgspec.Raw}
_TYPED_FIELDS = frozenset(
    f.encode_name for f in _SPAN_FIELDS if f.type is not msgspec.Raw and f.name != "index"
)
SPAN_KEYS = frozenset(_RAW_FIELDS) | _TYPED_FIELDS  # every key a span line names directly


class Trace(msgspec.Struct, dict=True):
    """An ingested trace. Indexes are built once, on first use (or by the loader, as it reads:
    see `TraceIndexer`); `dict=True` gives them, and the checks' memos, somewhere to live."""

    meta: dict[str, Any]
    spans: list[Span]
    path: str | None = None
    authenticated: bool = False

    @classmethod
    def indexed(
        cls,
        meta: dict[str, Any],
        spans: list[Span],
        path: str | None,
        *,
        by_type: dict[str, list[Span]],
        tool_calls: dict[str, list[Span]],
        in_time_order: bool,
    ) -> "Trace":
        """A trace built with the indexes its loader computed as it read (`TraceIndexer`):
        each is exactly what its property would compute on first use. `in_time_order`: the
        spans are already in time order, so they are their own placement."""
        trace = cls(meta=meta, spans=spans, path=path)
        cached = trace.__dict__  # where the cached properties keep what they computed
        cached["by_type"] = by_type
        cached["tool_calls"] = tool_calls
        if in_time_order:
            cached["placement"] = Placement(spans)
            cached["tool_order"] = by_type.get("tool_call", [])
        return trace

    @cached_property
    def memo(self) -> dict[Any, Any]:
        """Answers the checks computed from this evidence, by question (`kinds._trace_util.
        derived`): they live exactly as long as the evidence does."""
        return {}

    @cached_property
    def by_type(self) -> dict[str, list[Span]]:
        index: dict[str, list[Span]] = defaultdict(list)
        for span in self.spans:
            index[span.type].append(span)
        return dict(index)

    @cached_property
    def tool_calls(self) -> dict[str, list[Span]]:
        """`tool_call` spans by tool name, in trace order."""
        index: dict[str, list[Span]] = defaultdict(list)
        for span in self.by_type.get("tool_call", ()):
            if span.name is not None:
                index[span.name].append(span)
        return dict(index)

    @cached_property
    def tool_order(self) -> list[Span]:
        """Tool-call spans in the order of `ordered`, for order and sequence checks; the
        trace-order list itself when that is the order."""
        tools = self.by_type.get("tool_call", [])
        if self.ordered is self.spans:
            return tools
        placed = [s for s in self.ordered if s.type == "tool_call"]
        return tools if all(a is b for a, b in zip(placed, tools, strict=True)) else placed

    @cached_property
    def placement(self) -> "Placement":
        """Every span in time order, and the spans whose place in it cannot be known."""
        return place(self.spans)

    @property
    def ordered(self) -> list[Span]:
        """Every span in time order (ties, and spans with no time, keeping their place in the
        file); `spans` itself when already in order. Where `unplaced` names a span, its place
        here is a guess that no check may rely on."""
        return self.placement.ordered

    @property
    def unplaced(self) -> frozenset[int]:
        """The indexes of the spans with no time whose order against the timed spans cannot be
        known (see `place`); empty for a trace written in time order, as ingest writes it."""
        return self.placement.unplaced

    @cached_property
    def with_attributes(self) -> frozenset[int]:
        """The indexes of the spans that carry `attributes`, where the field reader may find a
        field the span's own level lacks (traces ingest writes carry few or none)."""
        return frozenset(s.index for s in self.spans if s.attributes_raw)

    @cached_property
    def maybe_raised(self) -> list[Span]:
        """The tool calls that may have raised, in trace order: a superset of those whose
        `raised()` is true, found without decoding anything: an error, a status, attributes
        that name a field `raised()` reads, or bytes in the result that a failure shape holds
        (`hotato.model.failure.FAILURE_BYTES`), the results searched joined (a pass in C per
        needle, not a step per call)."""
        tools = self.by_type.get("tool_call", [])
        results = Haystack([s.result_raw for s in tools])
        maybe = {i for i, s in enumerate(tools) if may_have_raised(s)}
        for needle in FAILURE_BYTES:
            maybe.update(results.containing(needle))
        return [tools[i] for i in sorted(maybe)]

    def of_types(self, types: frozenset[str]) -> list[Span]:
        found = [s for t in types for s in self.by_type.get(t, ())]
        found.sort(key=lambda s: s.index)
        return found


# The attributes' keys `raised()` reads (error, status, ok, result), as JSON writes them; an
# escape may spell any of them.
_FAILURE_KEYS = (b'"error"', b'"status"', b'status_code"', b'"ok"', b'"result"', b"\\")


def _names_a_failure(attributes: bytes) -> bool:
    return any(k in attributes for k in _FAILURE_KEYS)


def may_have_raised(span: Span) -> bool:
    """Whether `Span.raised()` may hold, read from the span's own fields without decoding: an
    error, a status, or attributes that name one of the fields it reads. (`ok: false` in the
    result is the caller's to find: see `Trace.maybe_raised`.)"""
    if span.error_raw or span.status is not None or span.status_code is not None:
        return True
    return bool(span.attributes_raw) and _names_a_failure(bytes(span.attributes_raw))


# Distinct payloads kept once per shared field (see TraceIndexer); past that, each is copied.
_SHARED_LIMIT = 4096


class TraceIndexer:
    """A loader's store for the spans it reads, one `add` per span, and the indexes the checks
    read, built once all are read: spans by type, tool calls by name, whether the spans (and the
    tool calls) are already in time order, and the spans that carry attributes. Each index is a
    tight pass over the spans at the end (cheaper than the same work span by span as they
    arrive); the first check finds nothing left to build.

    It also keeps the spans compact. A span decoded from its line holds raw payloads that point
    into that line, which would keep every line alive; `add` with the line copies each payload
    out, so the line is freed once read. Payloads that repeat share one copy: results (`{"ok":
    true}` a hundred thousand times), errors (the same timeout) and attributes (a hotato 1.x
    trace's `ok` and HTTP fields); arguments and responses are mostly one of a kind, so each is
    only copied."""

    def __init__(self) -> None:
        self.spans: list[Span] = []
        # each distinct result, attributes and error kept once (the first _SHARED_LIMIT of each)
        self._results: dict[bytes, msgspec.Raw] = {}
        self._attributes: dict[bytes, msgspec.Raw] = {}
        self._errors: dict[bytes, msgspec.Raw] = {}
        self._words: dict[str, str] = {}

    def add(self, span: Span, line: bytes | None = None) -> None:
        """Keep the next span; `line`, the JSON line it was decoded from, is let go of."""
        # One string object per distinct span type and tool name, however many spans repeat
        # it: a million-span trace holds a few dozen of each, not a million.
        span.type = self._words.setdefault(span.type, span.type)
        span.index = len(self.spans)
        self.spans.append(span)
        if line is None:
            return
        if span.arguments_raw:
            span.arguments_raw = span.arguments_raw.copy()
        # each shared payload's bytes (cheaper than bytes(raw), which tries an int), looked up
        # here and kept by _keep only when new: most tool calls have a result
        if span.result_raw:
            key = _JOIN((span.result_raw,))
            span.result_raw = self._results.get(key) or _keep(self._results, key)
        if span.error_raw:
            key = _JOIN((span.error_raw,))
            span.error_raw = self._errors.get(key) or _keep(self._errors, key)
        if span.attributes_raw:
            key = _JOIN((span.attributes_raw,))
            span.attributes_raw = self._attributes.get(key) or _keep(self._attributes, key)
        if span.response_raw:
            span.response_raw = span.response_raw.copy()

    def trace(self, meta: dict[str, Any], path: str | None = None) -> Trace:
        spans = self.spans
        by_type: dict[str, list[Span]] = {}
        for span in spans:
            group = by_type.get(span.type)
            if group is None:
                group = by_type[span.type] = []
            group.append(span)
        tools = by_type.get("tool_call", [])
        words = self._words
        tool_calls: dict[str, list[Span]] = {}
        for span in tools:
            name = span.name
            if name is not None:
                name = span.name = words.setdefault(name, name)
                calls = tool_calls.get(name)
                if calls is None:
                    calls = tool_calls[name] = []
                calls.append(span)
        return Trace.indexed(
            meta,
            spans,
            path,
            by_type=by_type,
            tool_calls=tool_calls,
            in_time_order=_already_in_time_order(spans),
        )


_JOIN = b"".join


def _keep(table: dict[bytes, msgspec.Raw], key: bytes) -> msgspec.Raw:
    """A new payload's copy, kept in `table` for the next span with the same bytes (while the
    table holds fewer than _SHARED_LIMIT)."""
    kept = msgspec.Raw(key)
    if len(table) < _SHARED_LIMIT:
        table[key] = kept
    return kept


class Placement(msgspec.Struct, frozen=True, gc=False):
    """Spans in time order, and the untimed ones whose place in that order is unknown."""

    ordered: list[Span]
    unplaced: frozenset[int] = frozenset()


_NOWHERE: frozenset[int] = frozenset()


def _already_in_time_order(spans: list[Span]) -> bool:
    """The timed spans come in the file by start time (ties in line order); spans with no time
    are skipped, as they keep their place. One comparison per span and no list of keys (most
    traces are written in order)."""
    last = -math.inf
    for span in spans:
        t = span.start_sec  # Span.time, without a property call per span
        if t is None:
            t = span.time_sec
            if t is None:
                continue
        if t < last:
            return False
        last = t
    return True


def place(spans: list[Span]) -> Placement:
    """Spans (given in trace order) in time order. A span with no time keeps its place in the
    file among the timed ones: it comes after every timed span written before it and before
    every timed span written after it. That is its place whenever the file allows one (the
    latest timed span before it, by time then line, is not later than the earliest timed span
    after it); otherwise the file contradicts itself about where it was, and the span is
    `unplaced`. Timed spans sort by time, ties keeping line order. A trace already in order
    is returned as it is (`spans` itself), with nothing unplaced."""
    if _already_in_time_order(spans):
        return Placement(spans)
    n = len(spans)
    keys = [0.0] * n  # one float per span: a million spans stay within the memory budget
    latest: tuple[float, int] | None = None  # the latest timed span so far, by (time, line)
    after_latest: dict[int, tuple[float, int] | None] = {}
    for i, span in enumerate(spans):
        t = span.time
        if t is None:
            after_latest[i] = latest
            keys[i] = latest[0] if latest is not None else -math.inf
        else:
            keys[i] = t
            if latest is None or (t, i) >= latest:
                latest = (t, i)
    unplaced: set[int] = set()
    earliest: tuple[float, int] | None = None  # the earliest timed span after, by (time, line)
    for i in range(n - 1, -1, -1):
        t = spans[i].time
        if t is None:
            before = after_latest[i]
            if before is not None and earliest is not None and before > earliest:
                unplaced.add(spans[i].index if spans[i].index >= 0 else i)
        elif earliest is None or (t, i) <= earliest:
            earliest = (t, i)
    order = sorted(range(n), key=keys.__getitem__)  # stable: ties keep line order
    return Placement([spans[i] for i in order], frozenset(unplaced) or _NOWHERE)


ROLE_ALIASES = {
    "caller": "caller",
    "user": "caller",
    "customer": "caller",
    "human": "caller",
    "agent": "agent",
    "assistant": "agent",
    "bot": "agent",
    "ai": "agent",
}


def normalize_role(role: str) -> str:
    """`caller` or `agent` for their aliases (in any case); any other role (a `supervisor`, a
    human agent after a transfer) exactly as written, as hotato 1.x compared roles."""
    return ROLE_ALIASES.get(role.lower(), role)


class Turn(msgspec.Struct, frozen=True):
    index: int
    role: str  # normalized: caller, agent, or the transcript's own word
    text: str
    start: float | None = None
    end: float | None = None

    @property
    def id(self) -> str:
        return f"t_{self.index}"


class Transcript(msgspec.Struct, dict=True):
    turns: list[Turn]
    path: str | None = None

    @cached_property
    def memo(self) -> dict[Any, Any]:
        """Answers the checks computed from this evidence, by question (`kinds._trace_util.
        derived`): they live exactly as long as the evidence does."""
        return {}

    @cached_property
    def by_role(self) -> dict[str, list[Turn]]:
        index: dict[str, list[Turn]] = defaultdict(list)
        for turn in self.turns:
            index[turn.role].append(turn)
        return dict(index)

    def of_role(self, role: str | None) -> list[Turn]:
        if role is None or role == "any":
            return self.turns
        return self.by_role.get(normalize_role(role), [])


class CallEvidence(msgspec.Struct):
    """All the evidence one trace file holds: its spans, the spoken turns a stack's export
    carries, and, when a recognised export yielded no call evidence at all, why (naming where
    it looked)."""

    trace: Trace
    transcript: Transcript | None = None  # None: the file records no spoken text
    empty: str | None = None
