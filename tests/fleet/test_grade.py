"""`hotato fleet grade`: every call graded into Parquet, refusals per call, per-call variables,
and a re-run that skips what is done."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from tests.conftest import hotato
from tests.fleet.conftest import Fleet, table_rows

from hotato.fleet.grade import FleetRequest, grade_fleet


def grade(fleet: Fleet, out: Path, *extra: str, calls: Path | None = None) -> tuple[int, str, str]:
    ran = hotato(
        "fleet",
        "grade",
        str(calls or fleet.manifest),
        "--assertions",
        str(fleet.assertions),
        "--state",
        str(fleet.state),
        "--out",
        str(out),
        "--workers",
        "1",
        "--batch-size",
        "3",
        *extra,
    )
    return ran.code, ran.out, ran.err


def results(out: Path) -> list[dict[str, object]]:
    rows = table_rows(out, "results")
    return sorted(rows, key=lambda r: (r["call_id"], r["assertion_id"]))


def test_every_call_graded_with_its_own_order(fleet: Fleet, tmp_path: Path) -> None:
    code, out, _ = grade(fleet, tmp_path / "r")
    assert code == 1  # A-3090 was never refunded: those calls FAIL
    assert "8/8 calls" in out and "8 graded, 0 refused" in out
    rows = results(tmp_path / "r")
    assert len(rows) == 8 * 3
    state = {r["call_id"]: r["status"] for r in rows if r["assertion_id"] == "refund-recorded"}
    assert state == {f"c{i:03d}": "FAIL" if i % 2 == 0 else "PASS" for i in range(8)}
    looked = {r["call_id"]: r["status"] for r in rows if r["assertion_id"] == "looked-up-own-order"}
    # the trace looked up A-3090 only: the odd calls (A-3091) FAIL
    assert looked == {f"c{i:03d}": "PASS" if i % 2 == 0 else "FAIL" for i in range(8)}
    phrase = {r["call_id"]: r["status"] for r in rows if r["assertion_id"] == "claimed-refund"}
    assert phrase["c000"] == "INCONCLUSIVE" and phrase["c001"] == "PASS"
    first = rows[0]
    assert first["variables"] == {"order_id": "A-3090"}
    assert first["agent"] == "v1" and first["started_at"].isoformat() == "2026-11-01T10:00:00+00:00"
    assert len(first["input_digest"]) == 64 and first["kind"] == "phrase"


def test_results_have_the_documented_columns(fleet: Fleet, tmp_path: Path) -> None:
    grade(fleet, tmp_path / "r")
    files = sorted((tmp_path / "r" / "results").rglob("*.parquet"))
    folders = {f.parent.relative_to(tmp_path / "r" / "results").as_posix() for f in files}
    # compacted at the end of the run: the agent and the day are the folders, not columns
    assert folders == {f"agent={a}/date=2026-11-0{d}" for a in ("v1", "v2") for d in (1, 2)}
    names = pq.read_schema(files[0]).names
    assert names == [
        "run_id",
        "call_id",
        "input_digest",
        "assertion_id",
        "kind",
        "dimension",
        "deterministic",
        "status",
        "reason",
        "skipped",
        "observed",
        "evidence",
        "started_at",
        "variables",
    ]
    calls = table_rows(tmp_path / "r", "calls")
    assert {c["status"] for c in calls} == {"graded"} and len(calls) == 8
    assert json.loads((tmp_path / "r" / "fleet.json").read_text())["total"] == 8


def test_a_corrupt_or_missing_input_refuses_that_call_only(fleet: Fleet, tmp_path: Path) -> None:
    rows = fleet.rows()
    (fleet.root / "files" / "broken.jsonl").write_text('{"_meta": true, "schema": 5}\nnot json\n')
    rows[1]["trace"] = "files/broken.jsonl"
    rows[2]["transcript"] = "files/nowhere.json"
    fleet.manifest.write_text("".join(json.dumps(r) + "\n" for r in rows))
    code, out, _ = grade(fleet, tmp_path / "r")
    assert code == 2 and "6 graded, 2 refused" in out  # refused calls count
    calls = {c["call_id"]: c for c in table_rows(tmp_path / "r", "calls")}
    assert calls["c002"]["status"] == "refused"
    assert (
        "nowhere.json" in calls["c002"]["message"] and "does not exist" in calls["c002"]["message"]
    )
    assert calls["c001"]["status"] == "refused" and "broken.jsonl" in calls["c001"]["message"]
    assert {r["call_id"] for r in results(tmp_path / "r")} == set(calls) - {"c001", "c002"}


def test_a_reference_to_a_missing_column_is_refused_before_grading(
    fleet: Fleet, tmp_path: Path
) -> None:
    fleet.assertions.write_text(
        fleet.assertions.read_text().replace(
            '${call.order_id}"}\n    expect', '${call.order}"}\n    expect'
        )
    )
    code, out, err = grade(fleet, tmp_path / "r")
    assert code == 2 and out == ""
    assert "$.assertions[2].filters.order_id (state): ${call.order} names no column" in err
    assert "assertions.yaml" in err
    assert not (tmp_path / "r").exists()


def test_csv_and_parquet_manifests_grade_the_same(fleet: Fleet, tmp_path: Path) -> None:
    rows = fleet.rows()
    columns = ["call_id", "trace", "transcript", "agent", "started_at", "order_id"]
    with (fleet.root / "calls.csv").open("w", newline="") as handle:
        writer = csv.DictWriter(handle, columns)
        writer.writeheader()
        writer.writerows(rows)
    table = pa.Table.from_pylist([{c: r.get(c) for c in columns} for r in rows])
    pq.write_table(table, fleet.root / "calls.parquet")
    for name in ("calls.jsonl", "calls.csv", "calls.parquet"):
        request = FleetRequest(
            calls=str(fleet.root / name),
            out=str(tmp_path / f"out-{name}"),
            assertions=str(fleet.assertions),
            state=str(fleet.state),
            workers=1,
        )
        grade_fleet(request)
    for name in ("calls.csv", "calls.parquet"):
        assert results(tmp_path / f"out-{name}") == results(tmp_path / "out-calls.jsonl")


def test_a_folder_of_call_folders(fleet: Fleet, tmp_path: Path) -> None:
    folder = tmp_path / "calls"
    for i in range(3):
        call = folder / f"call-{i}"
        call.mkdir(parents=True)
        (call / "trace.jsonl").write_bytes((fleet.root / "files" / "trace.jsonl").read_bytes())
        (call / "call.json").write_text(json.dumps({"agent": "v3", "order_id": "A-3091"}))
    code, out, _ = grade(fleet, tmp_path / "r", calls=folder)
    assert code == 1 and "3 graded" in out
    rows = results(tmp_path / "r")
    assert {r["agent"] for r in rows} == {"v3"}
    assert {r["status"] for r in rows if r["assertion_id"] == "refund-recorded"} == {"PASS"}


def test_a_rerun_skips_what_is_done_and_changes_nothing(fleet: Fleet, tmp_path: Path) -> None:
    grade(fleet, tmp_path / "r")
    before = results(tmp_path / "r")
    code, out, _ = grade(fleet, tmp_path / "r")
    assert code == 1 and "8 were already done" in out
    assert results(tmp_path / "r") == before


def test_another_run_in_the_same_folder_is_refused(fleet: Fleet, tmp_path: Path) -> None:
    grade(fleet, tmp_path / "r")
    fleet.assertions.write_text(fleet.assertions.read_text().replace("refunded}", "none}"))
    code, _, err = grade(fleet, tmp_path / "r")
    assert code == 2 and "choose another --out" in err


@pytest.mark.parametrize("flags", [(), ("--test",)])
def test_exactly_one_of_assertions_or_test(fleet: Fleet, tmp_path: Path, flags: tuple) -> None:
    ran = hotato("fleet", "grade", str(fleet.manifest), "--out", str(tmp_path / "r"))
    assert ran.code == 2 and "exactly one of --assertions FILE or --test FILE" in ran.err


def test_a_resume_grades_a_refused_call_again_and_keeps_graded_ones(
    fleet: Fleet, tmp_path: Path
) -> None:
    rows = fleet.rows()
    rows[3]["trace"] = "files/later.jsonl"  # not there yet: refused
    fleet.manifest.write_text("".join(json.dumps(r) + "\n" for r in rows))
    grade(fleet, tmp_path / "r")
    code, out, _ = grade(fleet, tmp_path / "r")  # still not there: refused again, once
    assert code == 2 and "7 graded, 1 refused; 7 were already done)" in out
    (fleet.root / "files" / "later.jsonl").write_bytes(
        (fleet.root / "files" / "trace.jsonl").read_bytes()
    )
    kept = {p.name: p.stat().st_mtime_ns for p in (tmp_path / "r" / "results").iterdir()}
    code, out, _ = grade(fleet, tmp_path / "r")  # the trace now exists: c003 is graded
    assert code == 1 and "8 graded, 0 refused; 7 were already done)" in out
    calls = table_rows(tmp_path / "r", "calls")
    assert sorted(c["call_id"] for c in calls) == [f"c{i:03d}" for i in range(8)]
    assert {c["status"] for c in calls} == {"graded"}
    assert len(results(tmp_path / "r")) == 8 * 3
    now = {p.name: p.stat().st_mtime_ns for p in (tmp_path / "r" / "results").iterdir()}
    assert all(now[name] == when for name, when in kept.items() if name in now)


def test_a_call_whose_files_changed_since_graded_is_kept_as_graded(
    fleet: Fleet, tmp_path: Path
) -> None:
    grade(fleet, tmp_path / "r")
    (fleet.root / "files" / "trace.jsonl").write_text(
        (fleet.root / "files" / "trace.jsonl").read_text() + "\n"
    )
    code, out, _ = grade(fleet, tmp_path / "r")
    assert code == 1 and "0 were already done, 8 changed since graded and kept as graded" in out
    calls = table_rows(tmp_path / "r", "calls")
    assert sorted(c["call_id"] for c in calls) == [f"c{i:03d}" for i in range(8)]


TEST = """\
kind: hotato.conversation-test
version: 1
id: refund
agent: support-v3
assertions:
  deterministic:
    - id: refund-recorded
      kind: state
      resource: orders
      filters: {order_id: "${call.order_id}"}
      expect: {refund_status: refunded}
      dimension: outcome
  rubric:
    - id: kind
      kind: judge_rubric
      criterion: "Was the agent kind?"
success:
  required: [all_deterministic_assertions_pass]
"""


def test_a_conversation_test_s_deterministic_assertions(fleet: Fleet, tmp_path: Path) -> None:
    (fleet.root / "test.yaml").write_text(TEST)
    ran = hotato(
        "fleet",
        "grade",
        str(fleet.manifest),
        "--test",
        str(fleet.root / "test.yaml"),
        "--state",
        str(fleet.state),
        "--out",
        str(tmp_path / "r"),
        "--workers",
        "1",
    )
    assert ran.code == 1 and "8 graded" in ran.out
    rows = results(tmp_path / "r")
    assert {r["assertion_id"] for r in rows} == {"refund-recorded"}  # the judge lane is not run
    assert [r["status"] for r in rows] == ["FAIL", "PASS"] * 4


def test_progress_lines_when_not_a_terminal(fleet: Fleet, tmp_path: Path) -> None:
    code, out, err = grade(fleet, tmp_path / "r")
    assert code == 1
    run_id = out.split()[1].rstrip(":")
    last = err.splitlines()[-1]
    assert last.startswith(f"fleet {run_id}: 8/8 calls (0 already done), ")
    assert last.endswith("calls/s; pass 13 fail 8 inconclusive 3 refused 0")
    _, _, quiet = grade(fleet, tmp_path / "q", "--quiet")
    assert quiet == ""


def test_a_call_folder_holding_only_a_vendor_export(tmp_path: Path) -> None:
    """The export is the trace, and the transcript it carries is the call's transcript."""
    export = (
        Path(__file__).resolve().parents[1] / "ingest" / "data" / "vapi_end_of_call_report.json"
    )
    (tmp_path / "calls" / "v1").mkdir(parents=True)
    (tmp_path / "calls" / "v1" / "trace.json").write_bytes(export.read_bytes())
    (tmp_path / "a.yaml").write_text(
        "version: 1\nassertions:\n"
        "  - {id: said-refund, kind: phrase, regex: refund, role: caller}\n"
        "  - {id: looked-up, kind: tool_call, name: lookup_order}\n"
    )
    ran = hotato(
        "fleet",
        "grade",
        str(tmp_path / "calls"),
        "--assertions",
        str(tmp_path / "a.yaml"),
        "--out",
        str(tmp_path / "r"),
        "--workers",
        "1",
    )
    assert ran.code == 0, ran.err
    assert {r["status"] for r in results(tmp_path / "r")} == {"PASS"}
