"""What an artifact binds is what was graded: each input is read once. A transcript piped on
stdin is bound with its bytes (not as an empty file), and a signed trace replaced after grading
never reaches a signed artifact that verifies."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from tests.conftest import CONFORMANCE, hotato

import hotato.runs.call as call_module
from hotato.artifacts.verify import verify_artifact
from hotato.conversation.testfile import load_test
from hotato.runs.call import single
from hotato.runs.request import RunRequest

CALL = CONFORMANCE / "fx-itc-zombie-assert-run"
TEST = """\
kind: hotato.conversation-test
version: 1
id: zombie
agent: res-v1
assertions:
  deterministic:
    - {id: stated, kind: phrase, regex: "under Rivera", role: caller}
    - {id: booked, kind: tool_call, name: book_table}
"""


@pytest.fixture
def work(tmp_path: Path) -> Path:
    for name in ("trace.jsonl", "transcript.json"):
        shutil.copy(CALL / name, tmp_path / name)
    (tmp_path / "t.yaml").write_text(TEST)
    return tmp_path


def test_a_transcript_piped_on_stdin_is_bound_with_the_bytes_graded(work: Path) -> None:
    piped = (work / "transcript.json").read_text()
    ran = hotato(
        "test", "run", "t.yaml", "--agent", "res-v1", "--transcript", "/dev/stdin",
        "--trace", "trace.jsonl",
        "--out", "art", "--created-at", "2026-01-01T00:00:00Z", "--format", "json",
        cwd=work, stdin=piped, process=True,  # a real pipe on fd 0
    )  # fmt: skip
    assert ran.code in (0, 1), ran.err
    stated = next(r for r in json.loads(ran.out)["assertions"]["results"] if r["id"] == "stated")
    assert stated["status"] == "PASS"  # graded on the piped bytes
    assert (work / "art" / "transcript.json").read_text() == piped  # and bound with them
    assert hotato("conversation", "verify", "art", cwd=work).code == 0


def test_a_signed_trace_replaced_after_grading_is_not_what_gets_bound(
    work: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The swap happens at the worst moment, between grading and binding, deterministically."""
    assert hotato("label", "keygen", "--out", "me", cwd=work).code == 0
    assert hotato("trace", "sign", "trace.jsonl", "--key", "me/signing.key", cwd=work).code == 0
    graded = (work / "trace.jsonl").read_bytes()
    forged = graded.replace(b"book_table", b"drop_tables")
    assert forged != graded
    grade = call_module.grade_call

    def grade_then_swap(*args: object, **kw: object) -> object:
        run = grade(*args, **kw)  # type: ignore[arg-type]
        (work / "trace.jsonl").write_bytes(forged)  # replaced once graded
        return run

    monkeypatch.setattr(call_module, "grade_call", grade_then_swap)
    monkeypatch.chdir(work)
    req = RunRequest.of(
        test_path="t.yaml", agent="res-v1", trace="trace.jsonl", transcript="transcript.json",
        out="art", created_at="2026-01-01T00:00:00Z", sign_key="me/signing.key",
        trace_keys=("me/signing.pub",), require_signed_trace=True,
    )  # fmt: skip
    single(req, load_test("t.yaml"), req.files())
    assert (work / "art" / "trace.jsonl").read_bytes() == graded
    assert not verify_artifact(work / "art").refused
