"""The long-lived Grader: the same results as one `assert run`, a state read afresh each call,
user reader objects and already loaded evidence accepted."""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import hotato

from hotato.evidence.trace import load_trace
from hotato.evidence.transcript import load_transcript
from hotato.model.errors import InputError
from hotato.model.state import StateUnavailable
from hotato.runs.assertions import grade_assertions
from hotato.runs.grader import Grader
from hotato.runs.result import NotPassed

DEMO = Path(__file__).resolve().parents[2] / "src" / "hotato" / "demo"
FILES = {
    n: str(DEMO / f)
    for n, f in [
        ("a", "assertions.yaml"),
        ("trace", "trace.jsonl"),
        ("transcript", "transcript.json"),
    ]
}


@pytest.fixture
def db(tmp_path: Path) -> Path:
    target = tmp_path / "orders.sqlite"
    shutil.copy(DEMO / "orders.sqlite", target)
    return target


def _status(result: Any, ident: str) -> str:
    return next(r.status.value for r in result.results if r.id == ident)


def test_grader_json_is_the_cli_json(db: Path) -> None:
    ran = hotato(
        "assert",
        "run",
        "--assertions",
        FILES["a"],
        "--trace",
        FILES["trace"],
        "--transcript",
        FILES["transcript"],
        "--state",
        str(db),
        "--format",
        "json",
    )
    with Grader(FILES["a"], state=str(db)) as grader:
        first = grader.grade(trace=FILES["trace"], transcript=FILES["transcript"])
        second = grader.grade(trace=FILES["trace"], transcript=FILES["transcript"])
    assert first.to_json() == second.to_json() == ran.out
    assert first.exit_code == ran.code == 1
    assert not first.passed


def test_each_call_reads_the_state_again(db: Path) -> None:
    with Grader(FILES["a"], state=str(db)) as grader:
        before = grader.grade(trace=FILES["trace"], transcript=FILES["transcript"])
        with sqlite3.connect(db) as conn:
            conn.execute("UPDATE orders SET refund_status = 'refunded'")
        after = grader.grade(trace=FILES["trace"], transcript=FILES["transcript"])
    assert _status(before, "refund-recorded") == "FAIL"
    assert _status(after, "refund-recorded") == "PASS"


def test_loaded_evidence_and_a_user_reader() -> None:
    asked: list[tuple[str, dict[str, Any]]] = []

    class Orders:
        def query(self, resource: str, filters: Mapping[str, Any]) -> dict[str, Any] | None:
            asked.append((resource, dict(filters)))
            return {"order_id": "A-3090", "refund_status": "refunded"}

    result = grade_assertions(
        FILES["a"],
        trace=load_trace(FILES["trace"]),
        transcript=load_transcript(FILES["transcript"]),
        state=Orders(),
    )
    assert _status(result, "refund-recorded") == "PASS"
    assert asked == [("orders", {"order_id": "A-3090"})]


def test_a_reader_that_cannot_answer_is_inconclusive_with_its_cause() -> None:
    class Down:
        def query(self, resource: str, filters: Mapping[str, Any]) -> dict[str, Any] | None:
            raise StateUnavailable("connection_refused", "the orders service is down")

    result = grade_assertions(FILES["a"], trace=FILES["trace"], state=Down())
    assert _status(result, "refund-recorded") == "INCONCLUSIVE"
    assert "down" in next(r.reason for r in result.results if r.id == "refund-recorded")


def test_assert_passed_raises_with_the_verdict_table(db: Path) -> None:
    result = grade_assertions(FILES["a"], trace=FILES["trace"], state=str(db))
    with pytest.raises(NotPassed) as raised:
        result.assert_passed("demo")
    assert "FAIL" in str(raised.value) and "refund-recorded" in str(raised.value)
    assert isinstance(raised.value, AssertionError)


def test_a_signature_check_needs_the_trace_file() -> None:
    with pytest.raises(InputError, match="checked against its file"):
        grade_assertions(FILES["a"], trace=load_trace(FILES["trace"]), require_signed_trace=True)


def test_an_sql_reader_tries_again_on_the_next_call(tmp_path: Path) -> None:
    from hotato.adapters.sql import SqlReader
    from hotato.adapters.sql_connect import sqlite_target

    reader = SqlReader(sqlite_target(str(DEMO / "orders.sqlite")))
    reader._down = StateUnavailable("timeout", "gone")
    with pytest.raises(StateUnavailable):
        reader.query("orders", {"order_id": "A-3090"})
    reader.new_call()
    assert reader.query("orders", {"order_id": "A-3090"}) is not None
    reader.close()
