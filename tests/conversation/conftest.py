"""Builders for conversation tests: recorded calls on disk and test files, written as a user would.

A "good call" is a refund call where everything the agent said happened: the trace holds
lookup_order then issue_refund(order_id A-1001), the sandbox state shows the refund, and the agent
disclosed the recording. Assertions below are picked to land on a known status against it.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

META = {
    "_meta": True,
    "schema": "hotato.voice_trace.v1",
    "call_id": "call-1",
    "deployment": {"stack": "generic", "agent_id": "support-v3"},
    "source": {"format": "test-fixture"},
}
LOOKUP = {
    "type": "tool_call",
    "name": "lookup_order",
    "start_sec": 1.0,
    "end_sec": 1.3,
    "latency_ms": 300,
    "arguments": {"order_id": "A-1001"},
    "result": {"status": "found"},
}
REFUND = {
    "type": "tool_call",
    "name": "issue_refund",
    "start_sec": 2.0,
    "end_sec": 2.4,
    "latency_ms": 420,
    "arguments": {"order_id": "A-1001"},
    "result": {"status": "ok"},
}
TURNS = [
    {"role": "agent", "text": "Thanks for calling, this call is recorded.", "start": 0, "end": 2},
    {"role": "caller", "text": "I need a refund for order A-1001.", "start": 2, "end": 4},
    {"role": "agent", "text": "Done, the refund is issued.", "start": 5, "end": 7},
]
STATE = {"orders": [{"order_id": "A-1001", "refund_status": "refunded"}]}

# Assertions and the status each gives against the good call (with every evidence file).
REFUND_RAN = {
    "id": "refund-ran",
    "kind": "tool_call",
    "name": "issue_refund",
    "args_subset": {"order_id": "A-1001"},
    "dimension": "outcome",
}
DISCLOSED = {
    "id": "disclosed",
    "kind": "phrase",
    "regex": "this call is recorded",
    "role": "agent",
    "dimension": "policy",
}
IN_ORDER = {
    "id": "lookup-then-refund",
    "kind": "sequence",
    "steps": [{"tool": "lookup_order"}, {"tool": "issue_refund"}],
    "dimension": "conversation",
}
FAST = {
    "id": "refund-fast",
    "kind": "latency",
    "tool": "issue_refund",
    "max_ms": 1500,
    "dimension": "speech",
}
RECORDED = {
    "id": "refund-recorded",
    "kind": "state",
    "resource": "orders",
    "filters": {"order_id": "A-1001"},
    "expect": {"refund_status": "refunded"},
    "dimension": "outcome",
}
NEVER_CANCELLED = {  # FAIL against the good call: the agent never cancelled anything
    "id": "cancelled",
    "kind": "tool_call",
    "name": "cancel_order",
    "dimension": "outcome",
}
EMPATHY = {
    "id": "empathetic",
    "kind": "judge_rubric",
    "criterion": "Did the agent acknowledge the caller's frustration?",
    "dimension": "conversation",
}


def write_call(
    folder: Path,
    *,
    spans: list[dict[str, Any]] | None = None,
    turns: list[dict[str, Any]] | None = None,
    state: dict[str, Any] | None = None,
    trace: bool = True,
    transcript: bool = True,
    with_state: bool = True,
    audio: bytes | None = None,
) -> Path:
    """A recorded call folder: transcript.json, trace.jsonl, state.json and audio.wav."""
    folder.mkdir(parents=True, exist_ok=True)
    if trace:
        lines = [META, *(spans if spans is not None else [LOOKUP, REFUND])]
        (folder / "trace.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    if transcript:
        (folder / "transcript.json").write_text(json.dumps(turns if turns is not None else TURNS))
    if with_state:
        (folder / "state.json").write_text(json.dumps(state if state is not None else STATE))
    if audio is not None:
        (folder / "audio.wav").write_bytes(audio)
    return folder


def make_test(
    deterministic: list[dict[str, Any]],
    rubric: list[dict[str, Any]] | None = None,
    required: list[str] | None = None,
    test_id: str = "refund-flow",
    **extra: Any,
) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "kind": "hotato.conversation-test",
        "version": 1,
        "id": test_id,
        "agent": "support-v3",
        "assertions": {"deterministic": deterministic, "rubric": rubric or []},
    }
    if required is not None:
        doc["success"] = {"required": required}
    doc.update(extra)
    return doc


def write_test(path: Path, *args: Any, **kwargs: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(make_test(*args, **kwargs), indent=2))
    return path


def evidence_args(call: Path, *, state: bool = True) -> list[str]:
    args = ["--transcript", str(call / "transcript.json"), "--trace", str(call / "trace.jsonl")]
    if state:
        args += ["--state", str(call / "state.json")]
    return args


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def rehash(artifact: Path, name: str) -> None:
    """Re-record one child's digest and size in the manifest: a consistent forgery."""
    manifest_path = artifact / "conversation.json"
    manifest = json.loads(manifest_path.read_text())
    child = artifact / manifest["artifacts"][name]["path"]
    manifest["artifacts"][name]["sha256"] = sha256(child)
    manifest["artifacts"][name]["bytes"] = child.stat().st_size
    manifest_path.write_text(json.dumps(manifest, indent=2))


def edit_manifest(artifact: Path, change: Any) -> None:
    path = artifact / "conversation.json"
    manifest = json.loads(path.read_text())
    change(manifest)
    path.write_text(json.dumps(manifest, indent=2))


@pytest.fixture
def good_call(tmp_path: Path) -> Path:
    return write_call(tmp_path / "call")
