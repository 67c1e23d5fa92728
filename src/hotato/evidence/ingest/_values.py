"""Small value rules every format shares: JSON-ish payloads, times, parties, built-in tools."""

from __future__ import annotations

import ast
import calendar
import math
import re
from datetime import datetime
from functools import lru_cache
from typing import Any

import msgspec

_decode_any = msgspec.json.Decoder().decode

# Keys that identify a call, an account or a person: dropped unless --include-identifiers.
IDENTIFIER_KEYS = frozenset(
    {
        "call_id",
        "callId",
        "agent_id",
        "agentId",
        "assistant_id",
        "assistantId",
        "session_id",
        "sessionId",
        "room",
        "room_id",
        "room_name",
        "job_id",
        "trace_id",
        "span_id",
        "parent_span_id",
        "tool_call_id",
        "conversation_id",
        "participant_identity",
        "phone_number",
        "from_number",
        "to_number",
    }
)
# Keys that carry spoken or generated text: dropped unless --include-text.
TEXT_KEYS = frozenset({"text", "transcript", "utterance"})


def jsonish(value: Any) -> Any:
    """A payload recorded as a JSON string is read as JSON; any other string stays a string."""
    if isinstance(value, str):
        if value[:1] in _OPENERS:  # the common case: an object or array, decoded as written
            try:
                return _decode_any(value)  # what strip() would leave decodes the same
            except msgspec.DecodeError:
                pass  # the rule below decides
        stripped = value.strip()
        if (
            stripped[:1] in ("{", "[", '"')
            or stripped in ("true", "false", "null")
            or _NUM.match(stripped)
        ):
            try:
                return _decode_any(stripped)
            except msgspec.DecodeError:
                return value
    return value


_OPENERS = ("{", "[")
_NUM = re.compile(r"^-?\d+(\.\d+)?([eE][-+]?\d+)?$")
_REPR_LIMIT = 1 << 20


def python_literal(value: Any) -> Any:
    """A payload a Python stack stored as `str(obj)` (LiveKit writes a tool's dict result as its
    repr, `{'status': 'shipped'}`): read back when it is a plain literal (dict, list, tuple,
    string, number, bool, None); anything else, such as `<Billing object at 0x..>`, stays the
    string it was. JSON is tried first, so a JSON payload reads the same as before."""
    decoded = jsonish(value)
    if not isinstance(decoded, str) or len(decoded) > _REPR_LIMIT:
        return decoded
    stripped = decoded.strip()
    if stripped[:1] not in ("{", "[", "("):
        return decoded
    try:
        literal = ast.literal_eval(stripped)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return decoded
    return _jsonable(literal) if isinstance(literal, dict | list | tuple) else decoded


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [_jsonable(v) for v in value]
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    if isinstance(value, complex | float) and not (
        isinstance(value, float) and math.isfinite(value)
    ):
        return str(value)
    return value


def seconds_to_ns(value: float | None) -> int | None:
    if value is None or not math.isfinite(value):
        return None
    return round(value * 1_000_000_000)


def parse_iso(value: str) -> datetime | None:
    """ISO-8601 text as a datetime (naive when it names no zone); None when it is not ISO."""
    text = value.strip()
    if text[-1:] in ("Z", "z"):
        text = text[:-1] + "+00:00"
    try:
        return datetime.fromisoformat(text)
    except ValueError:
        return None


def iso_to_ns(value: Any) -> int | None:
    """An ISO-8601 timestamp (as Vapi writes them) to epoch nanoseconds; None if unreadable or
    without a zone (its instant is unknown)."""
    if not isinstance(value, str) or not value:
        return None
    parsed = parse_iso(value)
    if parsed is None or parsed.tzinfo is None:
        return None
    # whole seconds since the epoch, exactly, then the microseconds: no float rounding
    whole = calendar.timegm(parsed.utctimetuple())
    return whole * 1_000_000_000 + parsed.microsecond * 1_000


# Epoch numbers are told apart by size, as pydantic (the vendors' SDK models) reads a number
# for a datetime: below 2e10 they are seconds (until the year 2603), below 2e13 milliseconds
# (from 1970-08-21), below 2e16 microseconds, else nanoseconds.
_EPOCH_UNITS = ((2e10, 1_000_000_000), (2e13, 1_000_000), (2e16, 1_000))


def epoch_number_to_ns(value: float) -> int | None:
    """Epoch seconds, milliseconds, microseconds or nanoseconds (by size) to nanoseconds."""
    if not math.isfinite(value):
        return None
    size = abs(value)
    for bound, scale in _EPOCH_UNITS:
        if size < bound:
            return round(value * scale)
    return round(value)


def instant_to_ns(value: Any) -> int | None:
    """An instant as vendors write one, to epoch nanoseconds: ISO 8601 text (with a zone), or
    epoch seconds / milliseconds / microseconds / nanoseconds as a number or as numeric text,
    told apart by size. None for anything else (the time is unknown, never guessed)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return epoch_number_to_ns(value)
    if isinstance(value, str):
        text = value.strip()
        if _NUM.match(text):
            return epoch_number_to_ns(float(text))
        return iso_to_ns(text)
    return None


def latency_ms(start_ns: int | None, end_ns: int | None) -> float | int | None:
    if start_ns is None or end_ns is None or end_ns < start_ns:
        return None
    ms = round((end_ns - start_ns) / 1_000_000, 3)
    return int(ms) if ms == int(ms) else ms


# --- who ended the call -----------------------------------------------------------------------

_PARTY_OVERRIDES = {
    # LiveKit CloseReason: user_initiated means the agent's own code closed the session.
    "participant_disconnected": "caller",
    "user_initiated": "agent",
    "job_shutdown": "system",
    "task_completed": "agent",
    # Retell disconnection_reason
    "call_transfer": "agent",
    "transfer_bridged": "agent",
    "transfer_cancelled": "agent",
    "dial_busy": "caller",
    "dial_no_answer": "caller",
    "dial_failed": "system",
    "voicemail_reached": "system",
}
_CALLER = frozenset({"customer", "user", "caller", "participant", "client", "human", "callee"})
_AGENT = frozenset({"assistant", "agent", "bot", "ai"})
_SYSTEM = frozenset(
    {
        "error",
        "errors",
        "failed",
        "failure",
        "fault",
        "timeout",
        "timed",
        "exceeded",
        "invalid",
        "found",
        "unavailable",
        "crash",
        "crashed",
    }
)
_WORDS = re.compile(r"[a-z]+")


def party(reason: str | None) -> str | None:
    """caller, agent or system for a stack's end-of-call reason; None when there is no reason."""
    if not reason:
        return None
    low = reason.strip().lower()
    if low in _PARTY_OVERRIDES:
        return _PARTY_OVERRIDES[low]
    words = _WORDS.findall(low)
    if words and words[0] in _CALLER:
        return "caller"
    if any(w in _SYSTEM for w in words):
        return "system"
    if words and words[0] in _AGENT:
        return "agent"
    if any(w in _CALLER for w in words):
        return "caller"
    if any(w in _AGENT for w in words):
        return "agent"
    return "system"


# --- built-in tools that are also call events ---------------------------------------------------

_TRANSFER_PREFIXES = ("transfer", "handoff", "hand_off", "forward_call", "warm_transfer")
_DTMF_NAMES = frozenset(
    {
        "dtmf",
        "send_dtmf",
        "press_digit",
        "press_digits",
        "dial_keypad",
        "send_keypad",
        "keypad",
        "send_dtmf_events",
        "play_dtmf",
    }
)
_DEST_KEYS = (
    "destination",
    "to",
    "target",
    "number",
    "phoneNumber",
    "phone_number",
    "transfer_to",
    "agent",
    "agent_name",
    "assistantName",
    "assistant",
    "sipUri",
    "name",
)
_DIGIT_KEYS = ("keys", "digits", "digit", "dtmf", "tones", "sequence")


def _snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name).lower().replace("-", "_")


def tool_effect(name: Any, hint: Any = None) -> str | None:
    """`handoff` or `dtmf` when the tool is a stack's built-in transfer or keypad tool, by its
    name or the stack's hint (a value that is not a string says nothing)."""
    return _effect(name if isinstance(name, str) else None, hint if isinstance(hint, str) else None)


@lru_cache(maxsize=4096)  # a call has a few tools and many spans
def _effect(name: str | None, hint: str | None) -> str | None:
    words = {_snake(w) for w in (name, hint) if w}
    if any(w.startswith(_TRANSFER_PREFIXES) for w in words):
        return "handoff"
    if words & _DTMF_NAMES:
        return "dtmf"
    return None


def destination(arguments: Any) -> str | None:
    """Where a transfer tool sent the call: a number, a SIP URI or an assistant's name."""
    if isinstance(arguments, str):
        return arguments or None
    if not isinstance(arguments, dict):
        return None
    for key in _DEST_KEYS:
        value = arguments.get(key)
        if isinstance(value, str) and value:
            return value
        if isinstance(value, dict):
            inner = destination(value)
            if inner:
                return inner
    return None


def digits(arguments: Any) -> str | None:
    if isinstance(arguments, str | int) and not isinstance(arguments, bool):
        return str(arguments) or None
    if not isinstance(arguments, dict):
        return None
    for key in _DIGIT_KEYS:
        value = arguments.get(key)
        if isinstance(value, str | int) and not isinstance(value, bool) and str(value):
            return str(value)
    return None
