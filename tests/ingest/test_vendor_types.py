"""The Vapi and Retell fixtures are what the vendors' own SDK types define: each is validated by
vapi-server-sdk / retell-sdk models, and a field the models do not define is refused, so a
guess about a vendor's shape cannot sneak into the fixtures."""

from __future__ import annotations

import json
from typing import Any

import pytest
from tests.ingest._util import DATA

VENDORS = DATA / "vendors"
# In the `test` extra; skipped (with this reason) only in a virtualenv made before they were.
pytest.importorskip("vapi", reason="vapi-server-sdk is in the test extra: pip install -e '.[test]'")
pytest.importorskip("retell", reason="retell-sdk is in the test extra: pip install -e '.[test]'")
import pydantic  # noqa: E402 - comes with the SDKs

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


def test_there_are_fixtures_for_both_vendors() -> None:
    assert any(n.startswith("vapi_") for n in NAMES) and any(n.startswith("retell_") for n in NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_fixture_is_what_the_sdk_defines(name: str) -> None:
    model, key = _model(name)
    doc = json.loads((VENDORS / name).read_text())
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
    parsed = model.model_validate(body)
    assert undefined_fields(parsed) == OUTSIDE_THE_SDK.get(name, [])
