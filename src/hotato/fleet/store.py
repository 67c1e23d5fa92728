"""The results folder: a Parquet dataset written in atomic part files.

    RESULTS/fleet.json           the run: id, assertions digest, where the calls came from
    RESULTS/fleet.lock           held by the run writing the folder (who, since when)
    RESULTS/index.sqlite         the resume index, while a run holds the folder
    RESULTS/results/...          one row per call x assertion
    RESULTS/calls/...            one row per call (graded or refused)

(see hotato.fleet.layout for the part files, per batch and compacted).

A batch's results part is written first and its calls part last, each through a temporary
file and a rename. A calls part is the batch's commit: on resume, a results part without one
is removed and its calls graded again, so a run killed at any instant ends, once resumed, with
exactly one row per call x assertion. At the end of a run the per-batch parts are compacted
(hotato.fleet.compact), crash-safe as well.

One run writes a folder at a time: a second run on the same folder is refused, naming the
run holding it. The lock is the operating system's (flock), so it ends with its process,
`kill -9` included.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

import msgspec

from hotato._io import make_folder
from hotato.fleet.index import INDEX, CallIndex, Graded
from hotato.fleet.layout import CALLS, RESULTS, TABLES, all_parts, flat_parts, relative
from hotato.model.errors import InputError
from hotato.model.fleet import CallRecord, ResultRecord, columns, row

if TYPE_CHECKING:
    import pyarrow as pa

SCHEMA_NAME = "hotato.fleet.v1"
LOCK = "fleet.lock"


def _variables(variables: pa.DataType | None) -> pa.DataType:
    import pyarrow as pa

    return variables if variables is not None else pa.map_(pa.string(), pa.string())


def _schema(record: type[msgspec.Struct], variables: pa.DataType | None) -> pa.Schema:
    """The Parquet schema of a record type (hotato.model.fleet): its fields, in order, with
    the column type each one names."""
    import pyarrow as pa

    types = {
        "string": pa.string(),
        "bool": pa.bool_(),
        "int8": pa.int8(),
        "int32": pa.int32(),
        "timestamp": pa.timestamp("us", tz="UTC"),
        "list<string>": pa.list_(pa.string()),
        "variables": _variables(variables),
    }
    return pa.schema([(name, types[kind]) for name, kind in columns(record)])


def result_schema(variables: pa.DataType | None = None) -> pa.Schema:
    """The results table's columns (hotato.model.fleet.ResultRecord); `variables` is the
    column's type (hotato.fleet.vartypes), by default the text map hotato 2.0 wrote."""
    return _schema(ResultRecord, variables)


def call_schema(variables: pa.DataType | None = None) -> pa.Schema:
    """The calls table's columns (hotato.model.fleet.CallRecord)."""
    return _schema(CallRecord, variables)


class RunMeta(msgspec.Struct, frozen=True, kw_only=True):
    schema: str = SCHEMA_NAME
    run_id: str
    assertions: str  # the file graded against
    assertions_digest: str
    calls: str  # the manifest or folder
    total: int
    # the variable columns' types (hotato.fleet.vartypes); None in a folder hotato 2.0 wrote
    variables: dict[str, str] | None = None


def run_id_for(assertions_digest: str, call_ids: Iterable[str]) -> str:
    """The run id hotato 2.0 gave (assertions and call ids only), still the id of a folder it
    wrote, so such a folder resumes."""
    digest = hashlib.sha256(assertions_digest.encode())
    for call_id in call_ids:
        digest.update(b"\0" + call_id.encode())
    return digest.hexdigest()[:16]


class RunIds:
    """A run's id, built call by call as the manifest streams past: stable across re-runs of
    the same assertions over the same calls (law 5), and distinct for two agents graded on
    the same call ids. `legacy` is hotato 2.0's id of the same run."""

    def __init__(self, assertions_digest: str) -> None:
        self._new = hashlib.sha256(b"hotato.fleet.run/2\0" + assertions_digest.encode())
        self._old = hashlib.sha256(assertions_digest.encode())

    def add(self, call_id: str, agent: str | None) -> None:
        key = call_id.encode()
        self._old.update(b"\0" + key)
        self._new.update(b"\0" + key + b"\1" + (b"\2" if agent is None else agent.encode()))

    @property
    def run_id(self) -> str:
        return self._new.hexdigest()[:16]

    @property
    def legacy(self) -> str:
        return self._old.hexdigest()[:16]


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
        self._index: CallIndex | None = None  # while this run holds the folder
        self._stale = False  # the index's part names predate a compaction
        self._run: RunMeta | None = None
        if "://" in str(root):
            raise InputError.one("--out must be a local folder", file=str(root))

    @property
    def meta_path(self) -> Path:
        return self.root / "fleet.json"

    def recorded(self) -> RunMeta | None:
        """The run the folder holds, if any (read without taking the lock)."""
        return self._meta() if self.meta_path.is_file() else None

    def open(self, meta: RunMeta) -> Graded:
        """Prepare the folder for `meta`'s run; the call_id -> input digest of calls already
        graded (a call refused before is graded again), read from an index on disk. Refuses a
        folder holding another run, or one another run is writing."""
        from hotato.fleet.compact import finish

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
        for sub in TABLES:
            make_folder(self.root / sub)
        self._lock(meta)
        if not self.meta_path.is_file():
            _atomic(self.meta_path, msgspec.json.encode(meta) + b"\n")
        self._run = self._meta()
        finish(self.root)  # a compaction a crash cut short
        self._sweep()
        self._index = self._build(self.root / INDEX)
        # graded again by a run stopped before it dropped the refused row
        stale = self._index.refused_and_graded()
        self._drop(stale, set())
        self._index.forget_refused(stale)
        return Graded(self._index)

    def _build(self, path: Path) -> CallIndex:
        """An index of every calls part of the folder, flat and compacted."""
        import pyarrow.parquet as pq

        from hotato.fleet.index import COLUMNS

        index = CallIndex(path)
        for part in all_parts(self.root, CALLS):
            index.add(read_part(pq, part, list(COLUMNS)), relative(self.root, CALLS, part))
        return index

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
        if self._index is not None:
            self._index.close()
            self._index = None
        if self._held is not None:
            self._held.close()  # closing the file releases its flock
            self._held = None

    def _refuse_links(self) -> None:
        """The folder and everything hotato writes or deletes in it are what they say: a
        symbolic link anywhere there (`results` pointing elsewhere) would have the sweep delete
        and the run write in the link's target."""
        from hotato.fleet.compact import JOURNAL, STAGING

        inside = [
            self.meta_path,
            self.root / LOCK,
            self.root / INDEX,
            self.root / JOURNAL,
            self.root / STAGING,
            *(self.root / sub for sub in TABLES),
        ]
        for sub in TABLES:
            if (self.root / sub).is_dir() and not (self.root / sub).is_symlink():
                inside += list((self.root / sub).rglob("*"))
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
        committed = {p.name for p in flat_parts(self.root, CALLS)}
        for sub in TABLES:
            for p in (self.root / sub).rglob("*.tmp"):
                p.unlink()
        for p in flat_parts(self.root, RESULTS):
            if p.name not in committed:
                p.unlink()

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
            whole = read_part(pq, target, None)
            gone = pc.is_in(whole.column("call_id"), value_set=pa.array(sorted(call_ids)))
            kept = whole.filter(pc.invert(gone))
            if kept.num_rows == whole.num_rows:
                continue
            if kept.num_rows == 0:
                if "/" not in name:  # a batch's part: its results part (empty) goes too
                    (self.root / RESULTS / name).unlink(missing_ok=True)
                target.unlink()
                continue
            tmp = target.with_name(target.name + ".tmp")
            pq.write_table(kept, tmp, compression="zstd")
            _fsync(tmp)
            os.replace(tmp, target)

    def totals(self) -> Totals:
        """What the whole folder holds, this run's batches and earlier ones alike."""
        if self._index is not None:
            counts = self._index.totals()
        else:
            import tempfile

            with tempfile.TemporaryDirectory(prefix="hotato-index-") as scratch:
                index = self._build(Path(scratch) / INDEX)
                try:
                    counts = index.totals()
                finally:
                    index.close()
        calls, graded, failed_calls, passed, failed, inconclusive = counts
        return Totals(calls, graded, calls - graded, failed_calls, passed, failed, inconclusive)

    def metadata(self, **extra: str) -> dict[str, str]:
        """The key-value metadata of the files this run writes: hotato's version, the run,
        the assertions' digest and when."""
        from datetime import UTC, datetime

        from hotato._version import __version__

        run = self._run or self._meta()
        return {
            "hotato.version": __version__,
            "hotato.run_id": run.run_id,
            "hotato.assertions_digest": run.assertions_digest,
            **extra,
            "hotato.written_at": datetime.now(UTC).isoformat(timespec="seconds"),
        }

    def write(self, results: pa.Table, calls: pa.Table) -> None:
        """Commit one batch: its results, then its calls (the commit)."""
        self._ready()
        kv = self.metadata()
        types = (self._run or self._meta()).variables
        self.adopt(calls, write_parts(self.root, results, calls, kv, types))

    def adopt(self, calls: pa.Table, name: str) -> None:
        """Take into the index a batch whose parts another process wrote (`write_parts`, with
        this run's `metadata()`): its calls, and the refused rows they replace."""
        index = self._ready()
        # a call refused before and graded (or refused) again now: its old row goes
        ids = calls.column("call_id").to_pylist()
        self._drop(index.refused(ids), {name})
        index.forget_refused(ids)
        index.add(calls, name)

    def compact(self) -> int:
        """Rewrite the per-batch parts as large files partitioned by agent and day (see
        hotato.fleet.compact); how many files were written. Run by `fleet grade` at the end."""
        from hotato.fleet.compact import compact

        if self._held is None:
            raise InputError.one("compact the results folder while holding it (open first)")
        written = compact(self.root, self.metadata(**{"hotato.compacted": "true"}))
        self._stale = bool(written)
        return written

    def _ready(self) -> CallIndex:
        if self._index is None:
            raise InputError.one("write to the results folder while holding it (open first)")
        if self._stale:  # parts were renamed by a compaction: index them again
            self._index.close()
            self._index = self._build(self.root / INDEX)
            self._stale = False
        return self._index


def write_parts(
    root: Path,
    results: pa.Table,
    calls: pa.Table,
    kv: dict[str, str],
    types: dict[str, str] | None,
) -> str:
    """Write one batch's parts into the folder at `root`: its results, then its calls (the
    commit), each fsync'd and renamed into place; the parts' name, a digest of the batch's
    input digests (the same batch graded again overwrites its own parts, never doubles
    them). Any process may write them; the process holding the folder then `adopt`s them."""
    import pyarrow.parquet as pq

    digest = hashlib.sha256()
    for key in calls.column("input_digest").to_pylist():
        digest.update(key.encode())
    name = f"part-{digest.hexdigest()[:20]}.parquet"
    for sub, table in ((RESULTS, results), (CALLS, calls)):
        target = root / sub / name
        tmp = target.with_name(target.name + ".tmp")
        table = _with_variables(table, types)
        pq.write_table(_with_metadata(table, kv), tmp, compression="zstd")
        _fsync(tmp)
        os.replace(tmp, target)
    return name


def _with_variables(table: pa.Table, types: dict[str, str] | None) -> pa.Table:
    """The table with its `variables` of the type the folder records, whoever built it (a
    writer using the default schema, say): every part of a folder has the same columns."""
    from hotato.fleet.vartypes import arrow_type, row_value

    want = arrow_type(types)
    at = table.schema.get_field_index("variables")
    if at < 0 or table.schema.field(at).type == want:
        return table
    import pyarrow as pa

    values = [
        row_value(types, dict(v.items() if isinstance(v, dict) else v or ()))
        for v in table.column(at).to_pylist()
    ]
    return table.set_column(at, pa.field("variables", want), pa.array(values, type=want))


def _with_metadata(table: pa.Table, kv: dict[str, str]) -> pa.Table:
    return table.replace_schema_metadata({**(table.schema.metadata or {}), **kv})


def read_part(pq: Any, part: Path, columns: list[str] | None) -> pa.Table:
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


def table(records: Sequence[msgspec.Struct], schema: pa.Schema) -> pa.Table:
    """Records (hotato.model.fleet) as a table of `schema`."""
    import pyarrow as pa

    return pa.Table.from_pylist([row(r) for r in records], schema=schema)
