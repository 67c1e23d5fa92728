"""The driver's memory does not grow with the fleet: the manifest is streamed and the resume
index is on disk. Measured as the peak of Python allocations (tracemalloc) while a large
manifest is checked and read, and while a folder of many graded calls is opened."""

from __future__ import annotations

import csv
import json
import tracemalloc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from hotato.fleet.manifest import read_calls
from hotato.fleet.store import ResultStore, RunMeta, call_schema, result_schema

ROWS = 10_000
MIB = 1 << 20


@contextmanager
def peak() -> Iterator[list[int]]:
    box = [0]
    tracemalloc.start()
    try:
        yield box
    finally:
        box[0] = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()


def _rows(n: int = ROWS) -> Iterator[dict[str, object]]:
    for i in range(n):
        yield {
            "call_id": f"call-{i:07d}",
            "trace": f"calls/{i:07d}/trace.jsonl",
            "transcript": f"calls/{i:07d}/transcript.json",
            "agent": f"v{i % 3}",
            "started_at": "2026-11-01T03:00:00Z",
            "order_id": f"A-{i:06d}",
        }


def _jsonl(path: Path, n: int = ROWS) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in _rows(n)))


def _csv(path: Path, n: int = ROWS) -> None:
    with path.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(next(_rows())))
        writer.writeheader()
        writer.writerows(_rows(n))


def _parquet(path: Path, n: int = ROWS) -> None:
    pq.write_table(pa.Table.from_pylist(list(_rows(n))), path)


@pytest.mark.parametrize(
    ("suffix", "write"), [("jsonl", _jsonl), ("csv", _csv), ("parquet", _parquet)]
)
@pytest.mark.slow
def test_a_large_manifest_is_checked_and_read_in_flat_memory(
    tmp_path: Path, suffix: str, write: Callable[[Path, int], None]
) -> None:
    source, small = tmp_path / f"calls.{suffix}", tmp_path / f"small.{suffix}"
    write(source, ROWS)
    write(small, 10)
    assert len(read_calls(str(small)).calls) == 10  # what a read imports, before measuring
    seen = [0]
    with peak() as checked:
        manifest = read_calls(str(source), visit=lambda call: seen.__setitem__(0, seen[0] + 1))
    assert manifest.total == seen[0] == ROWS
    with peak() as read:
        last = None
        for n, call in enumerate(manifest.iter_calls(), 1):
            last = (n, call.call_id, call.variables)
    assert last == (ROWS, f"call-{ROWS - 1:07d}", {"order_id": f"A-{ROWS - 1:06d}"})
    # every call held at once takes about 14 MiB here (JSONL)
    assert checked[0] < 4 * MIB, checked[0] / MIB
    assert read[0] < 4 * MIB, read[0] / MIB


def test_a_repeated_call_id_is_still_found_and_named(tmp_path: Path) -> None:
    from hotato.model.errors import InputError

    rows = list(_rows(1000))
    rows.insert(700, dict(rows[5]))
    source = tmp_path / "calls.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in rows))
    with pytest.raises(InputError) as refused:
        read_calls(str(source))
    assert f"call_id 'call-0000005' repeats {source}:6" in str(refused.value)
    assert refused.value.problems[0].file == f"{source}:701"


@pytest.mark.slow
def test_the_resume_index_of_a_large_folder_is_on_disk(tmp_path: Path) -> None:
    out = tmp_path / "r"
    meta = RunMeta(run_id="r1", assertions="a.yaml", assertions_digest="d", calls="c", total=60_000)
    store = ResultStore(out)
    store.open(meta)
    empty = pa.Table.from_pylist([], schema=result_schema())
    for start in range(0, 60_000, 10_000):
        calls = [
            {
                "run_id": "r1",
                "call_id": f"call-{i:07d}",
                "input_digest": f"{i:064d}",
                "status": "graded",
                "message": "",
                "exit_code": 0,
                "pass": 1,
                "fail": 0,
                "inconclusive": 0,
            }
            for i in range(start, start + 10_000)
        ]
        store.write(empty, pa.Table.from_pylist(calls, schema=call_schema()))
    store.close()
    again = ResultStore(out)
    with peak() as opened:
        done = again.open(meta)
        held = (out / "index.sqlite").is_file()
        found = done["call-0012345"], "call-0059999" in done, "call-9" in done
    try:
        assert held and found == (f"{12345:064d}", True, False)
        assert len(done) == 60_000 and not isinstance(done, dict)
        assert again.totals().graded == 60_000
    finally:
        again.close()
    assert not (out / "index.sqlite").exists()
    # a dict of 60,000 call ids and digests alone would take about 14 MiB
    assert opened[0] < 4 * MIB, opened[0] / MIB
