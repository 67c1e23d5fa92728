"""`hotato fleet pull`: a server on 127.0.0.1 answers as Vapi's `GET /call` and Retell's
`POST /v3/list-calls` are documented (every answer validated with the vendors' SDK types),
with a 429 and a 500 on the way; the pull pages through, retries, never prints the key,
resumes, and writes call folders `fleet grade` grades."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from tests.conftest import hotato

pytestmark = pytest.mark.slow  # a loopback API server, the CLI in a process

DATA = Path(__file__).resolve().parents[1] / "ingest" / "data"
KEY = "sk-test-not-a-real-key-7f3a"
T0 = datetime(2026, 11, 1, 10, tzinfo=UTC)


def vapi_calls(n: int) -> list[dict[str, Any]]:
    from vapi.types import Call

    report = json.loads((DATA / "vapi_end_of_call_report.json").read_text())["message"]
    calls = []
    for i in range(n):
        created = T0 + timedelta(minutes=i)
        call = {
            **report["call"],
            "id": f"vapi-{i:03d}",
            "assistantId": "asst-a" if i % 2 else "asst-b",
            "createdAt": created.isoformat().replace("+00:00", "Z"),
            "updatedAt": created.isoformat().replace("+00:00", "Z"),
            "startedAt": created.isoformat().replace("+00:00", "Z"),
            "endedAt": (created + timedelta(seconds=52)).isoformat().replace("+00:00", "Z"),
            "endedReason": report["endedReason"],
            "artifact": report["artifact"],
        }
        Call.model_validate(call)
        calls.append(call)
    return calls


def retell_calls(n: int) -> list[dict[str, Any]]:
    base = json.loads((DATA / "retell_call_ended.json").read_text())["call"]
    out = []
    for i in range(n):
        start = int((T0 + timedelta(minutes=i)).timestamp() * 1000)
        out.append(
            {
                **base,
                "call_id": f"retell-{i:03d}",
                "agent_version": 1,
                "start_timestamp": start,
                "end_timestamp": start + 30000,
            }
        )
    return out


class Api:
    """The two documented list-calls endpoints over a fixed set of calls, failing twice."""

    def __init__(self, vapi: list[dict[str, Any]], retell: list[dict[str, Any]]) -> None:
        self.vapi, self.retell = vapi, retell
        self.failures = [429, 500]  # answered before the first real page
        self.seen_auth: set[str] = set()
        self.requests = 0

    def answer(self, method: str, url: str, body: Any, auth: str) -> tuple[int, Any]:
        self.requests += 1
        self.seen_auth.add(auth)
        if auth != f"Bearer {KEY}":
            return 401, {"message": "Unauthorized"}
        if self.failures:
            return self.failures.pop(0), {"message": "slow down"}
        parts = urlsplit(url)
        if method == "GET" and parts.path == "/call":
            return 200, self._vapi(parse_qs(parts.query))
        if method == "POST" and parts.path == "/v3/list-calls":
            return 200, self._retell(body)
        return 404, {"message": "not found"}

    def _vapi(self, q: dict[str, list[str]]) -> list[dict[str, Any]]:
        from vapi.types import Call

        limit = int(float(q["limit"][0]))
        ge, lt = q["createdAtGe"][0], q.get("createdAtLt", [None])[0]
        le = q.get("createdAtLe", [None])[0]
        rows = [
            c
            for c in self.vapi
            if c["createdAt"] >= ge
            and (lt is None or c["createdAt"] < lt)
            and (le is None or c["createdAt"] <= le)
        ]
        page = sorted(rows, key=lambda c: c["createdAt"], reverse=True)[:limit]
        for call in page:
            Call.model_validate(call)
        return page

    def _retell(self, body: dict[str, Any]) -> dict[str, Any]:
        from retell.types import CallListResponse

        window = body["filter_criteria"]["start_timestamp"]
        assert window["op"] == "ge" and window["type"] == "number"
        rows = sorted(
            (c for c in self.retell if c["start_timestamp"] >= window["value"]),
            key=lambda c: c["start_timestamp"],
        )
        after = body.get("pagination_key")
        if after is not None:
            rows = rows[[c["call_id"] for c in rows].index(after) + 1 :]
        page = rows[: body["limit"]]
        more = len(rows) > len(page)
        answer = {
            "items": page,
            "has_more": more,
            "pagination_key": page[-1]["call_id"] if more else None,
        }
        CallListResponse.model_validate(answer)
        return answer


@pytest.fixture
def api() -> Iterator[tuple[Api, str]]:
    state = Api(vapi_calls(7), retell_calls(5))

    class Handler(BaseHTTPRequestHandler):
        def _reply(self, method: str) -> None:
            size = int(self.headers.get("content-length") or 0)
            body = json.loads(self.rfile.read(size)) if size else None
            code, doc = state.answer(method, self.path, body, self.headers.get("authorization", ""))
            data = json.dumps(doc).encode()
            self.send_response(code)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            if code == 429:
                self.send_header("retry-after", "0")
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            self._reply("GET")

        def do_POST(self) -> None:
            self._reply("POST")

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state, f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def pull(url: str, vendor: str, out: Path, *extra: str, key_env: str = "HOTATO_TEST_KEY") -> Any:
    import os

    env = {**os.environ, key_env: KEY}
    return hotato(
        "fleet",
        "pull",
        "--from",
        vendor,
        "--since",
        "2026-11-01",
        "--out",
        str(out),
        "--base-url",
        url,
        "--api-key-env",
        key_env,
        "--page-size",
        "3",
        *extra,
        env=env,
    )


@pytest.mark.parametrize(("vendor", "count", "pages"), [("vapi", 7, 4), ("retell", 5, 2)])
def test_pull_pages_retries_and_writes_call_folders(
    api: tuple[Api, str], tmp_path: Path, vendor: str, count: int, pages: int
) -> None:
    _, url = api
    ran = pull(url, vendor, tmp_path / "calls")
    assert ran.code == 0, ran.err
    assert f"pulled {count} of {count} call(s) listed by {vendor}: {count} written, 0 already" in (
        ran.out
    )
    assert f"({pages} page(s), 2 retried)" in ran.out
    assert KEY not in ran.out + ran.err
    rows = [json.loads(x) for x in (tmp_path / "calls" / "calls.jsonl").read_text().splitlines()]
    assert len(rows) == count
    first = tmp_path / "calls" / rows[0]["call_id"]
    assert (first / "trace.json").is_file() and (first / "transcript.json").is_file()
    assert rows[0]["started_at"].startswith("2026-11-01T10:00")
    # resumed: nothing written again
    again = pull(url, vendor, tmp_path / "calls")
    assert f"0 written, {count} already there" in again.out


def test_vapi_calls_sharing_a_created_at_across_a_page_boundary_are_all_pulled(
    api: tuple[Api, str], tmp_path: Path
) -> None:
    state, url = api
    for i, call in enumerate(state.vapi):  # pairs created at the same instant
        call["createdAt"] = state.vapi[i - i % 2]["createdAt"]
    ran = pull(url, "vapi", tmp_path / "calls")
    assert ran.code == 0, ran.err
    assert "pulled 7 of 7 call(s) listed by vapi: 7 written" in ran.out
    rows = (tmp_path / "calls" / "calls.jsonl").read_text().splitlines()
    assert sorted(json.loads(r)["call_id"] for r in rows) == [f"vapi-{i:03d}" for i in range(7)]


def test_the_pulled_calls_grade(api: tuple[Api, str], tmp_path: Path) -> None:
    _, url = api
    pull(url, "vapi", tmp_path / "calls")
    (tmp_path / "a.yaml").write_text(
        "version: 1\nassertions:\n  - id: looked-up\n    kind: tool_call\n    name: lookup_order\n"
    )
    ran = hotato(
        "fleet",
        "grade",
        str(tmp_path / "calls" / "calls.jsonl"),
        "--assertions",
        str(tmp_path / "a.yaml"),
        "--out",
        str(tmp_path / "r"),
        "--workers",
        "1",
    )
    assert ran.code == 0, ran.err + ran.out
    assert "7 graded, 0 refused" in ran.out and "pass 7 fail 0" in ran.out


def test_a_refused_key_is_named_never_shown(api: tuple[Api, str], tmp_path: Path) -> None:
    import os

    state, url = api
    state.failures = []
    env = {**os.environ, "HOTATO_TEST_KEY": "sk-wrong-secret-value"}
    ran = hotato(
        "fleet",
        "pull",
        "--from",
        "vapi",
        "--since",
        "2026-11-01",
        "--out",
        str(tmp_path / "c"),
        "--base-url",
        url,
        "--api-key-env",
        "HOTATO_TEST_KEY",
        env=env,
    )
    assert ran.code == 2
    assert "refused the key in $HOTATO_TEST_KEY (HTTP 401)" in ran.err
    assert "sk-wrong-secret-value" not in ran.out + ran.err


def test_no_key_and_no_plain_http_off_this_machine(tmp_path: Path) -> None:
    import os

    env = {k: v for k, v in os.environ.items() if k != "VAPI_API_KEY"}
    ran = hotato(
        "fleet",
        "pull",
        "--from",
        "vapi",
        "--since",
        "2026-11-01",
        "--out",
        str(tmp_path / "c"),
        env=env,
    )
    assert ran.code == 2 and "environment variable VAPI_API_KEY" in ran.err
    ran = hotato(
        "fleet",
        "pull",
        "--from",
        "vapi",
        "--since",
        "2026-11-01",
        "--out",
        str(tmp_path / "c"),
        "--base-url",
        "http://example.invalid",
        env=env,
    )
    assert ran.code == 2 and "must be https://" in ran.err
