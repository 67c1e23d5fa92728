"""A fake OpenAI-compatible judge on 127.0.0.1 that answers well, answers garbage, or hangs."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest


@dataclass
class FakeJudge:
    url: str
    mode: str = "answer"  # answer | raw | status | hang
    content: str = '{"verdict": "pass", "rationale": "The agent apologised first (turn 2)."}'
    raw: bytes = b""
    status: int = 200
    requests: list[dict[str, Any]] = field(default_factory=list)
    release: threading.Event = field(default_factory=threading.Event)

    def answer(self, verdict: str, rationale: str = "Grounded in turn 1.") -> None:
        self.mode = "answer"
        self.content = json.dumps({"verdict": verdict, "rationale": rationale})


def _handler(judge: FakeJudge) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:  # keep test output quiet
            pass

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("content-length", 0)))
            judge.requests.append(
                {"path": self.path, "headers": dict(self.headers), "body": json.loads(body)}
            )
            if judge.mode == "hang":
                judge.release.wait(10)
                return
            if judge.mode == "raw":
                self._send(200, judge.raw)
            elif judge.mode == "status":
                self._send(judge.status, b'{"error": "boom"}')
            else:
                completion = {
                    "id": "cmpl-1",
                    "object": "chat.completion",
                    "choices": [
                        {"index": 0, "message": {"role": "assistant", "content": judge.content}}
                    ],
                }
                self._send(200, json.dumps(completion).encode())

        def _send(self, status: int, data: bytes) -> None:
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    return Handler


@pytest.fixture
def fake_judge() -> Iterator[FakeJudge]:
    judge = FakeJudge(url="")
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(judge))
    server.daemon_threads = True
    judge.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    try:
        yield judge
    finally:
        judge.release.set()
        server.shutdown()
        server.server_close()


@pytest.fixture
def closed_port() -> str:
    """The URL of a port nothing listens on: a judge that is down."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}"
