"""The calls of a fleet run: a folder of call folders, or a manifest file (JSONL, CSV, Parquet)
with one row per call. Paths may be local or fsspec URLs (`s3://`, `gs://`, `file://`).

A manifest is streamed, never held whole: `read_calls` reads it once to check every row (a
missing or repeated call_id, a file behind a URL from a place not allowed) and to count and
name its columns; `Manifest.iter_calls` reads it again, row by row, while the fleet grades.
Repeated call_ids are found from an 8-byte hash per row (8 MB for a million rows); only the
rows whose hashes repeat are looked at again, to name both lines."""

from __future__ import annotations

import csv
import hashlib
import io
import os
import posixpath
from array import array
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import msgspec

from hotato._secrets import mask_url
from hotato.model.errors import InputError, Problem

if TYPE_CHECKING:
    from hotato.fleet.remote import Origin

FILE_COLUMNS = ("trace", "transcript", "audio")
KNOWN_COLUMNS = ("call_id", *FILE_COLUMNS, "agent", "started_at")
CALL_META = "call.json"  # optional, in a call folder: agent, started_at and variables
PARQUET_CHUNK = 2_000  # rows decoded at a time from a Parquet manifest

Rows = Iterator[tuple[str, dict[str, Any]]]


class CallRow(msgspec.Struct, frozen=True, kw_only=True):
    """One call to grade. Paths are absolute or URLs; `variables` are the row's other columns."""

    call_id: str
    trace: str | None = None
    transcript: str | None = None
    audio: str | None = None
    agent: str | None = None
    started_at: str | None = None  # ISO 8601 as given; checked when the call is graded
    variables: dict[str, Any] = {}
    where: str = ""  # manifest line or folder, for messages

    def column(self, name: str) -> Any:
        if name in KNOWN_COLUMNS:
            return getattr(self, name)
        return self.variables.get(name)


@dataclass
class Manifest:
    """A checked manifest: its source, columns and size; its calls are read again on demand."""

    source: str
    columns: list[str] = field(default_factory=list)  # every column any row has
    total: int = 0
    rows: Callable[[], Rows] = field(default=lambda: iter(()), repr=False)
    allowed: frozenset[Origin] = frozenset()

    def iter_calls(self) -> Iterator[CallRow]:
        """The calls in manifest order, read from the source row by row."""
        base = _base(self.source)
        for where, row in self.rows():
            call = _call(base, where, row, self.allowed, [])
            if call is not None:
                yield call

    @property
    def calls(self) -> list[CallRow]:
        """Every call in one list: for small manifests (tests, tools); a fleet streams."""
        return list(self.iter_calls())


def is_url(path: str) -> bool:
    return "://" in path


def read_calls(
    source: str,
    allow_remote: tuple[str, ...] = (),
    visit: Callable[[CallRow], None] | None = None,
) -> Manifest:
    """The calls `source` names, checked in one streaming pass (`visit` sees each call, in
    manifest order; folders: name order). Refuses a manifest that cannot be read, whose rows
    lack or repeat a call_id, or that names a file behind a URL from a place not allowed (see
    hotato.fleet.remote), naming the line."""
    from hotato.fleet.remote import allowed_origins

    allowed = allowed_origins(allow_remote, source)
    if not is_url(source) and Path(source).is_dir():
        folder_rows = _folders(source)
        return _check(
            str(Path(source) / "calls.jsonl"), lambda: iter(folder_rows), frozenset(), visit
        )
    lower = source.lower()
    rows: Callable[[], Rows]
    if lower.endswith(".parquet"):
        rows = lambda: _parquet_rows(source)  # noqa: E731
    elif lower.endswith(".csv"):
        rows = lambda: _csv_rows(source)  # noqa: E731
    elif lower.endswith((".jsonl", ".ndjson")):
        rows = lambda: _jsonl_rows(source)  # noqa: E731
    else:
        raise InputError.one(
            "CALLS is neither a folder of call folders nor a manifest ending in .jsonl, .csv "
            "or .parquet",
            file=source,
        )
    return _check(source, rows, allowed, visit)


@contextmanager
def _open(source: str) -> Iterator[IO[bytes]]:
    if is_url(source):
        from hotato.fleet.files import open_url

        try:
            with open_url(source) as handle:
                yield handle
        except FileNotFoundError:
            raise InputError.one("manifest does not exist", file=source) from None
        return
    path = Path(source)
    if not path.is_file():
        raise InputError.one("manifest does not exist", file=source)
    with path.open("rb") as handle:
        yield handle


def _jsonl_rows(source: str) -> Rows:
    problems = []
    with _open(source) as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            try:
                value = msgspec.json.decode(line)
            except msgspec.DecodeError as exc:
                problems.append(Problem(f"not a JSON object ({exc})", file=source, line=number))
                continue
            if not isinstance(value, dict):
                problems.append(
                    Problem("each line must be a JSON object", file=source, line=number)
                )
                continue
            if not problems:
                yield f"{source}:{number}", value
    if problems:
        raise InputError(problems)


def _csv_rows(source: str) -> Rows:
    with _open(source) as handle:
        text = io.TextIOWrapper(handle, encoding="utf-8-sig", newline="")
        reader = csv.DictReader(text)
        try:
            for row in reader:
                where = f"{source}:{reader.line_num}"
                yield where, {k: v for k, v in row.items() if k and v != ""}
        except UnicodeDecodeError:
            raise InputError.one("manifest is not UTF-8 text", file=source) from None
        except csv.Error as exc:  # a cell over the csv module's limit (128 KiB), a stray NUL
            raise InputError.one(
                f"the manifest is not CSV hotato can read ({exc})",
                file=source,
                line=reader.line_num + 1,  # the line being read when it failed
            ) from None


def _parquet_rows(source: str) -> Rows:
    import pyarrow.parquet as pq

    try:
        with _open(source) as handle:
            number = 0
            for batch in pq.ParquetFile(handle).iter_batches(batch_size=PARQUET_CHUNK):
                for row in batch.to_pylist():
                    number += 1
                    yield (
                        f"{source} row {number}",
                        {k: v for k, v in row.items() if v is not None},
                    )
    except (OSError, ValueError) as exc:
        raise InputError.one(f"cannot read the Parquet manifest ({exc})", file=source) from None


def _text(value: Any) -> str:
    if isinstance(value, datetime):
        stamp = value if value.tzinfo else value.replace(tzinfo=UTC)
        return stamp.isoformat()
    return str(value)


def _call(
    base: str,
    where: str,
    row: dict[str, Any],
    allowed: frozenset[Origin],
    problems: list[Problem],
) -> CallRow | None:
    """The row as a call, or None with its problems added."""
    from hotato.fleet.remote import remote_problem

    call_id = row.get("call_id")
    if call_id is None or str(call_id) == "":
        problems.append(Problem("the row has no call_id", file=where))
        return None
    files = {c: _resolve(base, str(row[c])) for c in FILE_COLUMNS if row.get(c) is not None}
    remote = [(c, why) for c, url in files.items() if (why := remote_problem(url, allowed))]
    if remote:
        problems += [Problem(f"{c} {mask_url(files[c])}: {why}", file=where) for c, why in remote]
        return None
    return CallRow(
        call_id=str(call_id),
        agent=_text(row["agent"]) if row.get("agent") is not None else None,
        started_at=_text(row["started_at"]) if row.get("started_at") is not None else None,
        variables={k: v for k, v in row.items() if k not in KNOWN_COLUMNS},
        where=where,
        **files,
    )


def _check(
    source: str,
    rows: Callable[[], Rows],
    allowed: frozenset[Origin],
    visit: Callable[[CallRow], None] | None,
) -> Manifest:
    base = _base(source)
    problems: list[Problem] = []
    hashes = array("q")
    columns: dict[str, None] = {}
    total = 0
    for where, row in rows():
        columns.update(dict.fromkeys(row))
        call = _call(base, where, row, allowed, problems)
        if call is None:
            continue
        hashes.append(_hash(call.call_id))
        total += 1
        if visit is not None and not problems:
            visit(call)
    problems += _repeats(rows, hashes)
    if problems:
        raise InputError(problems)
    if not total:
        raise InputError.one("the manifest names no calls", file=source)
    return Manifest(source, list(columns), total, rows, allowed)


def _hash(call_id: str) -> int:
    digest = hashlib.blake2b(call_id.encode(), digest_size=8).digest()
    return int.from_bytes(digest, "little", signed=True)


def _repeats(rows: Callable[[], Rows], hashes: array[int]) -> list[Problem]:
    """A problem per row whose call_id an earlier row has, found without a set of every id:
    the hashes that repeat first, then the rows holding one, read again."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if not hashes:
        return []
    values = pa.Array.from_buffers(pa.int64(), len(hashes), [None, pa.py_buffer(hashes)])
    counts = pc.value_counts(values)
    twice = pc.filter(counts.field("values"), pc.greater(counts.field("counts"), 1))
    if not len(twice):
        return []
    suspects = set(twice.to_pylist())
    seen: dict[str, str] = {}
    problems = []
    for where, row in rows():
        call_id = row.get("call_id")
        if call_id is None or str(call_id) == "" or _hash(str(call_id)) not in suspects:
            continue
        call_id = str(call_id)
        if call_id in seen:
            problems.append(Problem(f"call_id {call_id!r} repeats {seen[call_id]}", file=where))
        else:
            seen[call_id] = where
    return problems


def _base(source: str) -> str:
    if is_url(source):
        return posixpath.dirname(source)
    return str(Path(source).resolve().parent)


def _resolve(base: str, path: str) -> str:
    # os.path rather than pathlib: this runs twice per row of a million-row manifest
    if is_url(path) or os.path.isabs(path):
        return path
    if is_url(base):
        return posixpath.join(base, path)
    return os.path.join(base, path)


def _folders(source: str) -> list[tuple[str, dict[str, Any]]]:
    from hotato.runs.fleet import call_files

    rows: list[tuple[str, dict[str, Any]]] = []
    for folder in sorted(Path(source).resolve().iterdir()):
        if not folder.is_dir() or folder.name.startswith("."):
            continue
        files = call_files(folder)
        row: dict[str, Any] = {"call_id": folder.name}
        meta = folder / CALL_META
        if meta.is_file():
            try:
                extra = msgspec.json.decode(meta.read_bytes())
            except msgspec.DecodeError as exc:
                raise InputError.one(f"call.json is not JSON ({exc})", file=str(meta)) from None
            if not isinstance(extra, dict):
                raise InputError.one("call.json must be a JSON object", file=str(meta))
            row.update({k: v for k, v in extra.items() if k not in FILE_COLUMNS})
            row["call_id"] = folder.name
        for column in FILE_COLUMNS:
            value = getattr(files, column)
            if value is not None:
                row[column] = value
        if files.empty:
            continue
        rows.append((str(folder), row))
    if not rows:
        raise InputError.one(
            "the folder holds no call folders (sub-folders with a trace, transcript.json or audio)",
            file=source,
        )
    return rows
