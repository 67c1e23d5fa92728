"""The pull itself: list, write each new call's folder (its export as trace.json, its
transcript, and call.json last, as the folder's commit), then the manifest."""

from __future__ import annotations

import contextlib
import re
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import msgspec

from hotato._io import write_atomic
from hotato.fleet.pull._http import Http
from hotato.fleet.pull._source import Source
from hotato.model.errors import InputError

_SAFE = re.compile(r"[^A-Za-z0-9._-]")


@dataclass
class PullResult:
    listed: int = 0
    written: int = 0
    resumed: int = 0
    pages: int = 0
    retries: int = 0
    manifest: str = ""


def parse_time(value: str, flag: str) -> datetime:
    try:
        when = datetime.fromisoformat(value)
    except ValueError:
        raise InputError.one(f"{flag} {value!r} is not an ISO 8601 date or time") from None
    return when.astimezone(UTC) if when.tzinfo else when.replace(tzinfo=UTC)


def pull(
    source: Source,
    out: str,
    since: datetime,
    until: datetime | None = None,
    base_url: str | None = None,
    key_env: str | None = None,
    page_size: int = 100,
    sleep: Callable[[float], None] | None = None,
) -> PullResult:
    root = Path(out)
    if root.exists() and not root.is_dir():
        raise InputError.one("--out is a file, expected a folder", file=out)
    http = Http(
        base_url or source.base_url,
        key_env or source.key_env,
        sleep or time.sleep,
    )
    result = PullResult()
    seen: set[str] = set()
    try:
        root.mkdir(parents=True, exist_ok=True)
        for page in source.pages(http, since, until, page_size):
            for call in page:
                if not isinstance(call, dict):
                    raise InputError.one(f"{source.name}: a listed call is not an object")
                called = source.identify(call)
                if called.call_id in seen:
                    continue
                seen.add(called.call_id)
                result.listed += 1
                folder = root / _SAFE.sub("_", called.call_id)
                if (folder / "call.json").is_file():
                    result.resumed += 1
                    continue
                _write_call(folder, source.name, call, called.agent, called.started_at)
                result.written += 1
    finally:
        result.pages, result.retries = http.pages, http.retries
        http.close()
    result.manifest = str(_manifest(root))
    return result


def _write_call(
    folder: Path, vendor: str, call: dict[str, Any], agent: str | None, started: str | None
) -> None:
    from hotato.evidence.ingest import ingest

    folder.mkdir(parents=True, exist_ok=True)
    write_atomic(folder / "trace.json", msgspec.json.encode(call))
    transcript = folder / "transcript.json"
    # no spoken text, or a malformed export: no transcript (grading refuses the export itself)
    with tempfile.TemporaryDirectory() as scratch, contextlib.suppress(InputError):
        ingest(
            folder / "trace.json",
            fmt=vendor,
            out=Path(scratch) / "trace.jsonl",
            transcript_out=transcript,
        )
    meta = {"vendor": vendor, "agent": agent, "started_at": started}
    write_atomic(folder / "call.json", msgspec.json.encode(meta) + b"\n")


def _manifest(root: Path) -> Path:
    rows = []
    for folder in sorted(p for p in root.iterdir() if (p / "call.json").is_file()):
        meta = msgspec.json.decode((folder / "call.json").read_bytes())
        row: dict[str, Any] = {"call_id": folder.name, "trace": f"{folder.name}/trace.json"}
        if (folder / "transcript.json").is_file():
            row["transcript"] = f"{folder.name}/transcript.json"
        row.update(agent=meta.get("agent"), started_at=meta.get("started_at"))
        rows.append(msgspec.json.encode({k: v for k, v in row.items() if v is not None}))
    target = root / "calls.jsonl"
    write_atomic(target, b"".join(r + b"\n" for r in rows))
    return target
