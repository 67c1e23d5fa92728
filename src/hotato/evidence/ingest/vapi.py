"""Vapi: the end-of-call report (server message) or a call object from GET /call/:id.

`artifact.messages` is the call in order, each with `secondsFromStart`: `user` and `bot`
messages (spoken turns, with `duration` in ms or `endTime`), `tool_calls` messages
(`toolCalls[].id`, `.function.name`, `.function.arguments`) and `tool_call_result` messages
(`toolCallId`, `name`, `result`, sometimes `error`). `endedReason` says how the call ended
(`customer-ended-call`, `assistant-ended-call`, `silence-timed-out`, ...): its first word names
the party. Built-in tools are call events too: `transferCall` (and squad `handoff` tools) move the
call to `destination`; the `dtmf` tool presses `keys`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from hotato.evidence.formats import TraceReader
from hotato.evidence.ingest._doc import Walk
from hotato.evidence.ingest._emit import ABSENT, Emitter
from hotato.evidence.ingest._values import (
    destination,
    instant_to_ns,
    jsonish,
    party,
    seconds_to_ns,
)
from hotato.evidence.ingest.detect import Sniffed, document

# Server messages that carry the call (`artifact`, and some `messages` of their own).
_CALL_MESSAGES = frozenset(
    {
        "end-of-call-report",
        "status-update",
        "conversation-update",
        "tool-calls",
        "transfer-update",
        "hang",
        "transcript",
        "speech-update",
        "user-interrupted",
        "model-output",
    }
)
# What Vapi writes as a tool's result when the tool returned nothing: the result is unknown.
NO_RESULT = frozenset({"No result returned."})
_SPEAKERS = frozenset({"user", "bot", "assistant"})


def _kind(obj: dict[str, Any]) -> str | None:
    kind = obj.get("type")
    return kind if isinstance(kind, str) else None


def _report(doc: Any) -> tuple[dict[str, Any], str] | None:
    if not isinstance(doc, dict):
        return None
    message = doc.get("message")
    if isinstance(message, dict) and (
        _kind(message) in _CALL_MESSAGES or "artifact" in message or "endedReason" in message
    ):
        return message, "$.message"
    if (
        _kind(doc) in _CALL_MESSAGES
        or "endedReason" in doc
        or (isinstance(doc.get("artifact"), dict) and "messages" in doc["artifact"])
    ):
        return doc, "$"
    return None


def is_report(doc: Any) -> bool:
    return _report(doc) is not None


def detect(sn: Sniffed) -> bool:
    return sn.shape == "document" and is_report(sn.doc)


def read(sn: Sniffed, em: Emitter) -> None:
    read_document(document(sn, "vapi"), sn.path, em)


@dataclass
class _Clock:
    """Vapi's absolute clock (`time`: epoch milliseconds, or any instant `Walk.instant` reads)
    when messages carry it; `secondsFromStart` only as a fallback: in a squad it restarts with
    each assistant."""

    absolute: bool
    base_ns: int | None  # the call's start, epoch ns (absolute) or 0 (relative)

    def at(self, w: Walk, obj: dict[str, Any], path: str) -> int | None:
        if self.absolute:
            t = _instant(w, obj, "time", path)
            if t is not None:
                return t
        sfs = _number(w, obj, "secondsFromStart", path)
        if sfs is None or self.base_ns is None:
            return None
        return self.base_ns + (seconds_to_ns(sfs) or 0)


# Per-message reads. A report has hundreds of messages, so the common well-typed value is taken
# as it is and the JSON path of a field is only spelled out when `Walk` has a problem to record
# (the same problems, in the same order, as reading every field through `Walk`).
_SECONDS_BOUND = 20_000_000_000  # epoch numbers below this are seconds, as `instant_to_ns` reads
_MILLIS_BOUND = 20_000_000_000_000  # ... and below this milliseconds


def _instant(w: Walk, obj: dict[str, Any], key: str, path: str) -> int | None:
    value: Any = obj.get(key)
    cls = value.__class__
    if (cls is float or cls is int) and -_MILLIS_BOUND < value < _MILLIS_BOUND:  # not NaN or inf
        scale = 1_000_000_000 if -_SECONDS_BOUND < value < _SECONDS_BOUND else 1_000_000
        return round(value * scale)
    if value is None:
        return None
    return w.instant(value, f"{path}.{key}")


def _number(w: Walk, obj: dict[str, Any], key: str, path: str) -> float | None:
    value: Any = obj.get(key)
    if value.__class__ is float and math.isfinite(value):
        return value
    if value is None:
        return None
    return w.number(value, f"{path}.{key}")


def _text(w: Walk, value: Any, path: str, key: str) -> str | None:
    if value is None or value.__class__ is str:
        return value
    return w.text(value, f"{path}.{key}")


def read_document(doc: Any, name: str, em: Emitter) -> None:
    w = Walk(name)
    found = _report(doc)
    if found is None:
        w.bad(
            "$",
            "not a Vapi server message or call: expected `message.type` (such as "
            "end-of-call-report), or a call object with `artifact` and `endedReason`",
        )
        w.done()
        return
    report, base = found
    kind = _kind(report)
    em.source_format = f"vapi-{kind}" if kind in _CALL_MESSAGES else "vapi-call"
    em.deployment.stack = "vapi"
    call = w.obj(report.get("call"), f"{base}.call") or {}
    assistant = w.obj(report.get("assistant"), f"{base}.assistant") or {}
    em.identify(
        call.get("id") or report.get("id"),
        call.get("assistantId") or report.get("assistantId") or assistant.get("id"),
    )
    artifact = w.obj(report.get("artifact"), f"{base}.artifact") or {}
    messages, mpath = _messages(w, em, report, artifact, base)
    em.input_count = len(messages)
    started = instant_to_ns(report.get("startedAt") or call.get("startedAt"))
    absolute = any(
        isinstance(m, dict) and instant_to_ns(m.get("time")) is not None for m in messages
    )
    clock = _Clock(absolute, started if absolute else 0)
    if clock.base_ns is not None:
        em.col.base_ns = clock.base_ns
    last_ns = clock.base_ns or 0
    for i, message in enumerate(messages):
        end = _message(w, em, clock, message, f"{mpath}[{i}]")
        if end is not None:
            last_ns = max(last_ns, end)
    if kind == "tool-calls":
        seen = {
            c["id"]
            for m in messages
            if isinstance(m, dict) and isinstance(m.get("toolCalls"), list)
            for c in m["toolCalls"]
            if isinstance(c, dict) and isinstance(c.get("id"), str)
        }
        _pending_calls(w, em, report, base, seen)
    em.flush_tools()
    reason = w.text(report.get("endedReason", call.get("endedReason")), f"{base}.endedReason")
    if reason:
        at = _ended_ns(w, report, call, base, clock)
        em.termination(reason, party(reason), at=at if at is not None else last_ns)
        dest = report.get("destination") or call.get("destination")
        if reason == "assistant-forwarded-call" and dest and not em.col.counts.get("handoff"):
            em.handoff(
                destination(dest) if isinstance(dest, dict) else str(dest),
                at=at if at is not None else last_ns,
            )
    w.done()


def _messages(
    w: Walk, em: Emitter, report: dict[str, Any], artifact: dict[str, Any], base: str
) -> tuple[list[Any], str]:
    """`artifact.messages`, or the message's own `messages` when the artifact's are empty (a
    squad's report, a status-update)."""
    paths = [
        (artifact.get("messages"), f"{base}.artifact.messages"),
        (report.get("messages"), f"{base}.messages"),
    ]
    for value, path in paths:
        em.looked_in.append(path)
        items = w.items(value, path)
        if items:
            return items, path
    return [], paths[0][1]


def _ended_ns(
    w: Walk, report: dict[str, Any], call: dict[str, Any], base: str, clock: _Clock
) -> int | None:
    ended = instant_to_ns(report.get("endedAt") or call.get("endedAt"))
    seconds = w.number(report.get("durationSeconds"), f"{base}.durationSeconds")
    if clock.absolute:
        if ended is None and seconds is not None and clock.base_ns is not None:
            return clock.base_ns + (seconds_to_ns(seconds) or 0)
        return ended
    if seconds is not None:
        return seconds_to_ns(seconds)
    started = instant_to_ns(report.get("startedAt") or call.get("startedAt"))
    if started is not None and ended is not None and ended >= started:
        return ended - started
    return None


def _message(w: Walk, em: Emitter, clock: _Clock, message: Any, path: str) -> int | None:
    """One message of the call; returns when it ended (ns), if known."""
    obj = w.obj(message, path)
    if obj is None:
        if message is None:
            w.bad(path, "expected an object, got null")
        return None
    role = _text(w, obj.get("role"), path, "role") or ""
    start = clock.at(w, obj, path)
    if role in _SPEAKERS:
        said = _text(w, obj.get("message", obj.get("content")), path, "message")
        end = None
        duration = _number(w, obj, "duration", path)  # seconds
        t0 = _instant(w, obj, "time", path)
        t1 = _instant(w, obj, "endTime", path)
        if start is not None and t0 is not None and t1 is not None and t1 >= t0:
            end = start + (t1 - t0)
        elif start is not None and duration is not None:
            end = start + (seconds_to_ns(duration) or 0)
        em.speech("caller" if role == "user" else "agent", start=start, end=end, text=said)
        return end if end is not None else start
    if role == "tool_calls":
        for j, call in enumerate(w.items(obj.get("toolCalls"), f"{path}.toolCalls")):
            _tool_call(w, em, call, f"{path}.toolCalls[{j}]", start)
        return start
    if role == "tool_call_result":
        key = w.text(obj.get("toolCallId"), f"{path}.toolCallId") or f"#{path}"
        name = w.text(obj.get("name"), f"{path}.name")
        error = obj.get("error")
        raw = obj.get("result", ABSENT)
        unknown = raw is ABSENT or (isinstance(raw, str) and raw.strip() in NO_RESULT)
        result = ABSENT if error or unknown else jsonish(raw)
        if not em.close_tool(
            key,
            result=result,
            error=error or None,
            ok=False if error else None,
            end=start,
            name=name,
        ):
            em.tool_call(
                name,
                at=start,
                result=result,
                error=error or None,
                attributes={"tool_call_id": key, "unpaired": True},
            )
        return start
    return start


def _pending_calls(w: Walk, em: Emitter, report: dict[str, Any], base: str, seen: set[str]) -> None:
    """A mid-call `tool-calls` message: the calls Vapi asks your server to run now (no result
    yet, so none is written)."""
    at = w.instant(report.get("timestamp"), f"{base}.timestamp")
    for j, call in enumerate(w.items(report.get("toolCallList"), f"{base}.toolCallList")):
        obj = w.obj(call, f"{base}.toolCallList[{j}]")
        key = obj.get("id") if obj is not None else None
        if isinstance(key, str) and key in seen:
            continue  # the artifact already holds it
        _tool_call(w, em, call, f"{base}.toolCallList[{j}]", at)


def _tool_call(w: Walk, em: Emitter, call: Any, path: str, start: int | None) -> None:
    obj = w.obj(call, path)
    if obj is None:
        return
    function = w.obj(obj.get("function"), f"{path}.function") or {}
    name = w.text(function.get("name"), f"{path}.function.name")
    args = function.get("arguments", ABSENT)
    key = w.text(obj.get("id"), f"{path}.id") or f"#{path}"
    em.open_tool(
        key,
        name,
        jsonish(args) if args is not ABSENT else ABSENT,
        start=start,
        hint=obj.get("type") if isinstance(obj.get("type"), str) else None,
        attributes={"tool_call_id": key},
    )


VAPI = TraceReader(detect, read)
