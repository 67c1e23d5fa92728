"""Every HTTP exchange (a state read, a judge call) has one deadline and a byte cap: a server
sending a byte at a time, or a body far larger than any record, cannot hold or swamp a run.
And the judge goes to the host it names, never to a proxy from the environment."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from hotato.adapters import open_state
from hotato.conversation.judge import Judge, JudgeConfig, JudgeStatus
from hotato.model.state import StateUnavailable

from .servers import hostile

RUBRIC = {"id": "kind", "kind": "judge_rubric", "criterion": "Was the agent kind?"}
TURNS = [{"role": "agent", "text": "Happy to help."}]


def _state(tmp_path: Path, url: str, timeout_s: float = 0.5) -> str:
    doc = {"adapter": "http", "base_url": url, "egress_opt_in": True, "allow_http": True,
           "timeout_s": timeout_s, "retries": 0,
           "resources": {"orders": {"path": "/orders/{order_id}"}}}  # fmt: skip
    path = tmp_path / "api.json"
    path.write_text(json.dumps(doc))
    return str(path)


@pytest.mark.parametrize("mode", ["dribble-body", "dribble-headers", "huge-declared"])
def test_a_state_read_ends_at_its_deadline(tmp_path: Path, mode: str) -> None:
    """Each byte arrives well within the 0.5 s read timeout, so a per-read timeout alone would
    wait for the whole body (100 000 bytes at 20 a second: over an hour)."""
    with hostile(mode) as server, open_state(_state(tmp_path, server.url)) as state:
        started = time.monotonic()
        with pytest.raises(StateUnavailable) as caught:
            state.after.query("orders", {"order_id": "A-1"})
        elapsed = time.monotonic() - started
    assert caught.value.cause in ("timeout", "too_large")
    assert elapsed < 3, f"held for {elapsed:.1f}s"


def test_a_huge_declared_body_is_refused_before_reading_it(tmp_path: Path) -> None:
    with (
        hostile("huge-declared") as server,
        open_state(_state(tmp_path, server.url, 5)) as state,
        pytest.raises(StateUnavailable) as caught,
    ):
        state.after.query("orders", {"order_id": "A-1"})
    assert caught.value.cause == "too_large" and "536870912" in caught.value.message


def test_a_body_without_a_declared_size_stops_at_the_cap(tmp_path: Path) -> None:
    with (
        hostile("flood", flood_bytes=17 * 1024 * 1024) as server,
        open_state(_state(tmp_path, server.url, 30)) as state,
        pytest.raises(StateUnavailable) as caught,
    ):
        state.after.query("orders", {"order_id": "A-1"})
    assert caught.value.cause == "too_large"


@pytest.mark.parametrize("mode", ["dribble-body", "dribble-headers"])
def test_a_judge_call_ends_at_its_deadline(mode: str) -> None:
    with hostile(mode) as server:
        judge = Judge(JudgeConfig(endpoint=server.url, model="m", timeout=0.5))
        started = time.monotonic()
        result = judge.evaluate(RUBRIC, TURNS, None)
        elapsed = time.monotonic() - started
        judge.close()
    assert result.status is JudgeStatus.ERROR and "within 0.5s" in result.reason
    assert elapsed < 3, f"held for {elapsed:.1f}s"


def test_a_judge_answer_over_the_cap_is_an_error() -> None:
    with (
        hostile("flood", flood_bytes=17 * 1024 * 1024) as server,
        Judge(JudgeConfig(endpoint=server.url, model="m", timeout=30)) as judge,
    ):
        result = judge.evaluate(RUBRIC, TURNS, None)
    assert result.status is JudgeStatus.ERROR and "too large" in result.reason


@pytest.mark.parametrize("variable", ["HTTP_PROXY", "http_proxy", "ALL_PROXY"])
def test_the_judge_never_follows_a_proxy_from_the_environment(
    monkeypatch: pytest.MonkeyPatch, variable: str
) -> None:
    """A loopback judge needs no egress opt-in; a proxy from the environment would carry the
    transcript to another host without one."""
    with hostile("flood") as proxy, hostile("flood") as judge_host:
        for name in ("NO_PROXY", "no_proxy"):
            monkeypatch.delenv(name, raising=False)
        monkeypatch.setenv(variable, proxy.url)
        with Judge(JudgeConfig(endpoint=judge_host.url, model="m", timeout=0.5)) as judge:
            judge.evaluate(RUBRIC, TURNS, None)
        assert proxy.seen == []
        assert judge_host.seen and judge_host.seen[0].startswith("POST /v1/chat/completions")
