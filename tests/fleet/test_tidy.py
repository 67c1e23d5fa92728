"""Tidy results: compacted at the end of a run into agent=/date= partitions, crash-safe; typed
variables; a run id per agent; metadata in every file; folders written by hotato 2.0, cut short
mid-compaction or still being written are read the same way."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq
import pytest
from tests.conftest import hotato
from tests.fleet.conftest import Fleet, make_fleet, table_rows

from hotato import __version__
from hotato.fleet import compact
from hotato.fleet.diff import diff_runs
from hotato.fleet.grade import FleetRequest, grade_fleet, prepare
from hotato.fleet.report import report_data
from hotato.fleet.store import RunMeta, run_id_for
from hotato.fleet.summary import summarize
from hotato.fleet.worker import Batch, grade_batch


def run(fleet: Fleet, out: Path, batch_size: int = 3) -> None:
    grade_fleet(
        FleetRequest(
            calls=str(fleet.manifest),
            out=str(out),
            assertions=str(fleet.assertions),
            state=str(fleet.state),
            workers=1,
            batch_size=batch_size,
        )
    )


def counted(out: Path) -> tuple[dict[str, int], set[int]]:
    doc = summarize(str(out)).as_dict()
    return doc["calls"], {r["n"] for r in doc["rates"]}


def leftovers(out: Path) -> list[str]:
    """What a finished run must not leave: per-batch parts, a journal, a staging folder."""
    return sorted(
        p.relative_to(out).as_posix()
        for p in out.rglob("*")
        if (p.name.startswith("part-") and p.parent.name in ("results", "calls"))
        or p.name in (compact.JOURNAL, compact.STAGING, "index.sqlite")
        or p.name.endswith(".tmp")
    )


def test_a_run_ends_compacted_into_agent_and_day_partitions(fleet: Fleet, tmp_path: Path) -> None:
    out = tmp_path / "r"
    run(fleet, out, batch_size=1)  # eight batches, eight parts per table before compaction
    assert leftovers(out) == []
    for table in ("results", "calls"):
        files = sorted((out / table).rglob("*.parquet"))
        folders = [f.parent.relative_to(out / table).as_posix() for f in files]
        assert folders == [f"agent={a}/date=2026-11-0{d}" for a in ("v1", "v2") for d in (1, 2)]
    # a reader asking for one agent opens that agent's files only
    keys = ds.partitioning(
        pa.schema([("agent", pa.string()), ("date", pa.string())]), flavor="hive"
    )
    dataset = ds.dataset(out / "results", partitioning=keys)
    chosen = list(dataset.get_fragments(filter=ds.field("agent") == "v1"))
    assert len(chosen) == 2 and all("agent=v1/" in f.path for f in chosen)
    assert dataset.to_table(filter=ds.field("agent") == "v1").num_rows == 4 * 3
    assert counted(out) == ({"calls": 8, "graded": 8, "refused": 0}, {8})


def test_variables_keep_their_types(tmp_path: Path) -> None:
    fleet = make_fleet(tmp_path / "fleet", calls=4)
    rows = fleet.rows()
    for i, row in enumerate(rows):
        row.update({"attempts": i, "vip": i % 2 == 0, "score": 0.5 + i, "tags": ["a", "b"]})
    rows[3]["attempts"] = None  # empty in one row: null there, still an integer column
    fleet.manifest.write_text("".join(json.dumps(r) + "\n" for r in rows))
    run(fleet, tmp_path / "r")
    calls = {c["call_id"]: c["variables"] for c in table_rows(tmp_path / "r", "calls")}
    assert calls["c002"] == {
        "attempts": 2,
        "order_id": "A-3090",
        "score": 2.5,
        "tags": '["a","b"]',
        "vip": True,
    }
    assert calls["c003"]["attempts"] is None
    meta = json.loads((tmp_path / "r" / "fleet.json").read_text())
    assert meta["variables"] == {
        "attempts": "int64",
        "order_id": "string",
        "score": "float64",
        "tags": "string",
        "vip": "bool",
    }


def test_two_agents_graded_on_the_same_call_ids_are_two_runs(tmp_path: Path) -> None:
    fleet = make_fleet(tmp_path / "fleet", calls=4)
    rows = fleet.rows()
    for agent in ("v7", "v8"):
        fleet.manifest.write_text("".join(json.dumps({**r, "agent": agent}) + "\n" for r in rows))
        run(fleet, tmp_path / agent)
    ids = {
        agent: {r["run_id"] for r in table_rows(tmp_path / agent, "results")}
        for agent in ("v7", "v8")
    }
    assert len(ids["v7"]) == len(ids["v8"]) == 1 and ids["v7"] != ids["v8"]


def test_every_file_records_the_version_the_assertions_and_the_time(
    fleet: Fleet, tmp_path: Path
) -> None:
    out = tmp_path / "r"
    run(fleet, out)
    meta = json.loads((out / "fleet.json").read_text())
    for part in sorted(out.rglob("*.parquet")):
        kv = {k.decode(): v.decode() for k, v in pq.read_metadata(part).metadata.items()}
        assert kv["hotato.version"] == __version__
        assert kv["hotato.assertions_digest"] == meta["assertions_digest"]
        assert kv["hotato.run_id"] == meta["run_id"]
        assert kv["hotato.written_at"].startswith("20") and "T" in kv["hotato.written_at"]


class Killed(Exception):
    """The process dying at this instant."""


def _crash_after(monkeypatch: pytest.MonkeyPatch, steps: int) -> None:
    """Compaction dies after `steps` of its commit's file operations (0: before its journal)."""
    done = [0]

    def step(real):  # type: ignore[no-untyped-def]
        def wrapped(*args):  # type: ignore[no-untyped-def]
            if done[0] >= steps:
                raise Killed
            done[0] += 1
            return real(*args)

        return wrapped

    if steps == 0:
        monkeypatch.setattr(compact, "_commit", step(compact._commit))
    monkeypatch.setattr(compact, "_move", step(compact._move))
    monkeypatch.setattr(compact, "_remove", step(compact._remove))


# a compaction of this fleet (batch size 3: three parts per table, four partitions per table)
# commits in a journal, 4 calls moves, 4 results moves, 3 results removals, 3 calls removals;
# killed before the journal, amid the calls moves, amid the results moves, after a results
# removal, and with one calls part left
@pytest.mark.parametrize("steps", [0, 2, 6, 9, 13])
def test_a_compaction_killed_at_any_step_loses_nothing_and_counts_each_call_once(
    fleet: Fleet, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, steps: int
) -> None:
    out = tmp_path / "r"
    with monkeypatch.context() as patched:
        _crash_after(patched, steps)
        with pytest.raises(Killed):
            run(fleet, out)
    # read as it was left: each call once
    assert counted(out) == ({"calls": 8, "graded": 8, "refused": 0}, {8})
    assert report_data(str(out)).summary.calls.calls == 8
    # the same command again: nothing graded twice, the compaction finished
    ran = hotato(
        "fleet", "grade", str(fleet.manifest), "--assertions", str(fleet.assertions),
        "--state", str(fleet.state), "--out", str(out), "--workers", "1", "--batch-size", "3",
    )  # fmt: skip
    assert ran.code == 1 and "8 graded, 0 refused; 8 were already done" in ran.out, ran.err
    assert leftovers(out) == []
    assert len(table_rows(out, "results")) == 8 * 3
    assert counted(out) == ({"calls": 8, "graded": 8, "refused": 0}, {8})


def write_as_hotato_2_0(fleet: Fleet, out: Path, batch_size: int = 3) -> None:
    """A results folder laid out as hotato 2.0 wrote it: flat part files per batch, variables
    as a text map, the run id of assertions and call ids alone, no file metadata."""
    from dataclasses import replace

    req = FleetRequest(
        calls=str(fleet.manifest),
        out=str(out),
        assertions=str(fleet.assertions),
        state=str(fleet.state),
    )
    job, manifest = prepare(req)
    calls = manifest.calls
    job = replace(job, run_id=run_id_for(job.digest, [c.call_id for c in calls]), variable_types=())
    for table in ("results", "calls"):
        (out / table).mkdir(parents=True)
    meta = RunMeta(
        run_id=job.run_id,
        assertions=str(fleet.assertions),
        assertions_digest=job.digest,
        calls=str(fleet.manifest),
        total=len(calls),
    )
    doc = {k: v for k, v in msgspec.to_builtins(meta).items() if k != "variables"}
    (out / "fleet.json").write_text(json.dumps(doc) + "\n")
    for start in range(0, len(calls), batch_size):
        done = grade_batch(Batch(job, tuple(calls[start : start + batch_size])))
        assert done.calls.schema.field("variables").type == pa.map_(pa.string(), pa.string())
        name = f"part-{start:04d}.parquet"
        pq.write_table(done.results.replace_schema_metadata(), out / "results" / name)
        pq.write_table(done.calls.replace_schema_metadata(), out / "calls" / name)


def test_a_folder_hotato_2_0_wrote_is_read_and_resumed(tmp_path: Path) -> None:
    fleet = make_fleet(tmp_path / "fleet")
    old, new = tmp_path / "old", tmp_path / "new"
    write_as_hotato_2_0(fleet, old)
    run(fleet, new)
    # summary, diff and the page read it as they read a folder written today
    assert counted(old) == counted(new) == ({"calls": 8, "graded": 8, "refused": 0}, {8})
    assert (
        summarize(str(old), "agent").as_dict()["rates"]
        == summarize(str(new), "agent").as_dict()["rates"]
    )
    compared = diff_runs(str(old), str(new))
    assert compared.changed_calls == 0
    assert {c.verdict for c in compared.assertions} == {"unchanged"}
    assert report_data(str(old)).cells == report_data(str(new)).cells
    # resumed by today's hotato: its run, nothing graded again, then compacted
    run_id = json.loads((old / "fleet.json").read_text())["run_id"]
    ran = hotato(
        "fleet", "grade", str(fleet.manifest), "--assertions", str(fleet.assertions),
        "--state", str(fleet.state), "--out", str(old), "--workers", "1",
    )  # fmt: skip
    assert ran.code == 1 and f"fleet {run_id}: 8/8 calls" in ran.out, ran.err
    assert "8 were already done" in ran.out
    assert leftovers(old) == []
    assert counted(old) == ({"calls": 8, "graded": 8, "refused": 0}, {8})
    # hotato 2.0's text map, kept in the folder it started
    variables = [dict(r["variables"]) for r in table_rows(old, "calls")]  # type: ignore[call-overload]
    assert {v["order_id"] for v in variables} == {"A-3090", "A-3091"}


def test_a_live_folder_mixing_compacted_and_new_parts_is_read_once(
    fleet: Fleet, tmp_path: Path
) -> None:
    """A folder another writer (a live grader) adds batches to after a compaction."""
    from hotato.fleet.store import ResultStore

    out = tmp_path / "r"
    (fleet.root / "files" / "trace.jsonl").rename(fleet.root / "files" / "gone.jsonl")
    run(fleet, out)  # every call refused: no trace
    assert counted(out)[0] == {"calls": 8, "graded": 0, "refused": 8}
    (fleet.root / "files" / "gone.jsonl").rename(fleet.root / "files" / "trace.jsonl")
    # the refused calls graded again, batch by batch, without a compaction at the end
    meta = msgspec.json.decode((out / "fleet.json").read_bytes(), type=RunMeta)
    store = ResultStore(out)
    done = store.open(meta)
    assert len(done) == 0
    job, manifest = prepare(
        FleetRequest(
            calls=str(fleet.manifest),
            out=str(out),
            assertions=str(fleet.assertions),
            state=str(fleet.state),
        )
    )
    from dataclasses import replace

    typed = replace(job, run_id=meta.run_id, variable_types=tuple((meta.variables or {}).items()))
    # the second writer builds its tables with the default schema (a text map of variables):
    # the store writes them with the folder's own types
    plain = replace(typed, variable_types=())
    calls = manifest.calls
    try:
        for start, job in ((0, typed), (3, plain)):
            batch = grade_batch(Batch(job, tuple(calls[start : start + 3])))
            store.write(batch.results, batch.calls)
        assert store.totals().graded == 6 and store.totals().refused == 2
    finally:
        store.close()
    flat = sorted((out / "calls").glob("part-*.parquet"))  # not compacted
    assert len(flat) == 2
    for part in flat:
        assert pq.read_schema(part).field("variables").type == pa.struct(
            [("order_id", pa.string())]
        )
    assert counted(out)[0] == {"calls": 8, "graded": 6, "refused": 2}
    assert sorted(c["call_id"] for c in table_rows(out, "calls")) == [f"c{i:03d}" for i in range(8)]


def test_a_corrupt_part_stops_the_compaction_as_a_refusal_leaving_the_parts(
    fleet: Fleet, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "r"
    with monkeypatch.context() as patched:
        _crash_after(patched, 0)
        with pytest.raises(Killed):
            run(fleet, out)
    part = sorted((out / "results").glob("part-*.parquet"))[0]
    part.write_bytes(b"PAR1 not really parquet PAR1")
    ran = hotato(
        "fleet", "grade", str(fleet.manifest), "--assertions", str(fleet.assertions),
        "--state", str(fleet.state), "--out", str(out), "--workers", "1",
    )  # fmt: skip
    assert ran.code == 2, ran.out + ran.err
    assert "the results could not be compacted: a part is corrupt or not hotato's" in ran.err
    assert part.read_bytes() == b"PAR1 not really parquet PAR1"
    assert not (out / compact.STAGING).exists() and not (out / compact.JOURNAL).exists()
    assert len(list((out / "calls").glob("part-*.parquet"))) == 3
