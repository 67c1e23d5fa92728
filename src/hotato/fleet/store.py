"""The results folder: a Parquet dataset written in atomic part files.

    RESULTS/fleet.json           the run: id, assertions digest, where the calls came from
    RESULTS/fleet.lock           held by the run writing the folder (who, since when)
    RESULTS/results/part-*.parquet   one row per call x assertion
    RESULTS/calls/part-*.parquet     one row per call (graded or refused)

A batch's results part is written first and its calls part last, each through a temporary
file and a rename. A calls part is the batch's commit: on resume, a results part without one
is removed and its calls graded again, so a run killed at any instant ends, once resumed, with
exactly one row per call x assertion.

One run writes a folder at a time: a second run on the same folder is refused, naming the
run holding it. The lock is the operating system's (flock), so it ends with its process,
`kill -9` included.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

import msgspec

from hotato._io import make_folder
from hotato.model.errors import InputError

if TYPE_CHECKING:
    import pyarrow as pa

SCHEMA_NAME = "hotato.fleet.v1"
RESULTS = "results"
CALLS = "calls"
LOCK = "fleet.lock"


def result_schema() -> pa.Schema:
    import pyarrow as pa

    return pa.schema(
        [
            ("run_id", pa.string()),
            ("call_id", pa.string()),
            ("input_digest", pa.string()),
            ("assertion_id", pa.string()),
            ("kind", pa.string()),
            ("dimension", pa.string()),
            ("deterministic", pa.bool_()),
            ("status", pa.string()),
            ("reason", pa.string()),
            ("skipped", pa.bool_()),
            ("observed", pa.string()),  # JSON text
            ("evidence", pa.list_(pa.string())),
            ("agent", pa.string()),
            ("started_at", pa.timestamp("us", tz="UTC")),
            ("variables", pa.map_(pa.string(), pa.string())),
        ]
    )


def call_schema() -> pa.Schema:
    import pyarrow as pa

    return pa.schema(
        [
            ("run_id", pa.string()),
            ("call_id", pa.string()),
            ("input_digest", pa.string()),
            ("status", pa.string()),  # graded | refused
            ("message", pa.string()),
            ("exit_code", pa.int8()),
            ("pass", pa.int32()),
            ("fail", pa.int32()),
            ("inconclusive", pa.int32()),
            ("agent", pa.string()),
            ("started_at", pa.timestamp("us", tz="UTC")),
            ("variables", pa.map_(pa.string(), pa.string())),
        ]
    )


class RunMeta(msgspec.Struct, frozen=True, kw_only=True):
    schema: str = SCHEMA_NAME
    run_id: str
    assertions: str  # the file graded against
    assertions_digest: str
    calls: str  # the manifest or folder
    total: int


def run_id_for(assertions_digest: str, call_ids: Iterable[str]) -> str:
    """Stable across re-runs of the same assertions over the same calls (law 5)."""
    digest = hashlib.sha256(assertions_digest.encode())
    for call_id in call_ids:
        digest.update(b"\0" + call_id.encode())
    return digest.hexdigest()[:16]


@dataclass
class Totals:
    calls: int = 0
    graded: int = 0
    refused: int = 0
    failed_calls: int = 0  # graded calls whose exit code is not 0
    passed: int = 0
    failed: int = 0
    inconclusive: int = 0


class ResultStore:
    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root)
        self._held: BinaryIO | None = None  # the lock file, while this run holds it
        self._refused: dict[str, list[str]] = {}  # call_id -> parts with its refused row
        if "://" in str(root):
            raise InputError.one("--out must be a local folder", file=str(root))

    @property
    def meta_path(self) -> Path:
        return self.root / "fleet.json"

    def open(self, meta: RunMeta) -> dict[str, str]:
        """Prepare the folder for `meta`'s run; the call_id -> input digest of calls already
        graded (a call refused before is graded again). Refuses a folder holding another run,
        or one another run is writing."""
        if self.root.exists() and not self.root.is_dir():
            raise InputError.one("--out is a file, expected a folder", file=str(self.root))
        self._refuse_links()
        if self.meta_path.is_file():
            old = self._meta()
            if old.run_id != meta.run_id:
                raise InputError.one(
                    f"the folder holds run {old.run_id} ({old.assertions} over {old.calls}); "
                    f"this is run {meta.run_id}: choose another --out",
                    file=str(self.root),
                )
        elif self.root.is_dir() and any(p.name != LOCK for p in self.root.iterdir()):
            raise InputError.one(
                "--out is a folder holding something other than fleet results",
                file=str(self.root),
            )
        for sub in (RESULTS, CALLS):
            make_folder(self.root / sub)
        self._lock(meta)
        if not self.meta_path.is_file():
            _atomic(self.meta_path, msgspec.json.encode(meta) + b"\n")
        self._sweep()
        graded, refused = self._index()
        # graded again by a run stopped before it dropped the refused row
        self._drop({c: refused.pop(c) for c in set(refused) & set(graded)}, set())
        self._refused = refused
        return graded

    def _lock(self, meta: RunMeta) -> None:
        """Hold the folder's lock for this run, or refuse naming the run that holds it."""
        import fcntl
        import socket
        from datetime import UTC, datetime

        path = self.root / LOCK
        handle = path.open("a+b")
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            handle.seek(0)
            holder = handle.read(500).decode("utf-8", "replace").strip() or "another run"
            handle.close()
            raise InputError.one(
                f"another run is writing this folder ({holder}); wait for it to finish, "
                "or choose another --out",
                file=str(self.root),
            ) from None
        handle.seek(0)
        handle.truncate()
        since = datetime.now(UTC).isoformat(timespec="seconds")
        handle.write(
            f"run {meta.run_id}, process {os.getpid()} on {socket.gethostname()}, "
            f"since {since}\n".encode()
        )
        handle.flush()
        self._held = handle

    def close(self) -> None:
        """Let the folder go: another run may write it now."""
        if self._held is not None:
            self._held.close()  # closing the file releases its flock
            self._held = None

    def _refuse_links(self) -> None:
        """The folder and everything hotato writes or deletes in it are what they say: a
        symbolic link anywhere there (`results` pointing elsewhere) would have the sweep delete
        and the run write in the link's target."""
        inside = [
            self.meta_path,
            self.root / LOCK,
            *(self.root / sub for sub in (RESULTS, CALLS)),
        ]
        for sub in (RESULTS, CALLS):
            if (self.root / sub).is_dir() and not (self.root / sub).is_symlink():
                inside += list((self.root / sub).iterdir())
        for path in (self.root, *inside):
            if path.is_symlink():
                raise InputError.one(
                    "a symbolic link inside --out; refusing to write or delete through it",
                    file=str(path),
                )

    def _meta(self) -> RunMeta:
        try:
            return msgspec.json.decode(self.meta_path.read_bytes(), type=RunMeta)
        except (msgspec.DecodeError, OSError) as exc:
            raise InputError.one(
                f"fleet.json is not the record of a fleet run ({exc}); choose another --out",
                file=str(self.meta_path),
            ) from None

    def _sweep(self) -> None:
        """Remove temporary files and results parts whose batch never committed."""
        committed = {p.name for p in (self.root / CALLS).glob("part-*.parquet")}
        for sub in (RESULTS, CALLS):
            for p in (self.root / sub).iterdir():
                if p.name.endswith(".tmp"):
                    p.unlink()
        for p in (self.root / RESULTS).glob("part-*.parquet"):
            if p.name not in committed:
                p.unlink()

    def _index(self) -> tuple[dict[str, str], dict[str, list[str]]]:
        """The call_id -> input digest of calls graded, and the call_id -> the parts holding
        a refused row of calls refused (graded again by a resume)."""
        import pyarrow.parquet as pq

        graded: dict[str, str] = {}
        refused: dict[str, list[str]] = {}
        for part in sorted((self.root / CALLS).glob("part-*.parquet")):
            table = read_part(pq, part, ["call_id", "input_digest", "status"])
            for call_id, digest, status in zip(
                *(table.column(c).to_pylist() for c in table.column_names), strict=True
            ):
                if status == "refused":
                    refused.setdefault(call_id, []).append(part.name)
                else:
                    graded[call_id] = digest
        return graded, refused

    def _drop(self, stale: dict[str, list[str]], keep: set[str]) -> None:
        """Remove refused calls' rows (call_id -> the calls parts holding one; a newer row
        replaces each) from every part but those named in `keep`, each part rewritten once. A
        part left empty goes, with its (empty) results part."""
        import pyarrow as pa
        import pyarrow.compute as pc
        import pyarrow.parquet as pq

        by_part: dict[str, set[str]] = {}
        for call_id, names in stale.items():
            for name in names:
                if name not in keep:
                    by_part.setdefault(name, set()).add(call_id)
        for name, call_ids in sorted(by_part.items()):
            target = self.root / CALLS / name
            if not target.is_file():
                continue
            table = read_part(pq, target, call_schema().names)
            gone = pc.is_in(table.column("call_id"), value_set=pa.array(sorted(call_ids)))
            kept = table.filter(pc.invert(gone))
            if kept.num_rows == table.num_rows:
                continue
            if kept.num_rows == 0:
                (self.root / RESULTS / name).unlink(missing_ok=True)
                target.unlink()
                continue
            tmp = target.with_name(name + ".tmp")
            pq.write_table(kept, tmp, compression="zstd")
            _fsync(tmp)
            os.replace(tmp, target)

    def totals(self) -> Totals:
        """What the whole folder holds, this run's batches and earlier ones alike."""
        import pyarrow.parquet as pq

        t = Totals()
        rows: dict[str, dict[str, Any]] = {}  # call_id -> its row, a graded one first
        for part in sorted((self.root / CALLS).glob("part-*.parquet")):
            for row in read_part(
                pq, part, ["call_id", "status", "exit_code", "pass", "fail", "inconclusive"]
            ).to_pylist():
                held = rows.get(row["call_id"])
                if held is None or (held["status"] == "refused" and row["status"] != "refused"):
                    rows[row["call_id"]] = row
        for row in rows.values():
            t.calls += 1
            if row["status"] == "refused":
                t.refused += 1
                continue
            t.graded += 1
            t.failed_calls += 1 if row["exit_code"] else 0
            t.passed += row["pass"]
            t.failed += row["fail"]
            t.inconclusive += row["inconclusive"]
        return t

    def write(self, results: pa.Table, calls: pa.Table) -> None:
        """Commit one batch: its results, then its calls (the commit)."""
        import pyarrow.parquet as pq

        digest = hashlib.sha256()
        for key in calls.column("input_digest").to_pylist():
            digest.update(key.encode())
        name = f"part-{digest.hexdigest()[:20]}.parquet"
        for sub, table in ((RESULTS, results), (CALLS, calls)):
            target = self.root / sub / name
            tmp = target.with_name(target.name + ".tmp")
            pq.write_table(table, tmp, compression="zstd")
            _fsync(tmp)
            os.replace(tmp, target)
        # a call refused before and graded (or refused) again now: its old row goes
        again = [c for c in calls.column("call_id").to_pylist() if c in self._refused]
        self._drop({c: self._refused.pop(c) for c in again}, {name})


def read_part(pq: Any, part: Path, columns: list[str]) -> pa.Table:
    """One committed Parquet part; a corrupt one (or not hotato's) is a refusal naming it."""
    try:
        return pq.read_table(part, columns=columns)
    except (OSError, ValueError, KeyError) as exc:  # pyarrow's ArrowInvalid is a ValueError
        raise InputError.one(
            f"a results part cannot be read ({type(exc).__name__}); it is corrupt or not "
            "written by hotato: move it aside, or grade into another --out",
            file=str(part),
        ) from None


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _atomic(path: Path, data: bytes) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def table(rows: list[dict[str, Any]], schema: pa.Schema) -> pa.Table:
    import pyarrow as pa

    return pa.Table.from_pylist(rows, schema=schema)
