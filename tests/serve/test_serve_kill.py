"""`kill -9` under load: no acknowledged call lost, none graded twice."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest
from tests.serve.bodies import Server, call_rows, vapi_body

pytestmark = pytest.mark.slow
CALLS = 240
KILL_AFTER = 80
CLIENTS = 8


def _children(pid: int) -> list[int]:
    """Every descendant of `pid` (the forkserver, its grading processes, the tracker)."""
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []
    direct = [int(p) for p in text.split()]
    return direct + [d for c in direct for d in _children(c)]


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split(") ", 1)[1][0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def _post_all(srv: Server, ids: list[str], acked: set[str], lock: threading.Lock) -> None:
    local = threading.local()

    def post(call_id: str) -> None:
        if not hasattr(local, "http"):
            local.http = httpx.Client(timeout=30)
        try:
            answer = local.http.post(srv.url + "/vapi", content=vapi_body(call_id))
        except httpx.HTTPError:
            return  # not acknowledged: the sender retries later, as a vendor does
        if answer.status_code == 200:
            with lock:
                acked.add(call_id)

    with ThreadPoolExecutor(CLIENTS) as pool:
        list(pool.map(post, ids))


def test_kill_9_under_load_loses_no_acknowledged_call_and_doubles_none(
    tmp_path: Path, assertions: Path
) -> None:
    out = tmp_path / "results"
    srv = Server(out, assertions, "--workers", "1", "--batch-size", "8").start()
    ids = [f"call-{i:04d}" for i in range(CALLS)]
    acked: set[str] = set()
    lock = threading.Lock()
    killed: list[int] = []

    def killer() -> None:
        while True:
            with lock:
                if len(acked) >= KILL_AFTER:
                    break
            time.sleep(0.005)
        assert srv.proc is not None
        killed.extend(_children(srv.proc.pid))
        srv.kill()

    watcher = threading.Thread(target=killer)
    watcher.start()
    _post_all(srv, ids, acked, lock)
    watcher.join()
    acked_before_kill = set(acked)
    assert KILL_AFTER <= len(acked_before_kill) < CALLS  # the kill landed mid-load

    # the grading processes end with the server
    deadline = time.monotonic() + 30
    while any(_alive(p) for p in killed) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not [p for p in killed if _alive(p)]

    # restarted on the same folder: the senders retry what was never acknowledged, and a
    # vendor's retry of an acknowledged call is a duplicate
    srv2 = Server(out, assertions, "--workers", "1").start()
    try:
        _post_all(srv2, [i for i in ids if i not in acked], acked, lock)
        again = httpx.post(srv2.url + "/vapi", content=vapi_body(sorted(acked_before_kill)[0]))
        assert again.json()["status"] == "duplicate"
        assert acked == set(ids)
        deadline = time.monotonic() + 120
        rows = call_rows(out)
        while len({r["call_id"] for r in rows}) < CALLS and time.monotonic() < deadline:
            time.sleep(0.2)
            rows = call_rows(out)
    finally:
        srv2.stop()
    graded = [r["call_id"] for r in call_rows(out)]
    assert sorted(graded) == ids  # every acknowledged call, exactly once
    assert {r["status"] for r in call_rows(out)} == {"graded"}
