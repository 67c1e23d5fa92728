"""The Vapi and Retell fixtures are what the vendors' own SDK types define: each is validated by
vapi-server-sdk / retell-sdk models, and a field the models do not define is refused, so a
guess about a vendor's shape cannot sneak into the fixtures."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import pytest
from tests.ingest._util import DATA

if TYPE_CHECKING:
    import pydantic

# the SDKs' models take seconds to import in each worker: in `make test`, not the edit loop
pytestmark = pytest.mark.slow

VENDORS = DATA / "vendors"


@pytest.fixture(autouse=True)
def _sdks() -> Iterator[None]:
    # In the `test` extra; skipped (with this reason) only in a virtualenv made before they were.
    reason = "{} is in the test extra: pip install -e '.[test]'"
    pytest.importorskip("vapi", reason=reason.format("vapi-server-sdk"))
    pytest.importorskip("retell", reason=reason.format("retell-sdk"))
    yield


# Seen in real Vapi squad captures (messages outside the artifact), not in the SDK's model:
# kept on purpose, because hotato must read what the vendor really sends.
OUTSIDE_THE_SDK = {"vapi_squad_end_of_call_report.json": ["$.messages"]}


def _model(name: str) -> tuple[type[pydantic.BaseModel], str | None]:
    if name.startswith("vapi_"):
        from vapi.types.server_message_end_of_call_report import ServerMessageEndOfCallReport
        from vapi.types.server_message_tool_calls import ServerMessageToolCalls

        kind = ServerMessageToolCalls if "tool_calls" in name else ServerMessageEndOfCallReport
        return kind, "message"
    from retell.types.phone_call_response import PhoneCallResponse

    return PhoneCallResponse, ("call" if "call.json" not in name else None)


def undefined_fields(value: Any, path: str = "$") -> list[str]:
    """Every key the validated models kept as an extra: a field their schema does not define."""
    found: list[str] = []
    import pydantic  # comes with the SDKs

    if isinstance(value, pydantic.BaseModel):
        found += [f"{path}.{key}" for key in value.model_extra or {}]
        for name in type(value).model_fields:
            found += undefined_fields(getattr(value, name), f"{path}.{name}")
    elif isinstance(value, list | tuple):
        for i, item in enumerate(value):
            found += undefined_fields(item, f"{path}[{i}]")
    elif isinstance(value, dict):
        for key, item in value.items():
            found += undefined_fields(item, f"{path}.{key}")
    return found


NAMES = sorted(p.name for p in VENDORS.glob("*.json") if p.name.startswith(("vapi_", "retell_")))
# Made by an SDK release whose types differ from the test extra's (vapi-server-sdk 1.4 writes a
# tool call's arguments as an object, 3.x as text): scripts/vendor_fixtures/vapi_retell_payloads.py
# builds each with that release's models, which validated it there.
OTHER_RELEASE = {"vapi_1.4_tool_calls_iso_timestamp.json"}
# What the vendor's server sends that its SDK types otherwise: Vapi's `tool-calls` timestamp
# is ISO 8601 text on the wire, epoch milliseconds in the SDK (kept beside it as timestampMs).
AS_SENT = {"vapi_1.4_tool_calls_iso_timestamp.json": ("timestamp", "timestampMs")}


def test_there_are_fixtures_for_both_vendors() -> None:
    assert any(n.startswith("vapi_") for n in NAMES) and any(n.startswith("retell_") for n in NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_fixture_is_what_the_sdk_defines(name: str) -> None:
    doc = json.loads((VENDORS / name).read_text())
    key = "message" if name.startswith("vapi_") else ("call" if "call.json" not in name else None)
    if key == "call":
        assert doc["event"] in {
            "call_started",
            "call_ended",
            "call_analyzed",
            "transcript_updated",
            "transfer_started",
            "transfer_bridged",
            "transfer_cancelled",
            "transfer_ended",
        }
    body = doc[key] if key else doc
    if name in AS_SENT:
        from datetime import datetime

        sent, typed = AS_SENT[name]
        instant = datetime.fromisoformat(body[sent].replace("Z", "+00:00"))
        assert round(instant.timestamp() * 1000) == body[typed]  # the same instant
    if name in OTHER_RELEASE:
        return
    model, _ = _model(name)  # the SDK's models load only for a fixture they validate
    parsed = model.model_validate(body)
    assert undefined_fields(parsed) == OUTSIDE_THE_SDK.get(name, [])
