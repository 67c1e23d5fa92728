"""Vapi, Retell and native calls through a real uvicorn server: acknowledged, graded once per
call id, written where `hotato fleet summary` reads them."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest
from tests.conftest import hotato
from tests.serve.bodies import Server, call_rows, retell_body, vapi_body

pytestmark = pytest.mark.slow


def test_vapi_report_is_graded_once_and_fleet_summary_reads_it(server: Server) -> None:
    good = vapi_body("vapi-ok")
    claimed_only = vapi_body("vapi-claimed", refund_ran=False)
    assert httpx.post(server.url + "/vapi", content=good).json() == {
        "status": "accepted",
        "call_id": "vapi-ok",
    }
    assert httpx.post(server.url + "/vapi", content=good).json()["status"] == "duplicate"
    assert httpx.post(server.url + "/vapi", content=claimed_only).status_code == 200
    update = json.dumps({"message": {"type": "status-update", "status": "ended"}})
    answer = httpx.post(server.url + "/vapi", content=update)
    assert answer.json() == {"status": "ignored", "type": "status-update"}
    server.wait_graded(2)
    rows = {r["call_id"]: r for r in call_rows(server.out)}
    assert set(rows) == {"vapi-ok", "vapi-claimed"}
    assert (rows["vapi-ok"]["exit_code"], rows["vapi-ok"]["fail"]) == (0, 0)
    assert (rows["vapi-claimed"]["exit_code"], rows["vapi-claimed"]["fail"]) == (1, 1)
    assert rows["vapi-ok"]["agent"] == "asst-refunds"
    assert rows["vapi-ok"]["variables"] == [("order_id", "A17")]

    ran = hotato("fleet", "summary", str(server.out), "--format", "json")
    assert ran.code == 0, ran.err
    summary = json.loads(ran.out)
    assert summary["calls"]["graded"] == 2


def test_retell_call_ended_then_analyzed_is_one_call(server: Server) -> None:
    for event in ("call_ended", "call_analyzed"):
        answer = httpx.post(server.url + "/retell", content=retell_body("r-1", event=event))
        assert answer.status_code == 200
    assert answer.json()["status"] == "duplicate"
    started = httpx.post(server.url + "/retell", content=b'{"event": "call_started", "call": {}}')
    assert started.json() == {"status": "ignored", "event": "call_started"}
    server.wait_graded(1)
    (row,) = call_rows(server.out)
    assert (row["call_id"], row["status"], row["exit_code"]) == ("r-1", "graded", 1)


def test_native_call_with_a_missing_variable_is_a_refused_row(server: Server) -> None:
    trace = [
        {
            "type": "tool_call",
            "name": "issue_refund",
            "arguments": {"order_id": "B2"},
            "start_sec": 1,
            "end_sec": 2,
        }
    ]
    said = [{"role": "agent", "text": "Your refund has been issued.", "start": 3, "end": 4}]
    ok = {"call_id": "n-1", "trace": trace, "transcript": said, "variables": {"order_id": "B2"}}
    missing = {"call_id": "n-2", "trace": trace, "transcript": said}
    for body in (ok, missing):
        assert httpx.post(server.url + "/calls", json=body).json()["status"] == "accepted"
    server.wait_graded(2)
    rows = {r["call_id"]: r for r in call_rows(server.out)}
    assert (rows["n-1"]["status"], rows["n-1"]["exit_code"]) == ("graded", 0)
    assert rows["n-2"]["status"] == "refused"
    assert "${call.order_id}" in rows["n-2"]["message"]


def test_the_call_page_and_the_overview(server: Server) -> None:
    httpx.post(server.url + "/vapi", content=vapi_body("page-1", refund_ran=False))
    server.wait_graded(1)
    page = httpx.get(server.url + "/calls/page-1")
    assert page.status_code == 200
    assert "refund-tool-ran" in page.text and "FAIL" in page.text
    assert httpx.get(server.url + "/calls/unknown").status_code == 404
    overview = httpx.get(server.url + "/").text
    assert "page-1" in overview and "refund-tool-ran" in overview


def test_results_folder_of_another_run_is_refused(tmp_path: Path, server: Server) -> None:
    other = tmp_path / "other.yaml"
    other.write_text("version: 1\nassertions:\n  - {id: a, kind: tool_call, name: x}\n")
    ran = hotato("serve", "--assertions", str(other), "--out", str(server.out))
    assert ran.code == 2
    assert "choose another --out" in ran.err
