"""`hotato.extract_claims` and `hotato.check_claims`: the library calls behind `hotato claims`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import hotato
from hotato.model.reports import Counts
from hotato.model.status import ExitCode, Status

META = {"_meta": True, "schema": "hotato.voice_trace.v1", "call_id": "api"}


def test_check_claims_grades_like_the_cli(tmp_path: Path) -> None:
    (tmp_path / "t.json").write_text(
        json.dumps(
            [{"role": "agent", "text": "Okay, I cancelled order seven seven two one five."}]
        ),
        encoding="utf-8",
    )
    (tmp_path / "r.jsonl").write_text(
        json.dumps(META)
        + "\n"
        + json.dumps({"type": "tool_call", "name": "get_order", "arguments": {"order_id": "77215"}})
        + "\n",
        encoding="utf-8",
    )
    found = hotato.extract_claims(tmp_path / "t.json")
    assert [(c.type, c.polarity) for c in found.claims] == [("order_cancelled", "done")]
    assert found.claims[0].entities[0].value == "77215"
    graded = hotato.check_claims(tmp_path / "t.json", trace=tmp_path / "r.jsonl")
    assert graded.exit_code is ExitCode.FAILED
    assert graded.results[0].status is Status.FAIL
    assert graded.summary.graded == Counts(passed=0, failed=1, inconclusive=0)


def test_an_unknown_type_is_refused(tmp_path: Path) -> None:
    (tmp_path / "t.json").write_text("[]", encoding="utf-8")
    with pytest.raises(hotato.UsageError, match="unknown claim type"):
        hotato.check_claims(tmp_path / "t.json", types=["nope"])
