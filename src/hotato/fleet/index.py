"""The resume index of a results folder, on disk: one SQLite row per call row a calls part
holds (call id, input digest, graded or refused, the part, its counts), so a run over a
million calls looks calls up by id instead of holding them all in memory.

The parts are the truth and the index is derived: it is rebuilt from them each time a run
opens the folder, and removed when the run lets the folder go."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pyarrow as pa

INDEX = "index.sqlite"
CHUNK = 500  # ids per query (SQLite's parameter limit is far above)
ROWS = 2_000  # rows of a part turned into Python values at a time
COLUMNS = ("call_id", "input_digest", "status", "exit_code", "pass", "fail", "inconclusive")


class CallIndex:
    def __init__(self, path: Path) -> None:
        self.path = path
        for extra in ("", "-journal", "-wal", "-shm"):
            Path(str(path) + extra).unlink(missing_ok=True)
        self._db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        # derived data, rebuilt at every open: no journal, no fsync
        self._db.execute("PRAGMA journal_mode = OFF")
        self._db.execute("PRAGMA synchronous = OFF")
        self._db.execute(
            "CREATE TABLE calls (call_id TEXT NOT NULL, digest TEXT, refused INTEGER NOT NULL, "
            "part TEXT NOT NULL, exit_code INTEGER, pass INTEGER, fail INTEGER, "
            "inconclusive INTEGER)"
        )
        self._db.execute("CREATE INDEX calls_id ON calls (call_id)")

    def add(self, rows: pa.Table, part: str) -> None:
        """The rows of one calls part, a slice at a time."""
        self._db.execute("BEGIN")
        for batch in rows.select(list(COLUMNS)).to_batches(max_chunksize=ROWS):
            columns = [batch.column(c).to_pylist() for c in COLUMNS]
            self._db.executemany(
                "INSERT INTO calls VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    (c, d, 1 if s == "refused" else 0, part, e, ps, f, i)
                    for c, d, s, e, ps, f, i in zip(*columns, strict=True)
                ),
            )
        self._db.execute("COMMIT")

    def _chunks(self, ids: list[str]) -> Iterator[tuple[str, list[str]]]:
        for start in range(0, len(ids), CHUNK):
            chunk = ids[start : start + CHUNK]
            yield ",".join("?" * len(chunk)), chunk

    def graded(self, call_ids: Iterable[str]) -> dict[str, str]:
        """call_id -> recorded input digest, for those of `call_ids` graded."""
        out: dict[str, str] = {}
        for marks, chunk in self._chunks(list(call_ids)):
            out.update(
                self._db.execute(
                    f"SELECT call_id, digest FROM calls WHERE refused = 0 AND call_id IN ({marks})",
                    chunk,
                ).fetchall()
            )
        return out

    def refused(self, call_ids: Iterable[str]) -> dict[str, list[str]]:
        """call_id -> the parts holding a refused row of it, for those of `call_ids`."""
        out: dict[str, list[str]] = {}
        for marks, chunk in self._chunks(list(call_ids)):
            for call_id, part in self._db.execute(
                f"SELECT call_id, part FROM calls WHERE refused = 1 AND call_id IN ({marks})",
                chunk,
            ):
                out.setdefault(call_id, []).append(part)
        return out

    def refused_and_graded(self) -> dict[str, list[str]]:
        """Refused rows of calls graded since (a run stopped before it dropped them)."""
        out: dict[str, list[str]] = {}
        for call_id, part in self._db.execute(
            "SELECT call_id, part FROM calls WHERE refused = 1 AND call_id IN "
            "(SELECT call_id FROM calls WHERE refused = 0)"
        ):
            out.setdefault(call_id, []).append(part)
        return out

    def forget_refused(self, call_ids: Iterable[str]) -> None:
        for marks, chunk in self._chunks(list(call_ids)):
            self._db.execute(f"DELETE FROM calls WHERE refused = 1 AND call_id IN ({marks})", chunk)

    def totals(self) -> tuple[int, int, int, int, int, int]:
        """Calls, graded, failed calls, pass, fail, inconclusive: one row a call, a graded
        row before a refused one."""
        row = self._db.execute(
            """SELECT count(*), coalesce(sum(1 - r), 0),
                      coalesce(sum(CASE WHEN r = 0 AND exit_code <> 0 THEN 1 ELSE 0 END), 0),
                      coalesce(sum(CASE WHEN r = 0 THEN pass END), 0),
                      coalesce(sum(CASE WHEN r = 0 THEN fail END), 0),
                      coalesce(sum(CASE WHEN r = 0 THEN inconclusive END), 0)
               FROM (SELECT call_id, min(refused) AS r, exit_code, pass, fail, inconclusive
                     FROM calls GROUP BY call_id)"""
        ).fetchone()
        return tuple(int(v) for v in row)  # type: ignore[return-value]

    def close(self) -> None:
        self._db.close()
        for extra in ("", "-journal", "-wal", "-shm"):
            Path(str(self.path) + extra).unlink(missing_ok=True)


class Graded(Mapping[str, str]):
    """The calls graded, call_id -> recorded input digest, read from the index on demand."""

    def __init__(self, index: CallIndex) -> None:
        self._index = index

    def lookup(self, call_ids: Iterable[str]) -> dict[str, str]:
        return self._index.graded(call_ids)

    def __getitem__(self, call_id: str) -> str:
        found = self._index.graded([call_id])
        if call_id not in found:
            raise KeyError(call_id)
        return found[call_id]

    def __iter__(self) -> Iterator[str]:
        rows: Any = self._index._db.execute(
            "SELECT DISTINCT call_id FROM calls WHERE refused = 0 ORDER BY call_id"
        )
        return (row[0] for row in rows)

    def __len__(self) -> int:
        row = self._index._db.execute(
            "SELECT count(DISTINCT call_id) FROM calls WHERE refused = 0"
        ).fetchone()
        return int(row[0])
