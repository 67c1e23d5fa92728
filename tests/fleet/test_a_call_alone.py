"""One call's input never stops the fleet: whatever grading it raises, however deep, large or
endless its files, that call alone is refused with the reason, and a resume goes past it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.fleet.conftest import Fleet, table_rows
from tests.fleet.test_grade import grade

from hotato.runs.grader import Grader


def _calls(out: Path) -> dict[str, dict[str, object]]:
    return {c["call_id"]: c for c in table_rows(out, "calls")}


def _rewrite(fleet: Fleet, **rows: dict[str, str]) -> None:
    lines = fleet.rows()
    for i, row in enumerate(lines):
        row.update(rows.get(row["call_id"], {}))
        lines[i] = row
    fleet.manifest.write_text("".join(json.dumps(r) + "\n" for r in lines))


def test_an_error_while_grading_one_call_refuses_that_call(
    fleet: Fleet, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = Grader.grade

    def flaky(self: Grader, **kw: object) -> object:
        if "A-3091" in repr(kw.get("assertions")):
            raise RuntimeError("boom")
        return real(self, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(Grader, "grade", flaky)
    code, out, _ = grade(fleet, tmp_path / "r")
    assert code == 2 and "8/8 calls" in out and "4 graded, 4 refused" in out
    calls = _calls(tmp_path / "r")
    assert calls["c001"]["status"] == "refused"
    assert "grading this call failed: RuntimeError: boom" in str(calls["c001"]["message"])
    assert str(calls["c001"]["message"]).startswith(str(fleet.manifest))


def test_a_variable_that_breaks_a_pattern_refuses_that_call_and_resume_goes_on(
    fleet: Fleet, tmp_path: Path
) -> None:
    fleet.assertions.write_text(
        fleet.assertions.read_text()
        + '  - id: thanked\n    kind: phrase\n    regex: "thanks,? ${call.order_id:regex}"\n'
    )
    _rewrite(fleet, c001={"order_id": "Bob["})
    first = grade(fleet, tmp_path / "r")
    assert first[0] == 2 and "7 graded, 1 refused" in first[1]
    message = str(_calls(tmp_path / "r")["c001"]["message"])
    assert "Bob[" in message and "RE2" in message
    again = grade(fleet, tmp_path / "r")
    assert again[0] == first[0] and "8/8 calls" in again[1]


def test_a_deeply_nested_transcript_refuses_that_call_only(fleet: Fleet, tmp_path: Path) -> None:
    (fleet.root / "files" / "deep.json").write_text("[" * 100_000 + "]" * 100_000)
    _rewrite(fleet, c001={"transcript": "files/deep.json"})
    code, out, _ = grade(fleet, tmp_path / "r")
    assert code == 2 and "7 graded, 1 refused" in out
    assert "nested too deeply" in str(_calls(tmp_path / "r")["c001"]["message"])


def test_a_device_as_a_trace_is_refused_not_read_forever(fleet: Fleet, tmp_path: Path) -> None:
    _rewrite(fleet, c001={"trace": "/dev/zero"})
    code, out, _ = grade(fleet, tmp_path / "r")
    assert code == 2 and "7 graded, 1 refused" in out
    message = str(_calls(tmp_path / "r")["c001"]["message"])
    assert "/dev/zero" in message and "not a regular file" in message


def test_a_file_over_the_size_limit_refuses_that_call(fleet: Fleet, tmp_path: Path) -> None:
    (fleet.root / "files" / "big.jsonl").write_bytes(
        (fleet.root / "files" / "trace.jsonl").read_bytes() + b" " * (2 << 20)
    )
    _rewrite(fleet, c002={"trace": "files/big.jsonl"})
    code, out, _ = grade(fleet, tmp_path / "r", "--max-file-mib", "1")
    assert code == 2 and "7 graded, 1 refused" in out
    message = str(_calls(tmp_path / "r")["c002"]["message"])
    assert "big.jsonl" in message and "larger than the call's limit of 1048576 bytes" in message


def test_every_call_refused_is_not_a_clean_night(fleet: Fleet, tmp_path: Path) -> None:
    _rewrite(fleet, **{f"c{i:03d}": {"trace": "files/nowhere.jsonl"} for i in range(8)})
    code, out, err = grade(fleet, tmp_path / "r")
    assert code == 2 and "0 graded, 8 refused" in out
    assert "8 of 8 call(s) refused, more than --max-refused 0 accepts" in err


@pytest.mark.parametrize(
    ("limit", "code"), [("1", 1), ("0", 2), ("12.5%", 1), ("12%", 2), ("100%", 1)]
)
def test_max_refused_accepts_a_count_or_a_percent(
    fleet: Fleet, tmp_path: Path, limit: str, code: int
) -> None:
    _rewrite(fleet, c003={"trace": "files/nowhere.jsonl"})  # 1 of 8 calls: 12.5%
    ran = grade(fleet, tmp_path / "r", "--max-refused", limit)
    assert ran[0] == code and "7 graded, 1 refused" in ran[1]


def test_max_refused_that_is_not_a_count_or_percent_is_refused(
    fleet: Fleet, tmp_path: Path
) -> None:
    code, _, err = grade(fleet, tmp_path / "r", "--max-refused", "ten")
    assert code == 2 and "--max-refused 'ten'" in err and not (tmp_path / "r").exists()
