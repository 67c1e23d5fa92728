"""The public API, used as a user would (`import hotato`): the same verdicts and JSON as the
CLI, paths or loaded objects, typed errors, and nothing printed."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest
from tests.conftest import REPO
from tests.conftest import hotato as cli
from tests.conversation.conftest import (
    DISCLOSED,
    NEVER_CANCELLED,
    RECORDED,
    REFUND_RAN,
    evidence_args,
    write_call,
    write_test,
)

import hotato


@pytest.fixture
def refund(tmp_path: Path) -> Path:
    return write_test(tmp_path / "refund.json", [REFUND_RAN, DISCLOSED, RECORDED])


def test_run_test_gives_the_cli_json(tmp_path: Path, refund: Path) -> None:
    call = write_call(tmp_path / "call")
    ran = cli(
        "test",
        "run",
        str(refund),
        "--agent",
        "support-v3",
        *evidence_args(call),
        "--format",
        "json",
    )
    outcome = hotato.run_test(
        refund,
        trace=call / "trace.jsonl",
        transcript=call / "transcript.json",
        state=call / "state.json",
    )
    assert outcome.to_json() == ran.out
    assert outcome.exit_code == ran.code == 0 and outcome.passed


def test_trials_and_a_verifiable_artifact_in_five_lines(tmp_path: Path, refund: Path) -> None:
    for name in ("call-1", "call-2"):
        write_call(tmp_path / "calls" / name)
    outcome = hotato.run_trials(refund, tmp_path / "calls", k=2, out=tmp_path / "artifacts")
    assert outcome.passed and len(outcome.items) == 2
    assert outcome.document.reliability.aggregate.k == 2
    assert [g.name for g in outcome.items] == ["refund-flow[call-1]", "refund-flow[call-2]"]
    assert hotato.verify_artifact(tmp_path / "artifacts" / "call-1").ok


def test_run_suite_gives_the_cli_json(tmp_path: Path) -> None:
    suite = tmp_path / "suite"
    write_test(suite / "refund.json", [REFUND_RAN], test_id="refund")
    write_call(suite / "refund")
    write_test(suite / "nested" / "cancel.json", [NEVER_CANCELLED], test_id="cancel")
    write_call(suite / "nested" / "cancel")
    ran = cli("test", "run", str(suite), "--agent", "support-v3", "--format", "json")
    outcome = hotato.run_suite(suite, agent="support-v3")
    assert outcome.to_json() == ran.out
    assert outcome.exit_code == ran.code == 1
    assert [g.name for g in outcome.items] == ["cancel", "refund"]


def test_loaded_objects_are_accepted(tmp_path: Path, refund: Path) -> None:
    call = write_call(tmp_path / "call")
    test = hotato.load_test(refund)
    outcome = hotato.run_test(test, trace=str(call / "trace.jsonl"))
    assert outcome.run.test.id == "refund-flow"
    result = hotato.grade(
        hotato.load_assertions(_assertions(tmp_path)),
        trace=hotato.load_trace(call / "trace.jsonl"),
        transcript=hotato.load_transcript(call / "transcript.json"),
    )
    assert result.passed and result.exit_code == 0
    assert json.loads(result.to_json())["schema"] == "assert.v1"
    loaded = hotato.load_trace(call / "trace.jsonl")  # this crashed run_assertions in 1.x
    assert hotato.run_assertions(_assertions(tmp_path), trace=loaded).exit_code == 0


def _assertions(tmp_path: Path) -> Path:
    path = tmp_path / "assertions.json"
    path.write_text(json.dumps({"version": 1, "assertions": [REFUND_RAN]}))
    return path


def test_ingest_gives_a_trace_to_grade(tmp_path: Path) -> None:
    call = write_call(tmp_path / "call")
    trace = hotato.ingest(call / "trace.jsonl")
    assert [s.name for s in trace.tool_order] == ["lookup_order", "issue_refund"]
    assert hotato.grade(_assertions(tmp_path), trace=trace).passed


def test_labels_sign_and_verify(tmp_path: Path, refund: Path) -> None:
    from hotato.artifacts.signing import generate_private_key, public_key_pem

    call = write_call(tmp_path / "call")
    hotato.run_test(
        refund, trace=call / "trace.jsonl", out=tmp_path / "art", created_at="2026-01-01T00:00:00Z"
    )
    key = generate_private_key()
    (tmp_path / "reviewer.pub").write_bytes(public_key_pem(key.public_key()))
    label = hotato.sign_label(
        tmp_path / "art", assertion_id="refund-recorded", verdict="pass", reviewer="ana", key=key
    )
    (tmp_path / "labels").mkdir()
    (tmp_path / "labels" / "a.json").write_bytes(label)
    verified = hotato.verify_label(
        tmp_path / "labels" / "a.json", trust=[tmp_path / "reviewer.pub"], artifact=tmp_path / "art"
    )
    assert (verified.assertion_id, verified.verdict) == ("refund-recorded", "pass")
    settled = hotato.run_test(
        refund,
        trace=call / "trace.jsonl",
        labels=tmp_path / "labels",
        trust=[tmp_path / "reviewer.pub"],
    )
    assert settled.document.human.verified[0].reviewer == "ana"


def test_refusals_are_typed_and_located(tmp_path: Path) -> None:
    with pytest.raises(hotato.InputError) as refused:
        hotato.grade(tmp_path / "missing.yaml")
    assert refused.value.problems[0].file == str(tmp_path / "missing.yaml")
    refund = write_test(tmp_path / "refund.json", [REFUND_RAN])
    write_call(tmp_path / "calls" / "one")
    with pytest.raises(hotato.InputError, match="larger than the number of trials"):
        hotato.run_trials(refund, tmp_path / "calls", k=2)


def test_a_library_call_prints_nothing(
    tmp_path: Path, refund: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    call = write_call(tmp_path / "call")
    outcome = hotato.run_test(refund, agent="someone-else", trace=call / "trace.jsonl")
    assert outcome.notes and "someone-else" in outcome.notes[0]
    assert capsys.readouterr() == ("", "")


LIBRARY = REPO / "src" / "hotato"
FORBIDDEN = {
    ("click", "echo"),
    ("sys", "exit"),
    ("sys", "argv"),
    ("sys", "stdout"),
    ("sys", "stderr"),
}


def test_no_library_module_prints_exits_or_reads_argv() -> None:
    """Only the CLI (and `python -m hotato`) talks to the terminal and the process."""
    found = []
    for path in sorted(LIBRARY.rglob("*.py")):
        rel = path.relative_to(LIBRARY)
        if rel.parts[0] == "cli" or rel.name == "__main__.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) in ("print", "exit"):
                found.append(f"{rel}:{node.lineno}")
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and (node.value.id, node.attr) in FORBIDDEN
            ):
                found.append(f"{rel}:{node.lineno} {node.value.id}.{node.attr}")
    assert found == []


def test_the_public_names() -> None:
    for name in hotato.__all__:
        assert getattr(hotato, name) is not None, name
        if name != "__version__":
            assert getattr(hotato, name).__doc__, f"{name} has no docstring"


def test_no_library_name_is_collected_by_pytest() -> None:
    """A user's test module that imports hotato's names collects none of them as tests: no
    module named test_*.py, no top-level function test_*, no class Test* (unless it says
    `__test__ = False`)."""
    found = []
    for path in sorted(LIBRARY.rglob("*.py")):
        rel = path.relative_to(LIBRARY)
        if path.name.startswith("test_") or path.name.endswith("_test.py"):
            found.append(str(rel))
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith(
                "test"
            ):
                found.append(f"{rel}:{node.lineno} {node.name}")
            if isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
                opted_out = any(
                    isinstance(s, ast.Assign)
                    and any(getattr(t, "id", None) == "__test__" for t in s.targets)
                    for s in node.body
                )
                if not opted_out:
                    found.append(f"{rel}:{node.lineno} {node.name}")
    assert found == []
