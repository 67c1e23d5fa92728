"""Compaction: at the end of a run, a table's per-batch part files are rewritten as a few
large files partitioned by agent and day (see hotato.fleet.layout), with hotato's version,
the assertions' digest and the time in each file's key-value metadata.

It is crash-safe in three steps:

1. DuckDB writes the new files into `.compacting/` (which no reader looks at), each synced.
2. `compaction.json` is written (atomically): the moves into place and the parts they
   replace. Before it exists, a crash leaves the parts as they were; `.compacting/` is removed
   by the next run.
3. The moves and removals run, calls before results in, results before calls out, so a
   results row is held twice only while its call is too; then the journal goes. A crash here
   is finished by the next run (each step can be redone), and meanwhile the readers' rule for
   a call held twice (one row a call, see hotato.fleet.summary) counts every call once.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path
from typing import Any

import msgspec

from hotato.fleet.layout import CALLS, RESULTS, TABLES, flat_parts, relative
from hotato.model.errors import InputError

JOURNAL = "compaction.json"
STAGING = ".compacting"
FILE_BYTES = "256MB"  # a compacted file's size before DuckDB starts another
MEMORY = "64MB"  # DuckDB's limit while compacting (it spills to disk beyond)
FLUSH_ROWS = 5_000  # rows a partition buffers before they are written out


class Journal(msgspec.Struct, frozen=True):
    moves: list[tuple[str, str]]  # (from, to), relative to the results folder
    remove: list[str]


def compact(root: Path, metadata: dict[str, str]) -> int:
    """Compact the flat parts of both tables; how many files were written."""
    parts = {table: flat_parts(root, table) for table in TABLES}
    if not any(parts.values()):
        return 0
    staging = root / STAGING
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir()
    names = sorted(relative(root, t, p) for t, ps in parts.items() for p in ps)
    token = hashlib.sha256("\0".join(names).encode()).hexdigest()[:12]
    import duckdb

    con = _duckdb()
    try:
        for table in (CALLS, RESULTS):
            if parts[table]:
                _copy(con, parts[table], staging / table, token, metadata)
    except duckdb.Error as exc:  # a part written by someone else, or damaged on disk
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        shutil.rmtree(staging, ignore_errors=True)
        raise InputError.one(
            f"the results could not be compacted: a part is corrupt or not hotato's ({first}); "
            "the part files are as they were",
            file=str(root),
        ) from None
    finally:
        con.close()
    moves = []
    for table in (CALLS, RESULTS):  # calls in first (see the module's docstring)
        for new in sorted((staging / table).glob("*/*/*.parquet")):
            _fsync(new)
            inside = new.relative_to(staging / table).as_posix()
            moves.append((new.relative_to(root).as_posix(), f"{table}/{inside}"))
    remove = [p.relative_to(root).as_posix() for t in (RESULTS, CALLS) for p in parts[t]]
    _commit(root, Journal(moves, remove))
    finish(root)
    return len(moves)


def _commit(root: Path, journal: Journal) -> None:
    tmp = root / (JOURNAL + ".tmp")
    tmp.write_bytes(msgspec.json.encode(journal))
    _fsync(tmp)
    os.replace(tmp, root / JOURNAL)


def finish(root: Path) -> None:
    """Complete a compaction the journal records (redoing what is done already is harmless),
    or discard one that never reached its journal."""
    journal = root / JOURNAL
    if journal.is_file():
        plan = msgspec.json.decode(journal.read_bytes(), type=Journal)
        for src, dst in plan.moves:
            if (root / src).is_file():
                _move(root / src, root / dst)
        for gone in plan.remove:
            _remove(root / gone)
        _fsync_dir(root)
        journal.unlink()
    shutil.rmtree(root / STAGING, ignore_errors=True)


def _move(source: Path, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    os.replace(source, target)


def _remove(path: Path) -> None:
    path.unlink(missing_ok=True)


def _duckdb() -> Any:
    import duckdb

    con = duckdb.connect(":memory:")
    con.execute("SET TimeZone = 'UTC'")
    con.execute(f"SET memory_limit = '{MEMORY}'")
    con.execute("SET preserve_insertion_order = false")
    # the driver's memory must not follow the fleet's size: each partition's rows go to disk
    # every FLUSH_ROWS, not at the end (DuckDB's default is half a million rows a partition)
    con.execute(f"SET partitioned_write_flush_threshold = {FLUSH_ROWS}")
    con.execute("SET threads = 1")
    return con


def _copy(con: Any, parts: list[Path], into: Path, token: str, metadata: dict[str, str]) -> None:
    files = ", ".join(_literal(str(p)) for p in parts)
    kv = ", ".join(f"{_literal(k)}: {_literal(v)}" for k, v in sorted(metadata.items()))
    con.execute(
        f"""COPY (SELECT *, strftime(started_at AT TIME ZONE 'UTC', '%Y-%m-%d') AS date
                  FROM read_parquet([{files}]))
            TO {_literal(str(into))}
            (FORMAT parquet, PARTITION_BY (agent, date), COMPRESSION zstd,
             FILENAME_PATTERN 'part-{token}-{{i}}', FILE_SIZE_BYTES '{FILE_BYTES}',
             KV_METADATA {{{kv}}})"""
    )


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
