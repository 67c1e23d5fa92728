"""The calls of a fleet run: a folder of call folders, or a manifest file (JSONL, CSV, Parquet)
with one row per call. Paths may be local or fsspec URLs (`s3://`, `gs://`, `file://`)."""

from __future__ import annotations

import csv
import io
import posixpath
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from hotato._secrets import mask_url
from hotato.model.errors import InputError, Problem

if TYPE_CHECKING:
    from hotato.fleet.remote import Origin

FILE_COLUMNS = ("trace", "transcript", "audio")
KNOWN_COLUMNS = ("call_id", *FILE_COLUMNS, "agent", "started_at")
CALL_META = "call.json"  # optional, in a call folder: agent, started_at and variables


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
    source: str
    calls: list[CallRow]
    columns: list[str] = field(default_factory=list)  # every column any row has


def is_url(path: str) -> bool:
    return "://" in path


def read_calls(source: str, allow_remote: tuple[str, ...] = ()) -> Manifest:
    """Every call `source` names, in manifest order (folders: name order). Refuses a manifest
    that cannot be read, whose rows lack or repeat a call_id, or that names a file behind a
    URL from a place not allowed (see hotato.fleet.remote), naming the line."""
    from hotato.fleet.remote import allowed_origins

    allowed = allowed_origins(allow_remote, source)
    if not is_url(source) and Path(source).is_dir():
        return _folders(source)
    lower = source.lower()
    if lower.endswith(".parquet"):
        rows = _parquet_rows(source)
    elif lower.endswith(".csv"):
        rows = _csv_rows(source, _read(source))
    elif lower.endswith((".jsonl", ".ndjson")):
        rows = _jsonl_rows(source, _read(source))
    else:
        raise InputError.one(
            "CALLS is neither a folder of call folders nor a manifest ending in .jsonl, .csv "
            "or .parquet",
            file=source,
        )
    return _manifest(source, rows, allowed)


def _read(source: str) -> bytes:
    if is_url(source):
        from hotato.fleet.files import open_url

        try:
            with open_url(source) as handle:
                data: bytes = handle.read()
                return data
        except FileNotFoundError:
            raise InputError.one("manifest does not exist", file=source) from None
    path = Path(source)
    if not path.is_file():
        raise InputError.one("manifest does not exist", file=source)
    return path.read_bytes()


def _jsonl_rows(source: str, data: bytes) -> list[tuple[str, dict[str, Any]]]:
    rows = []
    problems = []
    for number, line in enumerate(data.splitlines(), 1):
        if not line.strip():
            continue
        try:
            value = msgspec.json.decode(line)
        except msgspec.DecodeError as exc:
            problems.append(Problem(f"not a JSON object ({exc})", file=source, line=number))
            continue
        if not isinstance(value, dict):
            problems.append(Problem("each line must be a JSON object", file=source, line=number))
            continue
        rows.append((f"{source}:{number}", value))
    if problems:
        raise InputError(problems)
    return rows


def _csv_rows(source: str, data: bytes) -> list[tuple[str, dict[str, Any]]]:
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise InputError.one("manifest is not UTF-8 text", file=source) from None
    reader = csv.DictReader(io.StringIO(text))
    rows = []
    try:
        for row in reader:
            where = f"{source}:{reader.line_num}"
            rows.append((where, {k: v for k, v in row.items() if k and v != ""}))
    except csv.Error as exc:  # a cell over the csv module's limit (128 KiB), a stray NUL
        raise InputError.one(
            f"the manifest is not CSV hotato can read ({exc})",
            file=source,
            line=reader.line_num + 1,  # the line being read when it failed
        ) from None
    return rows


def _parquet_rows(source: str) -> list[tuple[str, dict[str, Any]]]:
    import pyarrow.parquet as pq

    try:
        if is_url(source):
            from hotato.fleet.files import open_url

            with open_url(source) as handle:
                table = pq.read_table(handle)
        else:
            table = pq.read_table(source)
    except (OSError, ValueError) as exc:
        raise InputError.one(f"cannot read the Parquet manifest ({exc})", file=source) from None
    return [
        (f"{source} row {i + 1}", {k: v for k, v in row.items() if v is not None})
        for i, row in enumerate(table.to_pylist())
    ]


def _text(value: Any) -> str:
    if isinstance(value, datetime):
        stamp = value if value.tzinfo else value.replace(tzinfo=UTC)
        return stamp.isoformat()
    return str(value)


def _manifest(
    source: str, rows: list[tuple[str, dict[str, Any]]], allowed: frozenset[Origin] = frozenset()
) -> Manifest:
    from hotato.fleet.remote import remote_problem

    base = _base(source)
    problems: list[Problem] = []
    calls: list[CallRow] = []
    seen: dict[str, str] = {}
    columns: dict[str, None] = {}
    for where, row in rows:
        columns.update(dict.fromkeys(row))
        call_id = row.get("call_id")
        if call_id is None or str(call_id) == "":
            problems.append(Problem("the row has no call_id", file=where))
            continue
        call_id = str(call_id)
        if call_id in seen:
            problems.append(Problem(f"call_id {call_id!r} repeats {seen[call_id]}", file=where))
            continue
        seen[call_id] = where
        files = {c: _resolve(base, str(row[c])) for c in FILE_COLUMNS if row.get(c) is not None}
        remote = [(c, why) for c, url in files.items() if (why := remote_problem(url, allowed))]
        if remote:
            problems += [
                Problem(f"{c} {mask_url(files[c])}: {why}", file=where) for c, why in remote
            ]
            continue
        calls.append(
            CallRow(
                call_id=call_id,
                agent=_text(row["agent"]) if row.get("agent") is not None else None,
                started_at=(
                    _text(row["started_at"]) if row.get("started_at") is not None else None
                ),
                variables={k: v for k, v in row.items() if k not in KNOWN_COLUMNS},
                where=where,
                **files,
            )
        )
    if problems:
        raise InputError(problems)
    if not calls:
        raise InputError.one("the manifest names no calls", file=source)
    return Manifest(source, calls, list(columns))


def _base(source: str) -> str:
    if is_url(source):
        return posixpath.dirname(source)
    return str(Path(source).resolve().parent)


def _resolve(base: str, path: str) -> str:
    if is_url(path) or Path(path).is_absolute():
        return path
    if is_url(base):
        return posixpath.join(base, path)
    return str(Path(base) / path)


def _folders(source: str) -> Manifest:
    from hotato.conversation.calls import call_files

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
    return _manifest(str(Path(source) / "calls.jsonl"), rows)
