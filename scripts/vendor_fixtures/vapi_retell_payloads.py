"""Build Vapi and Retell webhook bodies with the vendors' own SDK models (vapi-server-sdk 1.4.x,
retell-sdk 4.40.x, from PyPI: their pins conflict with the test extra's, so give them a
virtualenv of their own) and write them as the vendors send them.

Each body is made by the SDK's pydantic model (so its every field is one the vendor defines,
with the vendor's own types), dumped by the SDK under the wire names. One thing the real
server sends differs from its SDK's type, and is written as sent: Vapi's `tool-calls` message
carries `timestamp` as ISO 8601 text, where the SDK types it as epoch milliseconds; the
fixture keeps the SDK's number beside it (`timestampMs`, checked by tests/ingest/
test_vendor_types.py to be the same instant) so the difference is visible and exact.

    python -m venv /tmp/fixenv
    /tmp/fixenv/bin/pip install 'vapi-server-sdk==1.4.*' 'retell-sdk==4.40.*'
    /tmp/fixenv/bin/python scripts/make_vendor_fixtures.py vapi-retell
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from importlib.metadata import version
from pathlib import Path
from typing import Any

CALL_START_MS = 1764547200000  # 2025-12-01T00:00:00Z


def _iso(ms: int) -> str:
    return (
        datetime.fromtimestamp(ms / 1000, tz=UTC)
        .isoformat(timespec="milliseconds")
        .replace("+00:00", "Z")
    )


def _dump(model: Any) -> Any:
    return json.loads(model.model_dump_json(by_alias=True, exclude_none=True))


def vapi_tool_calls() -> dict[str, Any]:
    """A mid-call `tool-calls` message: the two calls Vapi asks the server to run now."""
    from vapi.types.server_message_tool_calls import ServerMessageToolCalls

    at = CALL_START_MS + 12_250
    calls = [
        {
            "id": "call_lookup",
            "type": "function",
            "function": {"name": "lookup_order", "arguments": {"order_id": "A17"}},
        },
        {
            "id": "call_refund",
            "type": "function",
            "function": {"name": "issue_refund", "arguments": {"order_id": "A17", "amount": 40}},
        },
    ]
    message = ServerMessageToolCalls.model_validate(
        {
            "type": "tool-calls",
            "timestamp": at,
            "tool_with_tool_call_list": [
                {"type": "function", "tool_call": c, "function": {"name": c["function"]["name"]}}
                for c in calls
            ],
            "tool_call_list": calls,
        }
    )
    body = message.dict()  # Fern's models write their wire names (toolCallList, ...)
    body["timestampMs"] = body["timestamp"]
    body["timestamp"] = _iso(at)  # as Vapi's server sends it
    return {"message": body}


def retell_not_connected() -> dict[str, Any]:
    """A `call_ended` webhook for an outbound call that never connected."""
    from retell.types.phone_call_response import PhoneCallResponse

    call = PhoneCallResponse.model_validate(
        {
            "call_type": "phone_call",
            "direction": "outbound",
            "from_number": "+15550100",
            "to_number": "+1555",
            "agent_id": "agent_fx2",
            "agent_version": 1,
            "call_id": "call_fx_nc",
            "call_status": "not_connected",
            "disconnection_reason": "invalid_destination",
            "data_storage_setting": "everything",
        }
    )
    return {"event": "call_ended", "call": _dump(call)}


def _words(text: str, start: float, end: float) -> list[dict[str, Any]]:
    words = text.split()
    step = (end - start) / len(words)
    return [
        {"word": w, "start": round(start + i * step, 3), "end": round(start + (i + 1) * step, 3)}
        for i, w in enumerate(words)
    ]


def retell_function_failed() -> dict[str, Any]:
    """A call whose custom function answered `{success: false, error: ...}` in its result
    `content` while Retell marked the invocation successful, and the agent said so."""
    from retell.types.phone_call_response import PhoneCallResponse

    said = [
        ("agent", "Thanks for calling, how can I help?", 0.4, 2.0),
        ("user", "Please charge my card on file for the renewal.", 2.5, 5.0),
        ("agent", "I'm sorry, the card was declined, so nothing was charged.", 7.0, 10.0),
    ]
    items: list[dict[str, Any]] = [
        {"role": r, "content": t, "words": _words(t, a, b)} for r, t, a, b in said[:2]
    ]
    items += [
        {
            "role": "tool_call_invocation",
            "tool_call_id": "tc_charge",
            "name": "charge_card",
            "arguments": json.dumps({"amount": 120, "currency": "USD"}),
        },
        {
            "role": "tool_call_result",
            "tool_call_id": "tc_charge",
            "content": json.dumps({"success": False, "error": "card declined"}),
            "successful": True,
        },
    ]
    r, t, a, b = said[2]
    items.append({"role": r, "content": t, "words": _words(t, a, b)})
    call = PhoneCallResponse.model_validate(
        {
            "call_type": "phone_call",
            "direction": "inbound",
            "from_number": "+15550100",
            "to_number": "+15550111",
            "agent_id": "agent_fx3",
            "agent_version": 2,
            "call_id": "call_fx_fail",
            "call_status": "ended",
            "start_timestamp": CALL_START_MS,
            "end_timestamp": CALL_START_MS + 11_000,
            "duration_ms": 11_000,
            "disconnection_reason": "agent_hangup",
            "data_storage_setting": "everything",
            "transcript_with_tool_calls": items,
        }
    )
    return {"event": "call_ended", "call": _dump(call)}


def generate(out: Path) -> list[Path]:
    vapi = version("vapi-server-sdk").rsplit(".", 1)[0]
    retell = version("retell-sdk").rsplit(".", 1)[0]
    made = {
        f"vapi_{vapi}_tool_calls_iso_timestamp.json": vapi_tool_calls(),
        f"retell_{retell}_not_connected.json": retell_not_connected(),
        f"retell_{retell}_function_result_failed.json": retell_function_failed(),
    }
    written = []
    for name, body in made.items():
        path = out / name
        path.write_text(json.dumps(body, indent=1, sort_keys=False) + "\n", encoding="utf-8")
        written.append(path)
    return written
