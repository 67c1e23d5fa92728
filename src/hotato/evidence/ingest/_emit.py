"""One way to build each native span, whatever stack it came from.

Every format module reads its source and calls these builders; the builders own the field order,
redaction, tool/result pairing and the spans a built-in tool implies (a transfer tool is also a
`handoff`, a keypad tool is also a `dtmf`). A tool result the source did not record stays absent.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import msgspec

from hotato.evidence.ingest._collect import NO_TIME, Collector
from hotato.evidence.ingest._doc import split_path
from hotato.evidence.ingest._values import (
    IDENTIFIER_KEYS,
    TEXT_KEYS,
    destination,
    digits,
    latency_ms,
    tool_effect,
)
from hotato.model.errors import InputError
from hotato.model.evidence import Span, normalize_role


class _Absent:
    def __repr__(self) -> str:
        return "ABSENT"


ABSENT: Any = _Absent()  # a payload field the source did not record (unlike a recorded null)

# Field order of a native span after `type` and its times (docs/ingest.md).
NATIVE_FIELDS = (
    "name",
    "latency_ms",
    "status",
    "attempt",
    "to",
    "by",
    "reason",
    "digits",
    "method",
    "url",
    "status_code",
    "arguments",
    "result",
    "error",
    "response",
)
_KNOWN = frozenset(NATIVE_FIELDS)
_POSITION = {key: i for i, key in enumerate(NATIVE_FIELDS)}
_KEEP_NULL = frozenset({"arguments", "result", "response"})


# The first-class span fields' types, taken from `hotato.model.evidence.Span` itself so the two
# never drift: every typed field except `type`, the times (normalized here before they are
# written) and the loader's own `index`. Payload fields are raw JSON and take any value.
_UNCHECKED = frozenset({"type", "start_sec", "end_sec", "time_sec", "index"})
_Fields = msgspec.defstruct(
    "_Fields",
    [
        (f.encode_name, f.type, f.default)
        for f in msgspec.structs.fields(Span)
        if f.name not in _UNCHECKED and f.type is not msgspec.Raw
    ],
)


@lru_cache(maxsize=256)
def _native_order(keys: tuple[str, ...]) -> tuple[str, ...]:
    """A builder's keyword names in the native field order (a few distinct sets, so cached)."""
    unknown = set(keys) - _KNOWN
    if unknown:
        raise TypeError(f"unknown span fields: {sorted(unknown)}")
    return tuple(sorted(keys, key=_POSITION.__getitem__))


def field_problem(body: dict[str, Any]) -> tuple[str, str | None] | None:
    """(message, JSON path) when a first-class field has a type the trace model refuses."""
    try:
        msgspec.convert(body, _Fields)
    except msgspec.ValidationError as exc:
        return split_path(str(exc))
    return None


@dataclass(frozen=True)
class Options:
    include_text: bool = False
    include_identifiers: bool = False
    want_transcript: bool = False


@dataclass
class Deployment:
    stack: str | None = None
    agent_id: str | None = None
    git_sha: str | None = None
    config_hash: str | None = None


@dataclass
class SourceTurn:
    """A turn as a source reported it, before ordering and fallbacks (a `model.evidence.Turn`
    is what it becomes)."""

    start_ns: int | None
    end_ns: int | None
    seq: int
    role: str
    text: str
    fallback: bool = False  # used only when the source gave this role no primary turn


@dataclass
class _OpenTool:
    seq: int
    effect_seq: int
    name: str | None
    arguments: Any
    start: int | None
    at: int | None
    hint: str | None
    attributes: dict[str, Any]


# How each field of an Emitter joins when a second half was converted apart
# (evidence.ingest._fork): "sum", "extend" (the first half's, then the second's), "any" (set by
# either), "second" (the state the second half left: the first half left it as it found it,
# which `consulted()` checks), "first" (the first half's, else the second's), or "own" (not
# part of a half: options, the collector, the input's name, and what `consulted()` holds
# equal). A new field is given its rule here; tests/ingest/test_ingest_two_cores.py checks
# every field has one.
HALVES: dict[str, str] = {
    "opts": "own",
    "col": "own",
    "call_id": "first",
    "deployment": "first",
    "source_format": "own",
    "input_count": "sum",
    "source": "own",
    "turns": "extend",
    "transfer_to": "second",
    "tool_handoff_needs_target": "second",
    "looked_in": "second",
    "never_connected": "any",
    "seen": "second",
    "_open": "own",
    "_turn_seq": "second",
}


@dataclass
class Emitter:
    opts: Options
    col: Collector = field(default_factory=Collector)
    call_id: str | None = None
    deployment: Deployment = field(default_factory=Deployment)
    source_format: str = ""
    input_count: int = 0
    source: str | None = None  # the input file, for refusals
    turns: list[SourceTurn] = field(default_factory=list)
    transfer_to: str | None = None  # where the source says transfers went, when a tool does not
    # a stack that records agent switches itself (LiveKit): a transfer-named tool is a handoff
    # only when its arguments name where to
    tool_handoff_needs_target: bool = False
    looked_in: list[str] = field(default_factory=list)  # where a reader looked for the call
    # the source says the call never connected: no tool ran and nothing was said, which is
    # read evidence (an empty transcript, no tool call), not a missing export
    never_connected: bool = False
    seen: set[str] = field(default_factory=set)  # keys a reader has read once already
    _open: dict[str, _OpenTool] = field(default_factory=dict)
    _turn_seq: int = 0

    # --- two halves (a big export converted on two cores: evidence.ingest._fork) ----------

    def consulted(self) -> tuple[Any, ...]:
        """The state a reader consults while converting a span (besides first-seen ids, which
        join as first seen): equal before and after a first half, the halves are independent."""
        return (
            tuple(self._open),
            frozenset(self.seen),
            self.transfer_to,
            self.tool_handoff_needs_target,
            tuple(self.looked_in),
            self.deployment.stack,
            self.source_format,
            self.col.base_ns,
        )

    def begin_half(self, col: Collector, first_seq: int) -> None:
        """Convert from here into `col`, numbering turns from `first_seq` (a second half, in a
        process of its own, numbered beyond anything the first half reaches)."""
        self.col = col
        self._turn_seq = first_seq

    @property
    def turn_seq(self) -> int:
        return self._turn_seq

    def snapshot(self) -> dict[str, Any]:
        """What converting a half changed, besides the collector: every field `HALVES` joins."""
        return {name: getattr(self, name) for name, how in HALVES.items() if how != "own"}

    def absorb(self, half: dict[str, Any]) -> None:
        """Join a second half's `snapshot()` after what this emitter converted, as converting
        it here would have left it."""
        for name, how in HALVES.items():
            if how == "own":
                continue
            mine, theirs = getattr(self, name), half[name]
            if how == "sum":
                setattr(self, name, mine + theirs)
            elif how == "extend":
                mine.extend(theirs)
            elif how == "any":
                setattr(self, name, mine or theirs)
            elif how == "second":
                setattr(self, name, theirs)
            elif name == "call_id":  # "first", as identify() records it
                self.identify(theirs)
            elif name == "deployment":  # "first", field by field (the stack is held equal)
                self.identify(None, theirs.agent_id)
                mine.git_sha = mine.git_sha or theirs.git_sha
                mine.config_hash = mine.config_hash or theirs.config_hash
            else:  # "first"
                setattr(self, name, theirs if mine is None else mine)

    # --- generic --------------------------------------------------------------------------

    def span(
        self,
        type_: str,
        *,
        start: int | None = None,
        end: int | None = None,
        at: int | None = None,
        seq: int | None = None,
        extra: dict[str, Any] | None = None,
        attributes: dict[str, Any] | None = None,
        **fields: Any,
    ) -> None:
        body: dict[str, Any] = {}
        for key in _native_order(tuple(fields)):
            value = fields[key]
            if value is ABSENT or (value is None and key not in _KEEP_NULL):
                continue
            body[key] = value
        if extra:
            body.update(extra)
        self._put(type_, body, start, end, at, seq, attributes)

    def _put(
        self,
        type_: str,
        body: dict[str, Any],
        start: int | None,
        end: int | None,
        at: int | None,
        seq: int | None,
        attributes: dict[str, Any] | None,
        typed: bool = False,
    ) -> None:
        """Redact `attributes` into `body`, check it, and hand it to the collector. `typed`: the
        builder knows every first-class field has the type the trace model wants."""
        if attributes:
            attrs = self.identifiers_out(attributes)
            if attrs and not self.opts.include_text and not TEXT_KEYS.isdisjoint(attrs):
                attrs = {k: v for k, v in attrs.items() if k not in TEXT_KEYS}
                body["text_redacted"] = True
            if attrs:
                body["attributes"] = attrs
        if (
            (start is not None and not -NO_TIME < start < NO_TIME)
            or (end is not None and not -NO_TIME < end < NO_TIME)
            or (at is not None and not -NO_TIME < at < NO_TIME)
        ):
            raise InputError.one(
                f"source record {self.input_count} has a time outside "
                "the representable range (about ±292 years)",
                file=self.source,
            )
        problem = None if typed else field_problem(body)
        if problem is not None:
            message, path = problem
            where = (path or "$").removeprefix("$.")
            raise InputError.one(
                f"source record {self.input_count} gives the {type_} span's "
                f"`{where}` a wrong type: {message}",
                file=self.source,
            )
        self.col.add(type_, body, start, end, at, seq)

    def identifiers_out(self, values: dict[str, Any] | None) -> dict[str, Any]:
        if not values:
            return {}
        if self.opts.include_identifiers:
            return {k: v for k, v in values.items() if v is not None}
        return {k: v for k, v in values.items() if v is not None and k not in IDENTIFIER_KEYS}

    def text_fields(self, text: str | None) -> dict[str, Any]:
        """Span text is kept only when asked for; its absence is marked so a reader knows why."""
        if not text:
            return {}
        return {"text": text} if self.opts.include_text else {"text_redacted": True}

    def identify(self, call_id: Any = None, agent_id: Any = None) -> None:
        """Record the first call and agent ids seen (written only with --include-identifiers)."""
        if self.call_id is None and isinstance(call_id, str | int) and str(call_id):
            self.call_id = str(call_id)
        if self.deployment.agent_id is None and isinstance(agent_id, str | int) and str(agent_id):
            self.deployment.agent_id = str(agent_id)

    # --- tools ----------------------------------------------------------------------------

    def tool_call(
        self,
        name: str | None,
        *,
        start: int | None = None,
        end: int | None = None,
        at: int | None = None,
        arguments: Any = ABSENT,
        result: Any = ABSENT,
        error: Any = None,
        ok: bool | None = None,
        hint: str | None = None,
        attributes: dict[str, Any] | None = None,
        seq: int | None = None,
        effect_seq: int | None = None,
    ) -> None:
        """A tool that ran. `ok`: what the source said about success (None: it said nothing)."""
        failed = bool(error) or ok is False
        status = "error" if failed else ("ok" if ok else None)
        if failed and not error:
            error = True
        if seq is None:
            seq = self.col.reserve()
        # The body in the native field order (NATIVE_FIELDS), built here: once per tool span.
        body: dict[str, Any] = {}
        if name is not None:
            body["name"] = name
        latency = latency_ms(start, end)
        if latency is not None:
            body["latency_ms"] = latency
        if status is not None:
            body["status"] = status
        if arguments is not ABSENT:
            body["arguments"] = arguments
        if result is not ABSENT:
            body["result"] = result
        if failed:
            body["error"] = error
        # name is the one first-class field a source chose; the others are made here
        typed = name is None or name.__class__ is str
        self._put("tool_call", body, start, end, at, seq, attributes, typed)
        if failed:
            return  # a transfer or keypad tool that failed did not transfer or press anything
        effect = tool_effect(name, hint)
        if effect is None:  # most tools: nothing implied, nothing more to read
            return
        if effect_seq is None:  # right after the call's own place, as no span came between
            effect_seq = self.col.reserve()
        when = {"at": start if start is not None else at}
        target = destination(arguments) or self.transfer_to
        if effect == "handoff" and (target or not self.tool_handoff_needs_target):
            self.handoff(target, seq=effect_seq, attributes={"via_tool": name}, **when)
        elif effect == "dtmf":
            self.dtmf(digits(arguments), by="agent", seq=effect_seq, **when)

    def open_tool(
        self,
        key: str,
        name: str | None,
        arguments: Any = ABSENT,
        *,
        start: int | None = None,
        at: int | None = None,
        hint: str | None = None,
        attributes: dict[str, Any] | None = None,
    ) -> None:
        """A tool call whose result arrives later in the source (paired by `key`)."""
        if key in self._open:
            self._close(key)
        self._open[key] = _OpenTool(
            self.col.reserve(),
            self.col.reserve(),
            name,
            arguments,
            start,
            at,
            hint,
            dict(attributes or {}),
        )

    def close_tool(
        self,
        key: str,
        *,
        result: Any = ABSENT,
        error: Any = None,
        ok: bool | None = None,
        end: int | None = None,
        name: str | None = None,
        attributes: dict[str, Any] | None = None,
    ) -> bool:
        """Attach a result to the call opened under `key`; False when no such call was open."""
        pending = self._open.get(key)
        if pending is None:
            return False
        if name and not pending.name:
            pending.name = name
        pending.attributes.update(attributes or {})
        self._close(key, result=result, error=error, ok=ok, end=end)
        return True

    def _close(
        self,
        key: str,
        *,
        result: Any = ABSENT,
        error: Any = None,
        ok: bool | None = None,
        end: int | None = None,
    ) -> None:
        p = self._open.pop(key)
        self.tool_call(
            p.name,
            start=p.start,
            end=end if p.start is not None else None,
            at=p.at,
            arguments=p.arguments,
            result=result,
            error=error,
            ok=ok,
            hint=p.hint,
            attributes=p.attributes,
            seq=p.seq,
            effect_seq=p.effect_seq,
        )

    def flush_tools(self) -> None:
        """Calls that never got a result: their result is unknown, so it stays absent."""
        for key in list(self._open):
            self._close(key)

    # --- call events ----------------------------------------------------------------------

    def handoff(
        self,
        to: str | None,
        *,
        start: int | None = None,
        end: int | None = None,
        at: int | None = None,
        seq: int | None = None,
        attributes: dict[str, Any] | None = None,
    ) -> None:
        self.span("handoff", start=start, end=end, at=at, seq=seq, attributes=attributes, to=to)

    def dtmf(
        self,
        keys: str | None,
        *,
        by: str,
        at: int | None = None,
        start: int | None = None,
        seq: int | None = None,
    ) -> None:
        if keys:
            self.span(
                "dtmf", at=at if start is None else None, start=start, seq=seq, digits=keys, by=by
            )

    def termination(
        self,
        reason: str | None,
        by: str | None,
        *,
        at: int | None,
        attributes: dict[str, Any] | None = None,
    ) -> None:
        self.span("termination", at=at, attributes=attributes, reason=reason, by=by)

    def speech(self, role: str, *, start: int | None, end: int | None, text: str | None) -> None:
        """Someone spoke: an audio-activity span (when timed) and a transcript turn."""
        who = normalize_role(role)
        if start is not None and who in ("caller", "agent"):
            # the body is `text` (a string) or `text_redacted`: typed as the trace model wants
            typed = text is None or isinstance(text, str)
            body = self.text_fields(text)
            self._put(f"{who}_audio_active", body, start, end, None, None, None, typed)
        self.said(who, text, start=start, end=end)

    def said(
        self,
        role: str,
        text: str | None,
        *,
        start: int | None,
        end: int | None = None,
        fallback: bool = False,
    ) -> None:
        """A transcript turn. `fallback`: a second place the source keeps the same words (used
        only when the role has no turn from the primary place, never both)."""
        if text and text.strip():
            self.turns.append(
                SourceTurn(start, end, self._turn_seq, normalize_role(role), text, fallback)
            )
            self._turn_seq += 1

    def ordered_turns(self) -> list[SourceTurn]:
        primary = {t.role for t in self.turns if not t.fallback}
        kept = [t for t in self.turns if not t.fallback or t.role not in primary]
        far = 1 << 63
        return sorted(kept, key=lambda t: (t.start_ns if t.start_ns is not None else far, t.seq))

    def empty(self) -> bool:
        """A recognised export that yields no call evidence: no tool call, handoff, keypad
        tone or HTTP exchange, and no spoken turn."""
        counts = self.col.counts
        return not self.turns and not any(
            counts.get(t) for t in ("tool_call", "handoff", "dtmf", "http_exchange")
        )
