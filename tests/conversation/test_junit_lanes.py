"""JUnit keeps the three lanes apart: deterministic results, the rubric lane, signed labels."""

from __future__ import annotations

import socket
import xml.etree.ElementTree as ET

from tests.conftest import CONFORMANCE, hotato

CASE = CONFORMANCE / "fx-refund-conversation-test-run"


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _run(*extra: str) -> ET.Element:
    ran = hotato(
        "test",
        "run",
        "test.yaml",
        "--agent",
        "support-v3",
        "--transcript",
        "transcript.json",
        "--trace",
        "trace.jsonl",
        "--no-store",
        "--format",
        "junit",
        *extra,
        cwd=CASE,
    )
    return ET.fromstring(ran.out)


def test_the_rubric_lane_is_its_own_suite_and_advisory_by_default() -> None:
    root = _run("--judge-endpoint", f"http://127.0.0.1:{_closed_port()}")
    names = [s.get("name") for s in root]
    assert names == ["refund-flow", "refund-flow.rubric"]
    rubric = root[1]
    assert rubric.get("errors") == "0" and rubric.get("skipped") == "1"
    skipped = rubric.find("testcase/skipped")
    assert skipped is not None and "ERROR (rubric lane, advisory)" in skipped.get("message", "")


def test_a_gated_judge_error_is_a_junit_error() -> None:
    root = _run("--judge-endpoint", f"http://127.0.0.1:{_closed_port()}", "--gate-judge")
    rubric = root[1]
    assert rubric.get("errors") == "1"
    assert rubric.find("testcase/error") is not None
    # the judge never rewrites a deterministic result; only the success condition it gates breaks
    failed = [c.get("name") for c in root[0] if c.find("failure") is not None]
    assert failed == ["success"]
