"""Before snapshots: ask a system of record now, keep the answers in a sandbox-shaped file.

The file is `{resource: [records]}` plus `_meta.captures`, the questions asked and what each
found (or why it could not be read), so a later run can tell "no such row before the call"
from "never asked". No timestamp is written: the same answers give the same bytes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec

from hotato._io import write_atomic
from hotato.model.state import NoSnapshot, StateReader, StateUnavailable

META_KEY = "_meta"
SCHEMA = "hotato.state-snapshot.v1"


class CaptureError(msgspec.Struct, forbid_unknown_fields=True):
    cause: str
    message: str


class Capture(msgspec.Struct, forbid_unknown_fields=True, omit_defaults=True):
    resource: str
    filters: dict[str, Any]
    found: bool
    error: CaptureError | None = None


class SnapshotMeta(msgspec.Struct, forbid_unknown_fields=True):
    schema: str
    captures: list[Capture]
    source: str = ""


def capture(
    reader: StateReader, resource: str, filters: Mapping[str, Any]
) -> tuple[Capture, dict[str, Any] | None]:
    """Ask once; a could-not-read is kept as the answer, not raised."""
    try:
        record = reader.query(resource, filters)
    except (StateUnavailable, NoSnapshot) as exc:
        cause = exc.cause if isinstance(exc, StateUnavailable) else "no_snapshot"
        message = exc.message if isinstance(exc, StateUnavailable) else str(exc)
        return Capture(resource, dict(filters), False, CaptureError(cause, message)), None
    return Capture(resource, dict(filters), found=record is not None), record


def snapshot_document(
    source: str,
    taken: list[tuple[Capture, dict[str, Any] | None]],
    earlier: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The file's content; `earlier` is a snapshot being added to (`--append`)."""
    doc: dict[str, Any] = {k: list(v) for k, v in (earlier or {}).items() if k != META_KEY}
    captures = list((earlier or {}).get(META_KEY, {}).get("captures", []))
    for cap, record in taken:
        entry = msgspec.to_builtins(cap)
        if entry in captures:
            continue
        captures.append(entry)
        rows = doc.setdefault(cap.resource, [])
        if record is not None and record not in rows:
            rows.append(record)
    return {META_KEY: {"schema": SCHEMA, "source": source, "captures": captures}, **doc}


def write_snapshot(path: str, document: dict[str, Any]) -> None:
    """All or nothing: the snapshot is written aside and renamed over `path`."""
    write_atomic(path, msgspec.json.format(msgspec.json.encode(document), indent=2) + b"\n")
