"""--spool-keep: a graded call's body leaves the spool after the retention, and its call id is
still received once: a retry after that is a duplicate, never a second grading."""

from __future__ import annotations

import time
from pathlib import Path

import httpx
import pytest
from tests.conftest import hotato
from tests.serve.bodies import Server, call_rows, vapi_body

from hotato.serve.spool import key_of

pytestmark = pytest.mark.slow


def test_a_pruned_call_stays_received_once(tmp_path: Path, assertions: Path) -> None:
    out = tmp_path / "results"
    srv = Server(out, assertions, "--workers", "1", "--spool-keep", "1s").start()
    body = out / "spool" / "calls" / key_of("kept-once")
    try:
        first = httpx.post(srv.url + "/vapi", content=vapi_body("kept-once"))
        assert first.json() == {"status": "accepted", "call_id": "kept-once"}
        srv.wait_graded(1)
        deadline = time.monotonic() + 60
        while body.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not body.exists()  # the body went
        assert (out / "spool" / "done" / key_of("kept-once")).exists()  # its mark stays
        again = httpx.post(srv.url + "/vapi", content=vapi_body("kept-once"))
        assert again.json() == {"status": "duplicate", "call_id": "kept-once"}
        page = httpx.get(srv.url + "/calls/kept-once")
        assert page.status_code == 200
        assert "its body was removed from the spool" in page.text
        metrics = httpx.get(srv.url + "/metrics").text
        assert "hotato_serve_spool_pruned_total 1.0" in metrics
    finally:
        srv.stop()
    # restarted, it still knows the call, and grades nothing again
    srv = Server(out, assertions, "--workers", "1").start()
    try:
        again = httpx.post(srv.url + "/vapi", content=vapi_body("kept-once"))
        assert again.json()["status"] == "duplicate"
    finally:
        srv.stop()
    assert [r["call_id"] for r in call_rows(out)] == ["kept-once"]


@pytest.mark.parametrize("value", ["0s", "soon", "-3h"])
def test_spool_keep_must_be_a_duration(tmp_path: Path, assertions: Path, value: str) -> None:
    out = str(tmp_path / "r")
    ran = hotato("serve", "--assertions", str(assertions), "--out", out, "--spool-keep", value)
    assert ran.code == 2
    assert "expected a duration such as 90s, 15m, 24h or 7d, or forever" in ran.err
