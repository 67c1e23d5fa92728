"""The pages in chromium, and --alert delivering to a receiver on loopback."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest
from tests.serve.bodies import Server, vapi_body

pytestmark = pytest.mark.slow


@pytest.mark.services("chromium")
def test_overview_and_call_page_in_chromium(server: Server, tmp_path: Path) -> None:
    from playwright.sync_api import sync_playwright
    from tests.report.conftest import CHROMIUM_ARGS, chromium_path

    httpx.post(server.url + "/vapi", content=vapi_body("seen-in-browser", refund_ran=False))
    server.wait_graded(1)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        try:
            page = browser.new_page()
            elsewhere: list[str] = []
            page.on(
                "request",
                lambda r: None if r.url.startswith(server.url) else elsewhere.append(r.url),
            )
            page.goto(server.url + "/")
            assert "seen-in-browser" in page.locator("#recent").inner_text()
            assert "refund-tool-ran" in page.locator("#rates").inner_text()
            page.click("text=seen-in-browser")
            page.wait_for_load_state()
            assert page.url == server.url + "/calls/seen-in-browser"
            text = page.locator("body").inner_text()
            assert "refund-tool-ran" in text and "FAIL" in text
            assert elsewhere == []
        finally:
            browser.close()


class _Receiver(BaseHTTPRequestHandler):
    got: list[dict[str, Any]] = []

    def do_POST(self) -> None:
        size = int(self.headers["content-length"])
        self.got.append(json.loads(self.rfile.read(size)))
        self.send_response(200)
        self.end_headers()

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def receiver() -> Iterator[tuple[str, list[dict[str, Any]]]]:
    got: list[dict[str, Any]] = []
    handler = type("R", (_Receiver,), {"got": got})
    httpd = HTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_port}/hook", got
    finally:
        httpd.shutdown()


def test_alert_on_a_failing_assertion_and_on_a_rate(
    tmp_path: Path, assertions: Path, receiver: tuple[str, list[dict[str, Any]]]
) -> None:
    url, got = receiver
    srv = Server(
        tmp_path / "results",
        assertions,
        "--workers",
        "1",
        "--alert",
        url,
        "--alert-on",
        "refund-tool-ran",
        "--alert-rate",
        "0.5",
        "--alert-window",
        "2",
    ).start()
    try:
        httpx.post(srv.url + "/vapi", content=vapi_body("fine"))
        srv.wait_graded(1)
        httpx.post(srv.url + "/vapi", content=vapi_body("claimed-only", refund_ran=False))
        srv.wait_graded(2)
        import time

        deadline = time.monotonic() + 30
        while len(got) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        srv.stop()
    by_kind = {a["kind"]: a for a in got}
    assert by_kind["call"]["text"] == "hotato: call claimed-only FAILED refund-tool-ran"
    assert by_kind["rate"]["text"] == (
        "hotato: refund-tool-ran failed 50% of the last 2 calls (threshold 50%)"
    )
    assert len(got) == 2


def test_alert_true_in_the_file_alerts_without_alert_on(
    tmp_path: Path, receiver: tuple[str, list[dict[str, Any]]]
) -> None:
    from tests.serve.bodies import ASSERTIONS

    url, got = receiver
    marked = tmp_path / "marked.yaml"
    marked.write_text(
        ASSERTIONS.replace("    name: issue_refund\n", "    name: issue_refund\n    alert: true\n")
    )
    srv = Server(tmp_path / "results", marked, "--workers", "1", "--alert", url).start()
    try:
        httpx.post(srv.url + "/vapi", content=vapi_body("fine"))
        httpx.post(srv.url + "/vapi", content=vapi_body("claimed-only", refund_ran=False))
        srv.wait_graded(2)
        import time

        deadline = time.monotonic() + 30
        while not got and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        srv.stop()
    assert [a["text"] for a in got] == ["hotato: call claimed-only FAILED refund-tool-ran"]
