"""Vapi and Retell as the vendors send them (fixtures checked against their SDK types in
test_vendor_types.py): squads, mid-call messages, PII-scrubbed calls, transfer webhooks."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import hotato
from tests.ingest._util import DATA, ingest, of_type, tool

VENDORS = DATA / "vendors"


def test_vapi_squad_report_reads_the_messages_outside_the_artifact(tmp_path: Path) -> None:
    _, meta, spans = ingest(VENDORS / "vapi_squad_end_of_call_report.json", tmp_path / "t.jsonl")
    assert meta["source"] == {"format": "vapi-end-of-call-report", "input_span_count": 12}
    assert tool(spans, "lookup_order")["result"] == {"status": "charged_twice", "total": 42}
    [handoff] = of_type(spans, "handoff")
    assert handoff["to"] == "billing"


def test_vapi_squad_in_time_order_by_the_absolute_clock(tmp_path: Path) -> None:
    # billing's secondsFromStart restarts at 0; `time` (epoch ms) does not
    _, _, spans = ingest(VENDORS / "vapi_squad_end_of_call_report.json", tmp_path / "t.jsonl")
    times = [s.get("start_sec", s.get("time_sec")) for s in spans]
    assert times == sorted(times)
    assert tool(spans, "issue_refund")["start_sec"] == 10.5
    # `duration` is seconds: 2.0 s, not 2 ms
    assert [(s["start_sec"], s["end_sec"]) for s in of_type(spans, "caller_audio_active")] == [
        (3.0, 5.0),
        (13.5, 14.5),
    ]
    [end] = of_type(spans, "termination")
    assert (end["time_sec"], end["by"]) == (15.0, "caller")


def test_vapi_no_result_placeholder_is_unknown(tmp_path: Path) -> None:
    _, _, spans = ingest(VENDORS / "vapi_squad_end_of_call_report.json", tmp_path / "t.jsonl")
    refund = tool(spans, "issue_refund")
    assert "result" not in refund and refund["arguments"] == {"order_id": "A17", "amount": 42}


def test_vapi_mid_call_tool_calls_message(tmp_path: Path) -> None:
    _, meta, spans = ingest(VENDORS / "vapi_tool_calls.json", tmp_path / "t.jsonl")
    assert meta["source"]["format"] == "vapi-tool-calls"  # not an end-of-call report
    refund = tool(spans, "issue_refund")  # asked for now, no result yet
    assert "result" not in refund and not of_type(spans, "termination")


def test_retell_scrubbed_call_is_read_and_scrubbed_values_stay_unknown(tmp_path: Path) -> None:
    _, meta, spans = ingest(VENDORS / "retell_scrubbed_call.json", tmp_path / "t.jsonl")
    assert meta["source"]["format"] == "retell-call-scrubbed"
    verify = tool(spans, "verify_identity")
    assert verify["status"] == "ok" and "result" not in verify and "arguments" not in verify
    assert tool(spans, "update_address")["status"] == "error"
    [handoff] = of_type(spans, "handoff")
    assert handoff["to"] == "+15550199"
    [end] = of_type(spans, "termination")
    # the absolute clock: end_timestamp - start_timestamp (21.5 s), not duration_ms (21.0 s)
    assert (end["reason"], end["time_sec"]) == ("call_transfer", 21.5)


def test_retell_transcript_updated_and_transfer_webhooks(tmp_path: Path) -> None:
    _, _, spans = ingest(VENDORS / "retell_transcript_updated.json", tmp_path / "a.jsonl")
    assert tool(spans, "verify_identity")["result"] == {"verified": True, "name": "Sam"}
    _, _, spans = ingest(VENDORS / "retell_transfer_started.json", tmp_path / "b.jsonl")
    [handoff] = of_type(spans, "handoff")
    assert handoff["to"] == "+15550199"


ASSERTIONS = """\
version: 1
assertions:
  - {id: refund-result, kind: tool_result, name: issue_refund, result_subset: {ok: true}}
  - {id: said-refund, kind: phrase, regex: "refund has been issued", role: agent}
"""


def test_assert_run_on_a_vapi_squad_report_alone(tmp_path: Path) -> None:
    spec = tmp_path / "a.yaml"
    spec.write_text(ASSERTIONS)
    trace = VENDORS / "vapi_squad_end_of_call_report.json"
    ran = hotato("assert", "run", "--assertions", str(spec), "--trace", str(trace))
    rows = {
        line.split()[1]: line.split()[0]
        for line in ran.out.splitlines()
        if line.strip().startswith(("PASS", "FAIL", "INCONCLUSIVE"))
    }
    # the placeholder is unknown, so INCONCLUSIVE, never a grounded FAIL; the transcript the
    # report carries grades the phrase without a second file
    assert rows == {"refund-result": "INCONCLUSIVE", "said-refund": "PASS"}, ran.out


def test_an_empty_export_says_so_and_grades_inconclusive(tmp_path: Path) -> None:
    doc = json.loads((VENDORS / "vapi_squad_end_of_call_report.json").read_text())
    del doc["message"]["messages"]
    path = tmp_path / "empty.json"
    path.write_text(json.dumps(doc))
    ran = hotato("trace", "ingest", str(path), "--out", str(tmp_path / "t.jsonl"))
    assert ran.code == 0
    assert "no tool call and no spoken turn" in ran.err
    assert "`$.message.artifact.messages`, `$.message.messages`" in ran.err
    spec = tmp_path / "a.yaml"
    spec.write_text(
        ASSERTIONS + "  - {id: no-refund, kind: tool_call, name: issue_refund, count: 0}\n"
    )
    ran = hotato("assert", "run", "--assertions", str(spec), "--trace", str(path))
    statuses = {
        line.split()[0]
        for line in ran.out.splitlines()
        if line.strip().startswith(("PASS", "FAIL", "INCONCLUSIVE"))
    }
    assert statuses == {"INCONCLUSIVE"}, ran.out
    assert "holds no tool call and no spoken turn" in ran.out


def test_the_grader_takes_the_transcript_an_export_carries(tmp_path: Path) -> None:
    from hotato.runs.grader import Grader

    spec = tmp_path / "a.yaml"
    spec.write_text(ASSERTIONS)
    with Grader(spec) as grader:
        result = grader.grade(trace=VENDORS / "vapi_squad_end_of_call_report.json")
        by_id = {r.id: r.status.value for r in result.outcome.results}
    assert by_id == {"refund-result": "INCONCLUSIVE", "said-refund": "PASS"}


CONVERSATION_TEST = """\
kind: hotato.conversation-test
version: 1
id: squad-refund
agent: squad
assertions:
  deterministic:
    - {id: looked-up, kind: tool_result, name: lookup_order, result_subset: {total: 42}}
    - {id: said-refund, kind: phrase, regex: "refund has been issued", role: agent}
success:
  required: [no_deterministic_fail]
"""


def test_test_run_takes_the_transcript_an_export_carries(tmp_path: Path) -> None:
    (tmp_path / "t.yaml").write_text(CONVERSATION_TEST)
    trace = VENDORS / "vapi_squad_end_of_call_report.json"
    ran = hotato("test", "run", "t.yaml", "--agent", "squad", "--trace", str(trace), cwd=tmp_path)
    rows = {
        line.split()[1]: line.split()[0]
        for line in ran.out.splitlines()
        if line.strip().startswith(("PASS", "FAIL", "INCONCLUSIVE"))
    }
    assert rows == {"looked-up": "PASS", "said-refund": "PASS"}, ran.out + ran.err
    assert ran.code == 0
