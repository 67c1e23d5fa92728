"""`${call.COLUMN}` in a pattern matches the value literally; `${call.COLUMN:regex}` inserts it
as a pattern, and only a pattern field may ask for that."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import hotato
from tests.fleet.conftest import table_rows

TRANSCRIPT = [
    {"role": "caller", "text": "hi, it's Chris", "start": 0.0, "end": 1.0},
    {"role": "agent", "text": "thanks, Chris (Kit), all done", "start": 1.5, "end": 3.0},
]


def _grade(tmp_path: Path, assertion: str, rows: list[dict[str, str]]) -> tuple[int, str, dict]:
    (tmp_path / "transcript.json").write_text(json.dumps(TRANSCRIPT))
    (tmp_path / "calls.jsonl").write_text(
        "".join(json.dumps({**r, "transcript": "transcript.json"}) + "\n" for r in rows)
    )
    (tmp_path / "a.yaml").write_text("version: 1\nassertions:\n" + assertion)
    ran = hotato(
        "fleet",
        "grade",
        str(tmp_path / "calls.jsonl"),
        "--assertions",
        str(tmp_path / "a.yaml"),
        "--out",
        str(tmp_path / "r"),
        "--workers",
        "1",
        "--quiet",
        "--max-refused",
        "100%",
    )
    if ran.code == 2 and not (tmp_path / "r").exists():
        return ran.code, ran.err, {}
    rows_out = table_rows(tmp_path / "r", "results")
    return ran.code, ran.out, {r["call_id"]: r["status"] for r in rows_out}


PHRASE = '  - id: thanked\n    kind: phrase\n    role: agent\n    regex: "thanks,? {ref}"\n'


def test_a_value_in_a_pattern_is_matched_literally(tmp_path: Path) -> None:
    _, _, status = _grade(
        tmp_path,
        PHRASE.format(ref="${call.name}"),
        [
            {"call_id": "kit", "name": "Chris (Kit)"},
            {"call_id": "anyone", "name": ".*"},
            {"call_id": "bracket", "name": "Bob["},
        ],
    )
    assert status == {"kit": "PASS", "anyone": "FAIL", "bracket": "FAIL"}


def test_the_regex_form_inserts_the_value_as_a_pattern(tmp_path: Path) -> None:
    _, _, status = _grade(
        tmp_path,
        PHRASE.format(ref="${call.name:regex}"),
        [{"call_id": "either", "name": "(Chris|Kit)"}, {"call_id": "anyone", "name": ".*"}],
    )
    assert status == {"either": "PASS", "anyone": "PASS"}


def test_the_regex_form_outside_a_pattern_is_refused_before_grading(tmp_path: Path) -> None:
    code, err, _ = _grade(
        tmp_path,
        "  - id: looked\n    kind: tool_call\n    name: lookup\n"
        '    args_subset: {order_id: "${call.name:regex}"}\n',
        [{"call_id": "c1", "name": "A-1"}],
    )
    assert code == 2
    assert "$.assertions[0].args_subset.order_id (tool_call): ${call.name:regex} is only" in err
