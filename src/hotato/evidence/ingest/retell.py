"""Retell: a call object (GET /v2/get-call/{call_id}) or a webhook that carries it (`call_ended`,
`call_analyzed`, `transcript_updated`, `transfer_*`). Without `transcript_with_tool_calls`, the
PII-scrubbed `scrubbed_transcript_with_tool_calls` is read: its tool arguments and results may
have lost values, so they stay unknown (INCONCLUSIVE), never a scrubbed stand-in.

`transcript_with_tool_calls` is the call in order: `agent` / `user` utterances (with `words[]`
timed in seconds from the call's start), `tool_call_invocation` (`tool_call_id`, `name`,
`arguments` as a JSON string, sometimes `type` such as `transfer_call`), `tool_call_result`
(`tool_call_id`, `content`, `successful`), `dtmf` (one `digit` the caller pressed) and
`node_transition` (`former_node_name`, `new_node_name`). An item's own `time_sec` is its time;
tool items without one are placed at the end of the last timed utterance and get no latency.
`disconnection_reason` (user_hangup, agent_hangup, call_transfer, inactivity, ...) is the
termination; `transfer_destination` names where a transferred call went. A call that never
connected (`call_status: not_connected`, or a reason such as invalid_destination, with no
transcript item) is read evidence: its termination is known, no tool ran, nothing was said.
"""

from __future__ import annotations

from typing import Any

from hotato.evidence.formats import TraceReader
from hotato.evidence.ingest._doc import Walk
from hotato.evidence.ingest._emit import ABSENT, Emitter
from hotato.evidence.ingest._values import jsonish, party, seconds_to_ns
from hotato.evidence.ingest.detect import Sniffed, document
from hotato.model.failure import failure

# Webhooks that carry the whole call object under `call`.
_WEBHOOK_EVENTS = frozenset(
    {
        "call_started",
        "call_ended",
        "call_analyzed",
        "transcript_updated",
        "transfer_started",
        "transfer_bridged",
        "transfer_cancelled",
        "transfer_ended",
    }
)
# Where the call's items are, best first. The scrubbed list (PII removed) is read only when the
# full one is absent; its tool arguments and results may have lost values, so they stay unknown.
_TRANSCRIPTS = (
    "transcript_with_tool_calls",
    "scrubbed_transcript_with_tool_calls",
    "transcript_object",
)
_SCRUBBED = "scrubbed_transcript_with_tool_calls"
# Why a call never connected (Retell's disconnection_reason): with no transcript item, the call
# is read evidence that nothing happened, not an export that is missing its call.
_NEVER_CONNECTED = frozenset(
    {
        "dial_busy",
        "dial_failed",
        "dial_no_answer",
        "invalid_destination",
        "telephony_provider_permission_denied",
        "telephony_provider_unavailable",
        "sip_routing_error",
        "marked_as_spam",
        "user_declined",
        "registered_call_timeout",
        "error_user_not_joined",
    }
)


def _call(doc: Any) -> tuple[dict[str, Any], str] | None:
    if not isinstance(doc, dict):
        return None
    event = doc.get("event")
    if isinstance(event, str) and event in _WEBHOOK_EVENTS and isinstance(doc.get("call"), dict):
        return doc["call"], "$.call"
    if (
        "transcript_with_tool_calls" in doc
        or "disconnection_reason" in doc
        or ("call_id" in doc and "call_status" in doc)
    ):
        return doc, "$"
    return None


def is_call(doc: Any) -> bool:
    return _call(doc) is not None


def detect(sn: Sniffed) -> bool:
    return sn.shape == "document" and is_call(sn.doc)


def read(sn: Sniffed, em: Emitter) -> None:
    read_document(document(sn, "retell"), sn.path, em)


def read_document(doc: Any, name: str, em: Emitter) -> None:
    w = Walk(name)
    found = _call(doc)
    if found is None:
        w.bad(
            "$",
            "not a Retell call object: expected `transcript_with_tool_calls` and "
            "`disconnection_reason` (or a call_ended webhook with `call`)",
        )
        w.done()
        return
    call, base = found
    em.source_format = "retell-call"
    em.deployment.stack = "retell"
    em.col.base_ns = 0  # word times are seconds from the call's start
    em.identify(call.get("call_id"), call.get("agent_id"))
    target = call.get("transfer_destination")
    em.transfer_to = target if isinstance(target, str) and target else None
    key = next((k for k in _TRANSCRIPTS if call.get(k) is not None), _TRANSCRIPTS[0])
    em.looked_in.extend(f"{base}.{k}" for k in _TRANSCRIPTS)
    scrubbed = key == _SCRUBBED
    if scrubbed:
        em.source_format = "retell-call-scrubbed"
    items = w.items(call.get(key), f"{base}.{key}")
    em.input_count = len(items)
    cursor = 0
    keys: list[str] = []
    keys_at = 0
    for i, item in enumerate(items):
        path = f"{base}.{key}[{i}]"
        obj = w.obj(item, path)
        if obj is None:
            if item is None:
                w.bad(path, "expected an object, got null")
            continue
        role = w.text(obj.get("role"), f"{path}.role") or ""
        stamped = seconds_to_ns(w.number(obj.get("time_sec"), f"{path}.time_sec"))
        if stamped is not None and role not in ("agent", "user", "transfer_target"):
            cursor = stamped  # an item's own time, when Retell gives one
        if role != "dtmf" and keys:
            em.dtmf("".join(keys), by="caller", at=keys_at)
            keys = []
        if role == "dtmf":
            digit = obj.get("digit")
            if not isinstance(digit, str | int) or isinstance(digit, bool):
                w.bad(f"{path}.digit", "expected the pressed key as a string")
                continue
            if not keys:
                keys_at = cursor
            keys.append(str(digit))
        elif role in ("agent", "user", "transfer_target"):
            cursor = _utterance(w, em, obj, path, role, cursor)
        elif role == "tool_call_invocation":
            call_key = w.text(obj.get("tool_call_id"), f"{path}.tool_call_id") or f"#{path}"
            args = w.text(obj.get("arguments"), f"{path}.arguments")
            if scrubbed:
                args = None  # values may have been scrubbed: unknown, not what was passed
            em.open_tool(
                call_key,
                w.text(obj.get("name"), f"{path}.name"),
                jsonish(args) if args is not None else ABSENT,
                at=cursor,
                hint=obj.get("type") if isinstance(obj.get("type"), str) else None,
                attributes={"tool_call_id": call_key},
            )
        elif role == "tool_call_result":
            call_key = w.text(obj.get("tool_call_id"), f"{path}.tool_call_id") or ""
            ok = w.flag(obj.get("successful"), f"{path}.successful")
            content = obj.get("content")
            result = ABSENT if ok is False or "content" not in obj or scrubbed else jsonish(content)
            error = ((content if not scrubbed else None) or True) if ok is False else None
            if ok and result is not ABSENT and failure(result) is not None:
                ok = None  # the function's own result says it failed: not written as "ok"
            if not em.close_tool(call_key, result=result, error=error, ok=ok):
                em.tool_call(
                    None,
                    at=cursor,
                    result=result,
                    error=error,
                    ok=ok,
                    attributes={"tool_call_id": call_key, "unpaired": True},
                )
        elif role == "node_transition":
            em.span(
                "node_transition",
                at=cursor,
                to=w.text(obj.get("new_node_name"), f"{path}.new_node_name"),
                attributes={
                    "from": w.text(obj.get("former_node_name"), f"{path}.former_node_name")
                },
            )
    if keys:
        em.dtmf("".join(keys), by="caller", at=keys_at)
    em.flush_tools()
    _ending(w, em, call, base, cursor)
    em.never_connected = not items and _never_connected(call)
    w.done()


def _never_connected(call: dict[str, Any]) -> bool:
    """Retell says the call never connected: `call_status: not_connected`, or a
    disconnection_reason that means it (a dial that failed, an invalid number, ...)."""
    status, reason = call.get("call_status"), call.get("disconnection_reason")
    return status == "not_connected" or (isinstance(reason, str) and reason in _NEVER_CONNECTED)


def _utterance(w: Walk, em: Emitter, obj: dict[str, Any], path: str, role: str, cursor: int) -> int:
    said = w.text(obj.get("content"), f"{path}.content")
    words = w.items(obj.get("words"), f"{path}.words")
    starts = [
        w.number(x.get("start"), f"{path}.words[{j}].start")
        for j, x in enumerate(words)
        if isinstance(x, dict)
    ]
    ends = [
        w.number(x.get("end"), f"{path}.words[{j}].end")
        for j, x in enumerate(words)
        if isinstance(x, dict)
    ]
    start = seconds_to_ns(next((s for s in starts if s is not None), None))
    end = seconds_to_ns(next((e for e in reversed(ends) if e is not None), None))
    if role == "transfer_target":
        em.said("transfer_target", said, start=start, end=end)
    else:
        em.speech("caller" if role == "user" else "agent", start=start, end=end, text=said)
    return end if end is not None else (start if start is not None else cursor)


def _ending(w: Walk, em: Emitter, call: dict[str, Any], base: str, cursor: int) -> None:
    reason = w.text(call.get("disconnection_reason"), f"{base}.disconnection_reason")
    duration_ms = w.number(call.get("duration_ms"), f"{base}.duration_ms")
    started = w.instant(call.get("start_timestamp"), f"{base}.start_timestamp")
    ended = w.instant(call.get("end_timestamp"), f"{base}.end_timestamp")
    at = round(duration_ms * 1_000_000) if duration_ms is not None else cursor
    if started is not None and ended is not None and ended >= started:
        at = ended - started  # the absolute clock (epoch ms, or ISO 8601) first
    target = w.text(call.get("transfer_destination"), f"{base}.transfer_destination")
    if target and not em.col.counts.get("handoff"):
        em.handoff(target, at=at)
    if reason:
        em.termination(reason, party(reason), at=at)


RETELL = TraceReader(detect, read)
