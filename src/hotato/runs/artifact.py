"""Binding a test run's evidence into a `hotato.conversation` artifact."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from hotato.artifacts.bundle import Child, Signer, encode, write_artifact
from hotato.conversation.calls import CallFiles
from hotato.conversation.identity import conversation_id
from hotato.model.errors import InputError
from hotato.model.reports import StateEvidence

ORIGINS = ("real", "simulated", "fixture")


def created_at(pinned: str | None) -> str:
    if pinned is None:
        return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    try:
        datetime.fromisoformat(pinned.replace("Z", "+00:00"))
    except ValueError:
        raise InputError.one(
            f"--created-at {pinned!r} is not an ISO 8601 time (e.g. 2026-01-01T00:00:00Z)"
        ) from None
    return pinned


def origin(kind: str, simulator: dict[str, Any] | None) -> dict[str, Any]:
    if kind == "simulated":
        if not simulator:
            raise InputError.one(
                "--origin simulated needs the test's 'simulator' block "
                "(model_id, scenario_id, seed)"
            )
        return {"kind": "simulated", "simulator": simulator}
    return {"kind": kind}


def bind(
    out: str,
    test_id: str,
    agent: str,
    when: str,
    origin_doc: dict[str, Any],
    document: dict[str, Any],
    files: CallFiles,
    state_doc: StateEvidence | None,
    signer: Signer | None = None,
    page: bytes | None = None,
    audio_layout: str = "caller-left",
) -> dict[str, Any]:
    children = [Child("assertions", "assertions.json", data=encode(document))]
    if page is not None:  # the report page, bound and verified like every other child
        children.append(Child("report", "report.html", data=page))
    if files.transcript:
        children.append(Child("transcript", "transcript.json", source=files.transcript))
    if files.trace:
        children.append(
            Child("trace", "trace" + _suffix(files.trace, ".jsonl"), source=files.trace)
        )
    if state_doc is not None:
        children.append(Child("state", "state-evidence.json", data=encode(state_doc)))
    if files.audio:
        children.append(Child("audio", "audio" + _suffix(files.audio, ".wav"), source=files.audio))
    if files.timing:
        children.append(Child("timing", "timing.json", source=files.timing))
    elif files.audio:
        from hotato.runs.timing import bound_timing

        # the timing scored from the recording, when it was
        made = bound_timing(files.audio, audio_layout)
        if made is not None:
            children.append(Child("timing", "timing.json", data=made.to_json()))

    def head(bound: dict[str, dict[str, Any]]) -> dict[str, Any]:
        call = {n: b["sha256"] for n, b in bound.items() if n in ("transcript", "trace", "audio")}
        return {
            "kind": "hotato.conversation",
            "version": 1,
            "conversation_id": conversation_id(test_id, agent, call),
            "test_id": test_id,
            "agent_id": agent,
            "created_at": when,
            "origin": origin_doc,
        }

    return write_artifact(out, head, children, signer)


def _suffix(path: str, default: str) -> str:
    suffixes = (
        "".join(Path(path).suffixes[-2:]) if path.endswith(".otlp.json") else Path(path).suffix
    )
    return suffixes or default
