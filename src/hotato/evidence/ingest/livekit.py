"""LiveKit Agents: its OpenTelemetry spans and its session report.

Spans: `function_tool` spans carry `lk.function_tool.name`, `.arguments`, `.output` and
`.is_error` (newer releases put arguments and output under `lk.pii.function_tool.*`, and may add
the GenAI `gen_ai.tool.*` names); `user_turn` carries the caller's transcript, `tts_node` the
text the agent spoke, `llm_node` the time to first token, and the session span `lk.close_reason`.

Session report (`ctx.make_session_report(session).to_dict()`): `chat_history.items` holds
`message`, `function_call` (name, arguments as a JSON string, call_id), `function_call_output`
(call_id, output, is_error) and `agent_handoff` (old_agent_id, new_agent_id) items, each with
`created_at` (epoch seconds); `events` holds `user_state_changed` / `agent_state_changed`
(speaking intervals) and `close` (reason: participant_disconnected, user_initiated,
job_shutdown, error).
"""

from __future__ import annotations

from typing import Any

from hotato.evidence.ingest._doc import Walk
from hotato.evidence.ingest._emit import ABSENT, Emitter
from hotato.evidence.ingest._otel_common import (
    first,
    first_token,
    ids,
    payload,
    span_error,
    text,
)
from hotato.evidence.ingest._otlp import OSpan
from hotato.evidence.ingest._values import jsonish, party, python_literal
from hotato.evidence.ingest.detect import Sniffed, otlp_stack

_ARGS = (
    "lk.function_tool.arguments",
    "lk.pii.function_tool.arguments",
    "gen_ai.tool.call.arguments",
)
_OUTPUT = ("lk.function_tool.output", "lk.pii.function_tool.output")
_USER_TEXT = ("lk.user_transcript", "lk.pii.user_transcript")
_TTS_TEXT = ("lk.input_text", "lk.pii.input_text")
# Spans whose content another LiveKit span already carries: the model request repeats the
# llm_node's time to first token (`gen_ai.response.time_to_first_chunk`), so it is not read twice.
_QUIET = frozenset({"llm_request", "llm_request_run"})

_NAMES = frozenset(
    {
        "function_tool",
        "user_turn",
        "tts_node",
        "tts_request",
        "llm_node",
        "agent_session",
        "agent_turn",
        "update_agent",
        *_QUIET,
    }
)


def claims(s: OSpan) -> bool:
    a = s.attributes
    return (
        s.name in _NAMES
        or s.scope.startswith("livekit")
        or "lk.function_tool.name" in a
        or "lk.close_reason" in a
    )


def output(value: Any) -> Any:
    """A tool output as LiveKit stores it: `str(result)`, so a dict is its Python repr."""
    return python_literal(value)


def map_otel_span(em: Emitter, s: OSpan) -> bool:
    """Map one LiveKit span; False leaves it to the generic OpenTelemetry rules."""
    a = s.attributes
    em.tool_handoff_needs_target = True  # LiveKit records the agent switch itself
    em.identify(first(a, "lk.room_sid", "lk.job_id"), first(a, "lk.cloud_agent_id"))
    if s.name == "function_tool" or "lk.function_tool.name" in a:
        _function_tool(em, s)
        return True
    if "lk.close_reason" in a:
        reason = str(a["lk.close_reason"])
        em.termination(reason, party(reason), at=s.end_ns or s.start_ns)
        return True
    if s.name == "update_agent":
        em.handoff(
            text(a, "lk.agent_label"),
            at=s.start_ns,
            attributes={"from": text(a, "lk.previous_agent_label")},
        )
        return True
    if s.name == "user_turn":
        em.said(
            "caller",
            text(a, *_USER_TEXT, "lk.user_input", "lk.pii.user_input"),
            start=s.start_ns,
            end=s.end_ns,
        )
        return True
    if s.name == "agent_turn":
        # the reply the agent produced; the caller's words here repeat user_turn's
        em.said(
            "caller", text(a, "lk.pii.user_input", "lk.user_input"), start=s.start_ns, fallback=True
        )
        em.said(
            "agent",
            text(a, "lk.pii.response.text", "lk.response.text"),
            start=s.start_ns,
            end=s.end_ns,
        )
        return True
    if s.name in ("tts_node", "tts_request"):
        em.said("agent", text(a, *_TTS_TEXT), start=s.start_ns, end=s.end_ns, fallback=True)
        return True
    if s.name == "llm_node":
        first_token(em, s, a.get("lk.response.ttft"))
        return True
    return s.name in _QUIET


def _function_tool(em: Emitter, s: OSpan) -> None:
    a = s.attributes
    is_error = a.get("lk.function_tool.is_error")
    result = payload(a, *_OUTPUT)
    if result is ABSENT:
        result = payload(a, "gen_ai.tool.call.result")
    result = output(result) if result is not ABSENT else ABSENT
    error = span_error(s)
    if is_error is True:
        # LiveKit's error.type is only the class of failure (`tool_error`); the output holds
        # what the tool raised
        message = result if isinstance(result, str) and result else None
        kind = a.get("error.type")
        if message is not None:
            error = {"type": kind, "message": message} if kind else message
        error = error or True
        result = ABSENT  # what an errored tool "returned" is its error, not a result
    em.tool_call(
        first(a, "lk.function_tool.name", "gen_ai.tool.name") or None,
        start=s.start_ns,
        end=s.end_ns,
        arguments=payload(a, *_ARGS),
        result=result,
        error=error,
        ok=(is_error is False) if isinstance(is_error, bool) else None,
        attributes=ids(em, s, tool_call_id=first(a, "lk.function_tool.id", "gen_ai.tool.call.id")),
    )


# --- session report ---------------------------------------------------------------------------


def detect(sn: Sniffed) -> bool:
    if sn.shape == "document" and is_session_report(sn.doc):
        return True
    return otlp_stack(sn) == "livekit"


_CHAT_TYPES = frozenset(
    {"message", "function_call", "function_call_output", "agent_handoff", "agent_config_update"}
)


def is_chat_history(doc: Any) -> bool:
    """`ChatContext.to_dict()` on its own (a `chat_history.json` upload): `{"items": [...]}`
    whose items are LiveKit chat items."""
    items = doc.get("items") if isinstance(doc, dict) else None
    return (
        isinstance(items, list)
        and bool(items)
        and all(
            isinstance(i, dict) and i.get("type", "message") in _CHAT_TYPES and "id" in i
            for i in items
        )
    )


def is_session_report(doc: Any) -> bool:
    return isinstance(doc, dict) and (
        "chat_history" in doc
        or ("events" in doc and ("job_id" in doc or "room_id" in doc))
        or is_chat_history(doc)
    )


def _ns(w: Walk, value: Any, path: str) -> int | None:
    """An instant of the report: epoch seconds as LiveKit writes them, or any instant
    `Walk.instant` reads (ISO 8601, epoch milliseconds)."""
    return w.instant(value, path)


def read_session_report(doc: Any, name: str, em: Emitter) -> None:
    w = Walk(name)
    if not is_session_report(doc):
        w.bad(
            "$",
            "not a LiveKit session report: expected an object with `chat_history` "
            "(SessionReport.to_dict()) or `items` (ChatContext.to_dict())",
        )
        w.done()
    em.deployment.stack = "livekit"
    em.tool_handoff_needs_target = True  # the agent_handoff item is the switch itself
    if is_chat_history(doc):
        em.source_format = "livekit-chat-history"
        items, items_path, events = doc["items"], "$.items", []
    else:
        em.source_format = "livekit-session-report"
        em.identify(doc.get("room_id") or doc.get("job_id"), doc.get("agent_name"))
        history = doc.get("chat_history")
        items_path = "$.chat_history.items"
        if isinstance(history, list):
            items, items_path = history, "$.chat_history"
        else:
            chat = w.obj(history, "$.chat_history") or {}
            items = w.items(chat.get("items"), items_path)
        events = w.items(doc.get("events"), "$.events")
    em.looked_in.append(items_path)
    started = _ns(w, doc.get("started_at"), "$.started_at")
    if started is not None:
        em.col.base_ns = started
    em.input_count = len(items) + len(events)
    # speaking intervals: from the state-change events when the report has them, else from
    # each message's metrics (never both: they describe the same speech)
    timed_events = any(isinstance(e, dict) and e.get("type") in _STATE_EVENTS for e in events)
    for i, item in enumerate(items):
        _chat_item(w, em, item, f"{items_path}[{i}]", audio=not timed_events)
    em.flush_tools()
    _events(w, em, events)
    w.done()


_STATE_EVENTS = ("user_state_changed", "agent_state_changed")


def _chat_item(w: Walk, em: Emitter, item: Any, path: str, *, audio: bool) -> None:
    obj = w.obj(item, path)
    if obj is None:
        if item is None:
            w.bad(path, "expected an object, got null")
        return
    kind = w.text(obj.get("type", "message"), f"{path}.type")
    at = _ns(w, obj.get("created_at"), f"{path}.created_at")
    em.col.observe(at)
    if kind == "message":
        role = w.text(obj.get("role"), f"{path}.role") or ""
        if role not in ("user", "assistant"):
            return
        content = w.items(obj.get("content"), f"{path}.content")
        said = " ".join(
            c if isinstance(c, str) else str(c.get("transcript") or "")
            for c in content
            if isinstance(c, str | dict)
        ).strip()
        metrics = w.obj(obj.get("metrics"), f"{path}.metrics") or {}
        start = _ns(w, metrics.get("started_speaking_at"), f"{path}.metrics.started_speaking_at")
        end = _ns(w, metrics.get("stopped_speaking_at"), f"{path}.metrics.stopped_speaking_at")
        if start is not None and audio:
            em.speech(role, start=start, end=end, text=said)
        elif start is not None:
            em.said(role, said, start=start, end=end)
        else:
            em.said(role, said, start=at)
    elif kind == "function_call":
        call_id = w.text(obj.get("call_id"), f"{path}.call_id") or f"#{path}"
        name = w.text(obj.get("name"), f"{path}.name")
        args = (
            w.text(obj.get("arguments"), f"{path}.arguments")
            if isinstance(obj.get("arguments"), str | None)
            else obj.get("arguments")
        )
        em.open_tool(
            call_id,
            name,
            jsonish(args) if args is not None else ABSENT,
            start=at,
            attributes={"tool_call_id": call_id},
        )
    elif kind == "function_call_output":
        call_id = w.text(obj.get("call_id"), f"{path}.call_id") or ""
        is_error = w.flag(obj.get("is_error"), f"{path}.is_error")
        output = obj.get("output")
        result = ABSENT if is_error or "output" not in obj else python_literal(output)
        error = (output or True) if is_error else None
        if not em.close_tool(
            call_id,
            result=result,
            error=error,
            ok=None if is_error is None else not is_error,
            end=at,
            name=obj.get("name") if isinstance(obj.get("name"), str) else None,
        ):
            em.tool_call(
                obj.get("name") if isinstance(obj.get("name"), str) else None,
                at=at,
                result=result,
                error=error,
                ok=None if is_error is None else not is_error,
                attributes={"tool_call_id": call_id, "unpaired": True},
            )
    elif kind == "agent_handoff":
        to = w.text(obj.get("new_agent_id"), f"{path}.new_agent_id")
        old = w.text(obj.get("old_agent_id"), f"{path}.old_agent_id")
        if old is not None:  # without a previous agent it is the session's first agent
            em.handoff(to, at=at, attributes={"from": old})


def _events(w: Walk, em: Emitter, events: list[Any]) -> None:
    speaking: dict[str, int | None] = {}
    for i, event in enumerate(events):
        path = f"$.events[{i}]"
        obj = w.obj(event, path)
        if obj is None:
            continue
        kind = obj.get("type")
        at = _ns(w, obj.get("created_at"), f"{path}.created_at")
        em.col.observe(at)
        if kind in ("user_state_changed", "agent_state_changed"):
            who = "caller" if kind == "user_state_changed" else "agent"
            state = w.text(obj.get("new_state"), f"{path}.new_state")
            started = speaking.pop(who, None)
            if started is not None:
                em.span(f"{who}_audio_active", start=started, end=at)
            if state == "speaking" and at is not None:
                speaking[who] = at
        elif kind == "close":
            reason = w.text(obj.get("reason"), f"{path}.reason")
            error = obj.get("error")
            em.termination(
                reason, party(reason), at=at, attributes={"error": error} if error else None
            )
    for who, started in speaking.items():
        if started is not None:
            em.span(f"{who}_audio_active", start=started)
