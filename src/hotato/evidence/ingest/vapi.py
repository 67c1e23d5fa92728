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

from typing import Any

from hotato.evidence.ingest._doc import Walk
from hotato.evidence.ingest._emit import ABSENT, Emitter
from hotato.evidence.ingest._values import destination, iso_to_ns, jsonish, party, seconds_to_ns
from hotato.evidence.ingest.detect import Sniffed, document

_REPORT_TYPES = frozenset({"end-of-call-report", "status-update", "transcript"})


def _report(doc: Any) -> tuple[dict[str, Any], str] | None:
    if not isinstance(doc, dict):
        return None
    message = doc.get("message")
    if isinstance(message, dict) and (
        message.get("type") == "end-of-call-report"
        or "artifact" in message
        or "endedReason" in message
    ):
        return message, "$.message"
    if (
        doc.get("type") == "end-of-call-report"
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


def read_document(doc: Any, name: str, em: Emitter) -> None:
    w = Walk(name)
    found = _report(doc)
    if found is None:
        w.bad(
            "$",
            "not a Vapi end-of-call report: expected `message.type: end-of-call-report`, "
            "or a call object with `artifact` and `endedReason`",
        )
        w.done()
        return
    report, base = found
    em.source_format = (
        "vapi-end-of-call-report"
        if base == "$.message" or report.get("type") == "end-of-call-report"
        else "vapi-call"
    )
    em.deployment.stack = "vapi"
    em.col.base_ns = 0  # secondsFromStart is already relative to the call's start
    call = w.obj(report.get("call"), f"{base}.call") or {}
    assistant = w.obj(report.get("assistant"), f"{base}.assistant") or {}
    em.identify(
        call.get("id") or report.get("id"),
        call.get("assistantId") or report.get("assistantId") or assistant.get("id"),
    )
    artifact = w.obj(report.get("artifact"), f"{base}.artifact") or {}
    if "messages" in artifact:
        messages = w.items(artifact.get("messages"), f"{base}.artifact.messages")
        mpath = f"{base}.artifact.messages"
    else:
        messages = w.items(report.get("messages"), f"{base}.messages")
        mpath = f"{base}.messages"
    em.input_count = len(messages)
    last_ns = 0
    for i, message in enumerate(messages):
        end = _message(w, em, message, f"{mpath}[{i}]")
        if end is not None:
            last_ns = max(last_ns, end)
    em.flush_tools()
    reason = w.text(report.get("endedReason", call.get("endedReason")), f"{base}.endedReason")
    if reason:
        at = _duration_ns(w, report, call, base)
        em.termination(reason, party(reason), at=at if at is not None else last_ns)
        dest = report.get("destination") or call.get("destination")
        if reason == "assistant-forwarded-call" and dest and not em.col.counts.get("handoff"):
            em.handoff(
                destination(dest) if isinstance(dest, dict) else str(dest),
                at=at if at is not None else last_ns,
            )
    w.done()


def _duration_ns(w: Walk, report: dict[str, Any], call: dict[str, Any], base: str) -> int | None:
    seconds = w.number(report.get("durationSeconds"), f"{base}.durationSeconds")
    if seconds is not None:
        return seconds_to_ns(seconds)
    started = iso_to_ns(report.get("startedAt") or call.get("startedAt"))
    ended = iso_to_ns(report.get("endedAt") or call.get("endedAt"))
    if started is not None and ended is not None and ended >= started:
        return ended - started
    return None


def _message(w: Walk, em: Emitter, message: Any, path: str) -> int | None:
    """One artifact message; returns when it ended (ns from the call's start), if known."""
    obj = w.obj(message, path)
    if obj is None:
        if message is None:
            w.bad(path, "expected an object, got null")
        return None
    role = w.text(obj.get("role"), f"{path}.role") or ""
    start = seconds_to_ns(w.number(obj.get("secondsFromStart"), f"{path}.secondsFromStart"))
    if role in ("user", "bot", "assistant"):
        said = w.text(obj.get("message", obj.get("content")), f"{path}.message")
        end = None
        duration = w.number(obj.get("duration"), f"{path}.duration")
        t0, t1 = (w.number(obj.get(k), f"{path}.{k}") for k in ("time", "endTime"))
        if start is not None and duration is not None:
            end = start + round(duration * 1_000_000)
        elif start is not None and t0 is not None and t1 is not None and t1 >= t0:
            end = start + round((t1 - t0) * 1_000_000)
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
        result = ABSENT if error or "result" not in obj else jsonish(obj.get("result"))
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
