"""Pipecat: the OpenTelemetry spans its tracing writes (tracer `pipecat`).

A `conversation` span (`conversation.id`) holds `turn` spans (`turn.number`,
`turn.was_interrupted`), which hold `stt` (`transcript`, `is_final`), `llm` and `tts` (`text`)
spans with `metrics.ttfb`. Realtime services add `llm_tool_call` spans (`tool.function_name`,
`tool.call_id`, `tool.arguments`) and `llm_tool_result` spans (`tool.call_id`, `tool.result`,
`tool.result_status`), paired here by call id into one `tool_call`; OpenAI Realtime records
none, and its calls and results are read from the `llm_request` span's `input` context.
Pipecat records processing spans, not audio activity, so stt/llm/tts keep their own span
types. Keypad input reaches the model as a transcription `DTMF: <digits>` (Pipecat's
DTMFAggregator); such an stt span is also a `dtmf` span.
"""

from __future__ import annotations

import re
from typing import Any

from hotato.evidence.ingest._emit import ABSENT, Emitter
from hotato.evidence.ingest._otel_common import first, first_token, payload, span_error, text
from hotato.evidence.ingest._otlp import OSpan
from hotato.evidence.ingest._values import jsonish
from hotato.evidence.ingest.detect import Sniffed, otlp_stack

_SPANS = frozenset(
    {
        "conversation",
        "turn",
        "stt",
        "llm",
        "tts",
        "llm_tool_call",
        "llm_tool_result",
        "llm_setup",
        "llm_request",
        "llm_response",
    }
)
_DTMF = re.compile(r"^\s*DTMF:\s*([0-9*#A-Da-d]+)\s*$")
_FAILED = frozenset({"error", "parse_error", "processing_error", "failed"})
# What Pipecat's assistant aggregator writes as a tool message's content in the context: while
# the call runs (the next snapshot holds its outcome), and when the function returned nothing
# (settled, result unknown).
_RUNNING = frozenset({"IN_PROGRESS"})
_NO_RESULT = frozenset({"COMPLETED"})
# What Pipecat's LLM service reports as the result of a function that raised
# (`LLMService.FUNCTION_CALL_ERROR_MESSAGE_TEMPLATE`): an error, not a result.
_RAISED = re.compile(r"^The function `[^`]*` failed and returned no result\.$")


def detect(sn: Sniffed) -> bool:
    return otlp_stack(sn) == "pipecat"


def claims(s: OSpan, stack: str | None) -> bool:
    return s.name in _SPANS and (
        s.scope == "pipecat" or s.scope.startswith("pipecat.") or stack == "pipecat"
    )


def map_otel_span(em: Emitter, s: OSpan) -> bool:
    a = s.attributes
    if s.name == "conversation":
        em.identify(a.get("conversation.id"))
        return True
    if s.name == "turn":
        em.identify(a.get("conversation.id"))
        em.span(
            "turn",
            start=s.start_ns,
            end=s.end_ns,
            attributes={
                "number": a.get("turn.number"),
                "was_interrupted": a.get("turn.was_interrupted"),
            },
        )
        return True
    if s.name == "stt":
        said = text(a, "transcript")
        keys = _DTMF.match(said) if said else None
        if keys:
            em.dtmf(keys.group(1), by="caller", at=s.start_ns)
            return True
        em.span("stt", start=s.start_ns, end=s.end_ns, extra=em.text_fields(said))
        # one span is one segment; `is_final: false` only says the service never marked it
        # finalized (Pipecat then closes the span when the user stops speaking)
        em.said("caller", said, start=s.start_ns, end=s.end_ns)
        return True
    if s.name == "tts":
        said = text(a, "text")
        em.span("tts", start=s.start_ns, end=s.end_ns, extra=em.text_fields(said))
        em.said("agent", said, start=s.start_ns, end=s.end_ns)
        return True
    if s.name in ("llm", "llm_response"):
        em.span("llm", start=s.start_ns, end=s.end_ns, status="error" if span_error(s) else None)
        first_token(em, s, a.get("metrics.ttfb"))
        _context_tools(em, s)
        # a realtime model (Gemini Live, OpenAI Realtime) has no tts span: its words are here
        em.said(
            "agent", text(a, "output"), start=s.start_ns, end=s.end_ns, fallback=s.name == "llm"
        )
        return True
    if s.name == "llm_tool_call":
        key = str(first(a, "tool.call_id") or f"{s.trace_id}:{s.span_id}")
        em.open_tool(
            key,
            text(a, "tool.function_name"),
            payload(a, "tool.arguments"),
            start=s.start_ns,
            attributes={"tool_call_id": a.get("tool.call_id")},
        )
        return True
    if s.name == "llm_tool_result":
        status = text(a, "tool.result_status")
        failed = (status or "").lower() in _FAILED
        result = payload(a, "tool.result")
        error = span_error(s) or ((result if result is not ABSENT else True) if failed else None)
        ok = None if status is None else not failed
        key = str(first(a, "tool.call_id") or "")
        if not em.close_tool(
            key,
            result=ABSENT if failed else result,
            error=error,
            ok=ok,
            end=s.end_ns,
            name=text(a, "tool.function_name"),
        ):
            em.tool_call(
                text(a, "tool.function_name"),
                start=s.start_ns,
                end=s.end_ns,
                result=ABSENT if failed else result,
                error=error,
                ok=ok,
                attributes={"tool_call_id": a.get("tool.call_id")},
            )
        return True
    if s.name == "llm_request":
        # OpenAI Realtime records no tool span: each request's `input` is the whole context
        _context_tools(em, s)
        return True
    return s.name == "llm_setup"


def _context_tools(em: Emitter, s: OSpan) -> None:
    """A cascaded pipeline records no tool span: its calls and results are in the next `llm`
    span's `input` messages (OpenAI format). Each call is read once, at the start of the first
    span that shows it (its true start is earlier and unknown, so it gets no latency)."""
    messages = jsonish(s.attributes.get("input"))
    if not isinstance(messages, list):
        return
    for message in messages:
        if not isinstance(message, dict):
            continue
        if message.get("role") == "assistant" and isinstance(message.get("tool_calls"), list):
            for call in message["tool_calls"]:
                if not isinstance(call, dict) or not isinstance(call.get("id"), str):
                    continue
                key = f"ctx:{call['id']}"
                if key in em.seen:
                    continue
                em.seen.add(key)
                raw = call.get("function")
                function: dict[str, Any] = raw if isinstance(raw, dict) else {}
                args = function.get("arguments", ABSENT)
                name = function.get("name")
                em.open_tool(
                    key,
                    name if isinstance(name, str) else None,
                    jsonish(args) if args is not ABSENT else ABSENT,
                    at=s.start_ns,
                    attributes={"tool_call_id": call["id"]},
                )
        elif message.get("role") == "tool" and isinstance(message.get("tool_call_id"), str):
            _context_result(em, f"ctx:{message['tool_call_id']}", message.get("content", ABSENT))


def _context_result(em: Emitter, key: str, content: Any) -> None:
    """A tool message closes its call, unless Pipecat's placeholder says it is still running."""
    value = jsonish(content) if content is not ABSENT else ABSENT
    if isinstance(value, str) and value in _RUNNING:
        return
    if isinstance(value, str) and value in _NO_RESULT:
        em.close_tool(key, ok=True)
    elif isinstance(value, str) and _RAISED.match(value):
        em.close_tool(key, error=value)
    else:
        em.close_tool(key, result=value)
