"""What a received body is: a call to grade (its id, agent, start and variables), a message to
acknowledge and ignore, or a refusal with the reason. The body itself is graded later by the
ingest every other command uses (hotato.evidence.ingest); here only its envelope is read."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import msgspec

from hotato.serve.spool import Header

VAPI_GRADED = "end-of-call-report"
RETELL_GRADED = frozenset({"call_ended", "call_analyzed"})
_MAX_ID = 512


class Refused(Exception):
    """A body that is not what the endpoint takes: a 4xx with this message."""


@dataclass(frozen=True)
class Ignored:
    what: str  # the message type acknowledged and not graded


def _object(body: bytes) -> dict[str, Any]:
    try:
        doc = msgspec.json.decode(body)
    except msgspec.DecodeError as exc:
        raise Refused(f"the body is not JSON ({exc})") from None
    if not isinstance(doc, dict):
        raise Refused("the body is not a JSON object")
    return doc


def _id(value: Any, where: str) -> str:
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str) or not value.strip():
        raise Refused(f"{where} is missing or not a string: no call id")
    if len(value) > _MAX_ID:
        raise Refused(f"{where} is longer than {_MAX_ID} characters")
    return value


def _obj(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _dig(doc: Any, path: str) -> Any:
    for part in path.split("."):
        if not isinstance(doc, dict):
            return None
        doc = doc.get(part)
    return doc


def _scalars(value: Any) -> dict[str, Any]:
    """A vendor's metadata or variables object, as columns (nested values kept as they are)."""
    return {str(k): v for k, v in value.items()} if isinstance(value, dict) else {}


def variables(doc: dict[str, Any], base: dict[str, Any], mapping: dict[str, str]) -> dict[str, Any]:
    """The call's `${call.COLUMN}` values: the vendor's own, then each mapped path (a path the
    body lacks gives no value, so an assertion using it is refused for this call)."""
    out = dict(base)
    for column, path in mapping.items():
        value = _dig(doc, path)
        if value is not None:
            out[column] = value
        else:
            out.pop(column, None)
    return out


class _VapiMessage(msgspec.Struct):
    """The fields of a Vapi server message the envelope reads; the transcript and messages
    (most of a 20 KB report) are skipped by the decoder, never built as Python objects."""

    type: Any = None
    call: Any = None
    assistant: Any = None
    startedAt: Any = None


class _Vapi(msgspec.Struct):
    message: _VapiMessage


_VAPI = msgspec.json.Decoder(_Vapi)


def vapi(body: bytes, mapping: dict[str, str]) -> Header | Ignored:
    """A Vapi server message: `{"message": {"type": ..., "call": {...}, ...}}`."""
    doc: dict[str, Any] = {}
    try:
        if mapping:
            raise msgspec.ValidationError  # a mapped path may be anywhere: read it all
        message = msgspec.structs.asdict(_VAPI.decode(body).message)
    except (msgspec.ValidationError, msgspec.DecodeError):
        doc = _object(body)  # the whole body, for the mapping or for a located refusal
        message = doc.get("message")  # type: ignore[assignment]
        if not isinstance(message, dict):
            raise Refused("not a Vapi server message: no `message` object") from None
    kind = message.get("type")
    if kind != VAPI_GRADED:
        return Ignored(str(kind))
    call = _obj(message.get("call"))
    assistant = _obj(message.get("assistant"))
    base = {
        **_scalars(_dig(call, "assistantOverrides.variableValues")),
        **_scalars(call.get("metadata")),
    }
    return Header(
        source="vapi",
        call_id=_id(call.get("id"), "$.message.call.id"),
        agent=_text(call.get("assistantId")) or _text(assistant.get("id")),
        started_at=_text(message.get("startedAt")) or _text(call.get("startedAt")),
        variables=variables(doc, base, mapping),
    )


class _RetellCall(msgspec.Struct):
    """The fields of a Retell call the envelope reads (the transcript is skipped)."""

    call_id: Any = None
    agent_id: Any = None
    start_timestamp: Any = None
    metadata: Any = None
    retell_llm_dynamic_variables: Any = None


class _Retell(msgspec.Struct):
    event: Any = None
    call: _RetellCall | None = None


_RETELL = msgspec.json.Decoder(_Retell)


def retell(body: bytes, mapping: dict[str, str]) -> Header | Ignored:
    """A Retell webhook: `{"event": ..., "call": {...}}`; call_ended and call_analyzed grade
    the call (whichever arrives first: the other is the same call id)."""
    doc: dict[str, Any]
    try:
        if mapping:
            raise msgspec.ValidationError  # a mapped path may be anywhere: read it all
        envelope = _RETELL.decode(body)
        doc = {
            "event": envelope.event,
            "call": None if envelope.call is None else msgspec.structs.asdict(envelope.call),
        }
    except (msgspec.ValidationError, msgspec.DecodeError):
        doc = _object(body)
    event = doc.get("event")
    if event not in RETELL_GRADED:
        if not isinstance(event, str):
            raise Refused("not a Retell webhook: no `event`")
        return Ignored(event)
    call = doc.get("call")
    if not isinstance(call, dict):
        raise Refused("a Retell call event without a `call` object")
    base = {**_scalars(call.get("retell_llm_dynamic_variables")), **_scalars(call.get("metadata"))}
    return Header(
        source="retell",
        call_id=_id(call.get("call_id"), "$.call.call_id"),
        agent=_text(call.get("agent_id")),
        started_at=_epoch_ms(call.get("start_timestamp")),
        variables=variables(doc, base, mapping),
    )


class NativeCall(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """`POST /calls`: a call from any other stack. `trace` is a list of voice_trace lines (the
    `_meta` line optional) or one export document a `hotato trace ingest` reads (Vapi, Retell,
    LiveKit's session report, OTLP/JSON); `transcript` as `--transcript` takes it."""

    call_id: str | int
    trace: list[dict[str, Any]] | dict[str, Any] | None = None
    transcript: list[Any] | dict[str, Any] | None = None
    agent: str | None = None
    started_at: str | None = None
    variables: dict[str, Any] = {}


def native(body: bytes, mapping: dict[str, str]) -> tuple[Header, NativeCall]:
    try:
        call = msgspec.json.decode(body, type=NativeCall)
    except msgspec.ValidationError as exc:
        raise Refused(f"not a call: {exc}") from None
    except msgspec.DecodeError as exc:
        raise Refused(f"the body is not JSON ({exc})") from None
    if call.trace is None and call.transcript is None:
        raise Refused("a call needs a `trace`, a `transcript` or both")
    doc = msgspec.json.decode(body) if mapping else {}
    header = Header(
        source="calls",
        call_id=_id(call.call_id, "$.call_id"),
        agent=call.agent,
        started_at=call.started_at,
        variables=variables(doc, call.variables, mapping),
    )
    return header, call


def _epoch_ms(value: Any) -> str | None:
    if not isinstance(value, int | float) or isinstance(value, bool):
        return None
    try:
        return datetime.fromtimestamp(value / 1000, UTC).isoformat().replace("+00:00", "Z")
    except (OverflowError, OSError, ValueError):
        return None
