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
from hotato.evidence.ingest._values import jsonish, party, seconds_to_ns
from hotato.evidence.ingest.detect import Sniffed, otlp_stack

_ARGS = (
    "lk.function_tool.arguments",
    "lk.pii.function_tool.arguments",
    "gen_ai.tool.call.arguments",
)
_OUTPUT = ("lk.function_tool.output", "lk.pii.function_tool.output", "gen_ai.tool.call.result")


_NAMES = frozenset({"function_tool", "user_turn", "tts_node", "llm_node", "agent_session"})


def claims(s: OSpan) -> bool:
    a = s.attributes
    return (
        s.name in _NAMES
        or s.scope.startswith("livekit")
        or "lk.function_tool.name" in a
        or "lk.close_reason" in a
    )


def map_otel_span(em: Emitter, s: OSpan) -> bool:
    """Map one LiveKit span; False leaves it to the generic OpenTelemetry rules."""
    a = s.attributes
    em.identify(first(a, "lk.room_sid", "lk.job_id"), first(a, "lk.cloud_agent_id"))
    if s.name == "function_tool" or "lk.function_tool.name" in a:
        is_error = a.get("lk.function_tool.is_error")
        output = payload(a, *_OUTPUT)
        error = span_error(s)
        if is_error is True:
            error = error or (output if output is not ABSENT and output else True)
            output = ABSENT  # what an errored tool "returned" is its error, not a result
        em.tool_call(
            first(a, "lk.function_tool.name", "gen_ai.tool.name") or None,
            start=s.start_ns,
            end=s.end_ns,
            arguments=payload(a, *_ARGS),
            result=output,
            error=error,
            ok=(is_error is False) if isinstance(is_error, bool) else None,
            attributes=ids(
                em, s, tool_call_id=first(a, "lk.function_tool.id", "gen_ai.tool.call.id")
            ),
        )
        return True
    if "lk.close_reason" in a:
        reason = str(a["lk.close_reason"])
        em.termination(reason, party(reason), at=s.end_ns or s.start_ns)
        return True
    if s.name == "user_turn":
        em.said(
            "caller",
            text(
                a,
                "lk.user_transcript",
                "lk.pii.user_transcript",
                "lk.user_input",
                "lk.pii.user_input",
            ),
            start=s.start_ns,
            end=s.end_ns,
        )
        return True
    if s.name == "tts_node":
        em.said(
            "agent", text(a, "lk.input_text", "lk.pii.input_text"), start=s.start_ns, end=s.end_ns
        )
        return True
    if s.name == "llm_node":
        first_token(em, s, a.get("lk.response.ttft"))
        return True
    return False


# --- session report ---------------------------------------------------------------------------


def detect(sn: Sniffed) -> bool:
    if sn.shape == "document":
        return is_session_report(sn.doc)
    return otlp_stack(sn) == "livekit"


def read(sn: Sniffed, em: Emitter) -> None:
    """A session report (or an uploaded chat history), or LiveKit's OTLP spans."""
    if sn.shape == "document" and is_session_report(sn.doc):
        read_session_report(sn.doc, sn.path, em)
        return
    from hotato.evidence.ingest import otel  # otel offers each span to this module first

    otel.read(sn, em, "livekit")


def is_session_report(doc: Any) -> bool:
    return isinstance(doc, dict) and (
        "chat_history" in doc or ("events" in doc and ("job_id" in doc or "room_id" in doc))
    )


def _ns(w: Walk, value: Any, path: str) -> int | None:
    return seconds_to_ns(w.number(value, path))


def read_session_report(doc: Any, name: str, em: Emitter) -> None:
    w = Walk(name)
    if not is_session_report(doc):
        w.bad(
            "$",
            "not a LiveKit session report: expected an object with `chat_history` "
            "(SessionReport.to_dict())",
        )
        w.done()
    em.source_format = "livekit-session-report"
    em.deployment.stack = "livekit"
    em.identify(doc.get("room_id") or doc.get("job_id"), doc.get("agent_name"))
    started = _ns(w, doc.get("started_at"), "$.started_at")
    if started is not None:
        em.col.base_ns = started
    history = doc.get("chat_history")
    items_path = "$.chat_history.items"
    if isinstance(history, list):
        items, items_path = history, "$.chat_history"
    else:
        chat = w.obj(history, "$.chat_history") or {}
        items = w.items(chat.get("items"), items_path)
    events = w.items(doc.get("events"), "$.events")
    em.input_count = len(items) + len(events)
    for i, item in enumerate(items):
        _chat_item(w, em, item, f"{items_path}[{i}]")
    em.flush_tools()
    _events(w, em, events)
    w.done()


def _chat_item(w: Walk, em: Emitter, item: Any, path: str) -> None:
    obj = w.obj(item, path)
    if obj is None:
        if item is None:
            w.bad(path, "expected an object, got null")
        return
    kind = w.text(obj.get("type", "message"), f"{path}.type")
    at = _ns(w, obj.get("created_at"), f"{path}.created_at")
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
        if start is not None:
            em.speech(role, start=start, end=end, text=said)
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
        result = ABSENT if is_error or "output" not in obj else jsonish(output)
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
