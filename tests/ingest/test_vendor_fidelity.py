"""Vapi and Retell bodies as the vendors send them (built by their SDK models:
scripts/vendor_fixtures/vapi_retell_payloads.py), graded as a new user would: a tool-calls
message with an ISO timestamp, a function whose own result says it failed, a call that never
connected. And, for every vendor timestamp reader, a property: any instant the vendor's SDK
types accept, or that its server sends, is read (never refused), and the tool calls come out
as spans at that instant."""

from __future__ import annotations

import json
import tempfile
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from tests.conftest import hotato
from tests.ingest._util import DATA, ingest, of_type, tool

from hotato.evidence.ingest import load_call

VENDORS = DATA / "vendors"
VAPI_ISO = VENDORS / "vapi_1.4_tool_calls_iso_timestamp.json"
RETELL_FAILED = VENDORS / "retell_4.40_function_result_failed.json"
RETELL_NOT_CONNECTED = VENDORS / "retell_4.40_not_connected.json"


def _rows(out: str) -> dict[str, str]:
    return {
        line.split()[1]: line.split()[0]
        for line in out.splitlines()
        if line.strip().startswith(("PASS", "FAIL", "INCONCLUSIVE"))
    }


def _run(tmp_path: Path, trace: Path, assertions: str) -> tuple[int, dict[str, str]]:
    spec = tmp_path / "a.yaml"
    spec.write_text("version: 1\nassertions:\n" + assertions)
    ran = hotato("assert", "run", "--assertions", str(spec), "--trace", str(trace))
    return ran.code, _rows(ran.out)


# --- a real tool-calls message: its timestamp is ISO 8601 text -----------------------------------


def test_vapi_tool_calls_with_an_iso_timestamp_is_read(tmp_path: Path) -> None:
    _, meta, spans = ingest(VAPI_ISO, tmp_path / "t.jsonl")
    assert meta["source"]["format"] == "vapi-tool-calls"
    refund = tool(spans, "issue_refund")
    assert refund["arguments"] == {"order_id": "A17", "amount": 40}
    assert refund["start_sec"] == 1764547212.25  # 2025-12-01T00:00:12.250Z
    assert tool(spans, "lookup_order")["start_sec"] == 1764547212.25


def test_vapi_tool_calls_with_an_iso_timestamp_grades(tmp_path: Path) -> None:
    code, rows = _run(
        tmp_path,
        VAPI_ISO,
        "  - {id: refund, kind: tool_call, name: issue_refund, args_subset: {amount: 40}}\n"
        "  - {id: order, kind: tool_call, require_order: [lookup_order, issue_refund]}\n",
    )
    assert (code, rows) == (0, {"refund": "PASS", "order": "PASS"})


# --- a function's own failure marker in Retell's result content ----------------------------------


def test_retell_function_result_success_false_is_not_written_as_ok(tmp_path: Path) -> None:
    _, _, spans = ingest(RETELL_FAILED, tmp_path / "t.jsonl")
    charge = tool(spans, "charge_card")
    assert charge["result"] == {"success": False, "error": "card declined"}
    assert "status" not in charge  # Retell's `successful: true` is the invocation, not the charge


def test_retell_function_result_success_false_is_a_tool_error(tmp_path: Path) -> None:
    code, rows = _run(
        tmp_path,
        RETELL_FAILED,
        "  - {id: declined, kind: tool_error, name: charge_card, error_matches: declined}\n"
        "  - {id: never-failed, kind: tool_error, name: charge_card, absent: true}\n",
    )
    # the honest agent said the card was declined: the error is read, not hidden
    assert rows == {"declined": "PASS", "never-failed": "FAIL"}
    assert code == 1


# --- a call that never connected is read evidence ------------------------------------------------


def test_retell_call_that_never_connected_is_read_evidence(tmp_path: Path) -> None:
    code, rows = _run(
        tmp_path,
        RETELL_NOT_CONNECTED,
        "  - {id: ended, kind: termination, reason: invalid_destination}\n"
        "  - {id: no-refund, kind: tool_call, name: issue_refund, absent: true}\n"
        "  - {id: refund, kind: tool_call, name: issue_refund}\n"
        "  - {id: greeted, kind: phrase, regex: hello, role: agent}\n"
        "  - {id: no-pin-said, kind: phrase, regex: pin, absent: true}\n",
    )
    assert rows == {
        "ended": "PASS",
        "no-refund": "PASS",
        "refund": "FAIL",
        "greeted": "FAIL",
        "no-pin-said": "PASS",
    }
    assert code == 1


def test_retell_call_that_never_connected_ingests_an_empty_transcript(tmp_path: Path) -> None:
    ran, _, spans = ingest(
        RETELL_NOT_CONNECTED,
        tmp_path / "t.jsonl",
        "--transcript-out",
        str(tmp_path / "said.json"),
    )
    assert "empty" not in ran.err
    [end] = of_type(spans, "termination")
    assert end["reason"] == "invalid_destination"
    assert json.loads((tmp_path / "said.json").read_text()) == []
    assert load_call(RETELL_NOT_CONNECTED).empty is None


def test_an_ended_retell_call_without_items_is_still_empty(tmp_path: Path) -> None:
    doc = json.loads(RETELL_NOT_CONNECTED.read_text())
    doc["call"].update(call_status="ended", disconnection_reason="user_hangup")
    path = tmp_path / "ended.json"
    path.write_text(json.dumps(doc))
    assert load_call(path).empty is not None  # connected, yet the export holds nothing


# --- every timestamp reader: what the vendor's types accept is read ------------------------------


# instants between 2001 and 2100, to the millisecond
MS = st.integers(min_value=1_000_000_000_000, max_value=4_102_444_800_000)


def _as_iso(ms: int, style: int) -> str:
    when = datetime.fromtimestamp(ms / 1000, tz=UTC)
    if style == 0:
        return when.isoformat(timespec="milliseconds").replace("+00:00", "Z")
    if style == 1:
        return when.isoformat(timespec="microseconds")
    return when.astimezone(timezone(timedelta(hours=-5))).isoformat()


def _forms(ms: int) -> list[tuple[Any, int]]:
    """An instant in every form a timestamp is written in on the wire, with its nanoseconds."""
    ns = ms * 1_000_000
    forms: list[tuple[Any, int]] = [
        (ms, ns),  # epoch milliseconds (Vapi, Retell)
        (float(ms), ns),
        (str(ms), ns),  # numeric text
        (ms / 1000, ns),  # epoch seconds (LiveKit)
        (str(ms / 1000), ns),
        (_as_iso(ms, 0), ns),  # ISO 8601 text
        (_as_iso(ms, 1), ns),
        (_as_iso(ms, 2), ns),
    ]
    if ms % 1000 == 0:
        forms.append((ms // 1000, ns))  # whole epoch seconds
    return forms


def accepted_by(model: Any, field: str) -> Any:
    """Instants in every form the vendor's SDK model accepts for `field`, generated from the
    field's own type (held to it by pydantic, as the SDK validates it), with their nanoseconds."""
    import pydantic

    adapter = pydantic.TypeAdapter(model.model_fields[field].annotation)

    def accepts(value: Any) -> bool:
        try:
            adapter.validate_python(value)
        except pydantic.ValidationError:
            return False
        return True

    def of(ms: int) -> Any:
        kept = [f for f in _forms(ms) if accepts(f[0])]
        assert kept, f"{model.__name__}.{field} accepts no form of {ms}"
        return st.sampled_from(kept)

    return MS.flatmap(of)


# ISO 8601 text, as Vapi's server sends a tool-calls message's timestamp (its SDK types a number)
iso_sent = MS.flatmap(lambda ms: st.sampled_from([f for f in _forms(ms) if "T" in str(f[0])]))


@given(MS.flatmap(lambda ms: st.sampled_from(_forms(ms))))
def test_the_shared_reader_reads_every_form_alike(pair: tuple[Any, int]) -> None:
    from hotato.evidence.ingest._values import instant_to_ns

    value, ns = pair
    got = instant_to_ns(value)
    assert got is not None and abs(got - ns) < 1_000  # float seconds round below a microsecond


_IN_THE_EXTRA = "{} is in the test extra: pip install -e '.[test]'"


def _vapi_model() -> Any:
    # in the `test` extra; skipped (with this reason) only in a virtualenv made before it was
    pytest.importorskip(
        "vapi", reason="vapi-server-sdk is in the test extra: pip install -e '.[test]'"
    )
    from vapi.types.server_message_tool_calls import ServerMessageToolCalls

    return ServerMessageToolCalls


def _retell_model() -> Any:
    pytest.importorskip(
        "retell", reason="retell-sdk is in the test extra: pip install -e '.[test]'"
    )
    from retell.types.phone_call_response import PhoneCallResponse

    return PhoneCallResponse


def _vapi_tool_calls(timestamp: Any) -> dict[str, Any]:
    from vapi.types.server_message_tool_calls import ServerMessageToolCalls

    calls = [
        {
            "id": f"call_{name}",
            "type": "function",
            "function": {"name": name, "arguments": json.dumps({"order_id": "A17"})},
        }
        for name in ("lookup_order", "issue_refund")
    ]
    sdk_value = None if "T" in str(timestamp) else timestamp  # the SDK types a number
    message = ServerMessageToolCalls.model_validate(
        {
            "type": "tool-calls",
            "timestamp": sdk_value,
            "tool_with_tool_call_list": [
                {"type": "function", "tool_call": c, "function": {"name": c["function"]["name"]}}
                for c in calls
            ],
            "tool_call_list": calls,
        }
    )
    body = message.dict()
    body["timestamp"] = timestamp  # as sent: the SDK's number, or the server's ISO text
    return {"message": body}


def _retell_call(start: Any, end: Any) -> dict[str, Any]:
    from retell.types.phone_call_response import PhoneCallResponse

    call = PhoneCallResponse.model_validate(
        {
            "call_type": "phone_call",
            "agent_id": "a",
            "agent_version": 1,
            "call_id": "c",
            "call_status": "ended",
            "from_number": "+15550100",
            "to_number": "+15550111",
            "direction": "inbound",
            "disconnection_reason": "user_hangup",
            "start_timestamp": start,
            "end_timestamp": end,
            "transcript_with_tool_calls": [
                {
                    "role": "tool_call_invocation",
                    "tool_call_id": "t1",
                    "name": "lookup_order",
                    "arguments": json.dumps({"order_id": "A17"}),
                },
                {"role": "tool_call_result", "tool_call_id": "t1", "content": "{}"},
            ],
        }
    )
    body = json.loads(call.model_dump_json(exclude_none=True))
    body["start_timestamp"], body["end_timestamp"] = start, end  # as sent
    return {"event": "call_ended", "call": body}


def _load(doc: dict[str, Any]) -> Any:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "call.json"
        path.write_text(json.dumps(doc))
        return load_call(path).trace


# deferred: the SDK's models load when the test runs, not when every worker collects it; slow:
# loading them costs seconds per worker, so the edit loop leaves these two to `make test`
@pytest.mark.slow
@given(st.one_of(st.deferred(lambda: accepted_by(_vapi_model(), "timestamp")), iso_sent))
def test_vapi_tool_calls_timestamp_in_any_form_is_read(pair: tuple[Any, int]) -> None:
    value, ns = pair
    trace = _load(_vapi_tool_calls(value))
    spans = trace.by_type["tool_call"]
    assert [s.name for s in spans] == ["lookup_order", "issue_refund"]
    assert all(s.time is not None and abs(s.time * 1e9 - ns) < 1e3 for s in spans)


@pytest.mark.slow
@given(
    st.deferred(lambda: accepted_by(_retell_model(), "start_timestamp")), st.integers(0, 3_600_000)
)
def test_retell_call_timestamps_in_any_form_are_read(pair: tuple[Any, int], length: int) -> None:
    start, ns = pair
    end = ns // 1_000_000 + length
    trace = _load(_retell_call(start, end))
    assert [s.name for s in trace.by_type["tool_call"]] == ["lookup_order"]
    [end_span] = trace.by_type["termination"]
    assert end_span.time is not None and abs(end_span.time - length / 1000) < 1e-6


# LiveKit's models (a float of epoch seconds) are not in the test extra: every wire form
@given(MS.flatmap(lambda ms: st.sampled_from(_forms(ms))))
def test_livekit_created_at_in_any_form_is_read(pair: tuple[Any, int]) -> None:
    value, _ = pair
    report = json.loads((DATA / "livekit_session_report.json").read_text())
    items = report["chat_history"]["items"]
    calls = [i for i in items if i.get("type") == "function_call"]
    assert calls
    for item in items:
        if "created_at" in item:
            item["created_at"] = value
    trace = _load(report)
    assert len(trace.by_type["tool_call"]) == len(calls)
