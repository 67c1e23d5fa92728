"""Bodies as the vendors send them, built with the vendors' own SDK types (vapi-server-sdk,
retell-sdk), and a uvicorn-served `hotato serve` in a subprocess. The benchmark uses them too."""

from __future__ import annotations

import functools
import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx

ASSERTIONS = """\
version: 1
assertions:
  - id: refund-claimed
    kind: phrase
    regex: "refund (has been|was) issued"
    role: agent
  - id: refund-tool-ran
    kind: tool_call
    name: issue_refund
    args_subset: {order_id: "${call.order_id}"}
"""


_SLOT = "CALL-ID-SLOT"


def vapi_body(call_id: str, *, refund_ran: bool = True, order: str = "A17", pad: int = 0) -> bytes:
    """An end-of-call-report server message, validated by the vapi-server-sdk's model.
    `pad` adds small-talk turns, to reach a production-sized body (~20 KB at pad=60). The
    SDK's validation is slow, so it runs once per shape and each call gets its own id."""
    return _vapi_report(refund_ran, order, pad).replace(
        _SLOT.encode(), json.dumps(call_id)[1:-1].encode()
    )


@functools.cache
def _vapi_report(refund_ran: bool, order: str, pad: int) -> bytes:
    from vapi.types.server_message_end_of_call_report import ServerMessageEndOfCallReport

    call_id = _SLOT

    t0 = 1764547200000
    messages: list[dict[str, Any]] = [
        {
            "role": "bot",
            "message": "Hi, this is Acme.",
            "time": t0,
            "endTime": t0 + 900,
            "secondsFromStart": 0.0,
            "duration": 0.9,
        },
        {
            "role": "user",
            "message": f"Please refund order {order}.",
            "time": t0 + 1000,
            "endTime": t0 + 2000,
            "secondsFromStart": 1.0,
            "duration": 1.0,
        },
    ]
    for i in range(pad):
        at = 2.0 + i * 0.5
        messages.append(
            {
                "role": "user" if i % 2 else "bot",
                "message": f"Small talk number {i} " * 12,
                "time": t0 + int(at * 1000),
                "endTime": t0 + int(at * 1000) + 400,
                "secondsFromStart": at,
                "duration": 0.4,
            }
        )
    at = 3.0 + pad * 0.5
    if refund_ran:
        messages += [
            {
                "role": "tool_calls",
                "message": "",
                "time": t0 + int(at * 1000),
                "secondsFromStart": at,
                "toolCalls": [
                    {
                        "id": "tc1",
                        "type": "function",
                        "function": {
                            "name": "issue_refund",
                            "arguments": json.dumps({"order_id": order}),
                        },
                    }
                ],
            },
            {
                "role": "tool_call_result",
                "toolCallId": "tc1",
                "name": "issue_refund",
                "result": json.dumps({"status": "refunded"}),
                "time": t0 + int(at * 1000) + 300,
                "secondsFromStart": at + 0.3,
            },
        ]
    messages.append(
        {
            "role": "bot",
            "message": "Your refund has been issued.",
            "time": t0 + int(at * 1000) + 500,
            "endTime": t0 + int(at * 1000) + 1500,
            "secondsFromStart": at + 0.5,
            "duration": 1.0,
        }
    )
    report = ServerMessageEndOfCallReport.model_validate(
        {
            "type": "end-of-call-report",
            "endedReason": "customer-ended-call",
            "artifact": {"messages": messages},
            "analysis": {},
            "startedAt": "2026-12-01T10:00:00Z",
            "call": {
                "id": call_id,
                "orgId": "org-1",
                "assistantId": "asst-refunds",
                "type": "webPhoneCall",
                "metadata": {"order_id": order},
                "createdAt": "2026-12-01T10:00:00Z",
                "updatedAt": "2026-12-01T10:00:00Z",
            },
        }
    )
    doc = report.model_dump(mode="json", by_alias=True, exclude_unset=True)
    return json.dumps({"message": doc}).encode()


def retell_body(call_id: str, *, event: str = "call_ended", refund_ran: bool = False) -> bytes:
    """A Retell webhook carrying a call validated by the retell-sdk's PhoneCallResponse."""
    from retell.types.phone_call_response import PhoneCallResponse

    turns: list[dict[str, Any]] = [
        {
            "role": "user",
            "content": "Please refund order A17.",
            "words": [{"word": "Please", "start": 0.5, "end": 1.0}],
        },
    ]
    if refund_ran:
        turns += [
            {
                "role": "tool_call_invocation",
                "tool_call_id": "t1",
                "name": "issue_refund",
                "arguments": json.dumps({"order_id": "A17"}),
            },
            {"role": "tool_call_result", "tool_call_id": "t1", "content": "refunded"},
        ]
    turns.append(
        {
            "role": "agent",
            "content": "Your refund has been issued.",
            "words": [{"word": "Your", "start": 2.0, "end": 3.0}],
        }
    )
    call = PhoneCallResponse.model_validate(
        {
            "call_id": call_id,
            "agent_id": "agent-refunds",
            "agent_version": 1,
            "call_status": "ended",
            "call_type": "phone_call",
            "direction": "inbound",
            "from_number": "+15550000001",
            "to_number": "+15550000002",
            "start_timestamp": 1764547200000,
            "end_timestamp": 1764547260000,
            "disconnection_reason": "user_hangup",
            "metadata": {"order_id": "A17"},
            "transcript_with_tool_calls": turns,
        }
    )
    return json.dumps(
        {"event": event, "call": call.model_dump(mode="json", exclude_unset=True)}
    ).encode()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    """`hotato serve` in a subprocess on 127.0.0.1."""

    def __init__(self, out: Path, assertions: Path, *extra: str, env: dict[str, str] | None = None):
        self.out, self.assertions, self.extra = out, assertions, extra
        self.env = {**os.environ, **(env or {})}
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc: subprocess.Popen[bytes] | None = None
        self.log = out.parent / f"serve-{self.port}.log"

    def start(self, wait: bool = True) -> Server:
        with self.log.open("ab") as log:
            self.proc = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "hotato",
                    "serve",
                    "--assertions",
                    str(self.assertions),
                    "--out",
                    str(self.out),
                    "--listen",
                    f"127.0.0.1:{self.port}",
                    *self.extra,
                ],
                stdout=log,
                stderr=subprocess.STDOUT,
                env=self.env,
            )
        if wait:
            self.wait_ready()
        return self

    def wait_ready(self, limit: float = 60.0) -> None:
        end = time.monotonic() + limit
        while time.monotonic() < end:
            assert self.proc is not None
            if self.proc.poll() is not None:
                raise RuntimeError(f"hotato serve exited: {self.log.read_text()}")
            try:
                if httpx.get(self.url + "/healthz", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                time.sleep(0.1)
        raise RuntimeError("hotato serve did not become ready")

    def wait_graded(
        self, n: int, limit: float = 60.0, headers: dict[str, str] | None = None
    ) -> None:
        """Until the metrics show `n` calls graded or refused."""
        from prometheus_client.parser import text_string_to_metric_families

        end = time.monotonic() + limit
        seen = 0.0
        while time.monotonic() < end:
            text = httpx.get(self.url + "/metrics", headers=headers, timeout=5).text
            seen = sum(
                s.value
                for fam in text_string_to_metric_families(text)
                for s in fam.samples
                if s.name in ("hotato_serve_calls_graded_total", "hotato_serve_calls_refused_total")
            )
            if seen >= n:
                return
            time.sleep(0.1)
        raise AssertionError(f"only {seen} of {n} calls graded")

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def call_rows(out: Path) -> list[dict[str, Any]]:
    """Every row of the results folder's calls table."""
    import pyarrow.parquet as pq

    rows: list[dict[str, Any]] = []
    for part in sorted((out / "calls").glob("part-*.parquet")):
        rows += pq.read_table(part).to_pylist()
    return rows
