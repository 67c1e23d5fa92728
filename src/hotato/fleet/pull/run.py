"""The pull itself: list, write each new call's folder (its export as trace.json, its
transcript, and call.json last, as the folder's commit), then the manifest.

A call id is the platform's, so it is data: its folder's name keeps the characters
`A-Z a-z 0-9 . _ -` and writes every other byte as %XX (`%` too, and a leading `.`), one
name per id and never `.`, `..` or a path, so `a/b` and `a_b` get folders of their own and
nothing is written outside --out. call.json and calls.jsonl keep the id as the platform gave it.
"""

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
from hotato.fleet.pull._source import Called, Source
from hotato.model.errors import InputError

_PLAIN = re.compile(rb"[A-Za-z0-9._-]")
_MAX_NAME = 200  # bytes of a folder name, under every file system's 255


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
    try:
        root.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError.one(f"cannot make the --out folder: {exc.strerror}", file=out) from None
    http = Http(
        base_url or source.base_url,
        key_env or source.key_env,
        sleep or time.sleep,
    )
    result = PullResult()
    seen: set[str] = set()
    try:
        for page in source.pages(http, since, until, page_size):
            for call in page:
                called = _identify(source, call)
                if called.call_id in seen:
                    continue
                seen.add(called.call_id)
                result.listed += 1
                folder = root / folder_name(called.call_id)
                if (folder / "call.json").is_file():
                    result.resumed += 1
                    continue
                _write_call(folder, source.name, call, called)
                result.written += 1
    finally:
        result.pages, result.retries = http.pages, http.retries
        http.close()
    result.manifest = str(_manifest(root))
    return result


def folder_name(call_id: str) -> str:
    """The folder a call id is written to, inside --out (see the module's docstring)."""
    raw = call_id.encode("utf-8", "surrogatepass")
    name = "".join(
        chr(b) if _PLAIN.fullmatch(bytes([b])) and not (i == 0 and b == 0x2E) else f"%{b:02X}"
        for i, b in enumerate(raw)
    )
    if not name or len(name) > _MAX_NAME:
        raise InputError.one(
            f"a listed call id is {'empty' if not name else 'too long to name a folder'}"
        )
    return name


def _identify(source: Source, call: Any) -> Called:
    """The listed call's id, agent and start, or a refusal naming what is missing."""
    if not isinstance(call, dict):
        raise InputError.one(f"{source.name}: a listed call is not an object")
    try:
        return source.identify(call)
    except (KeyError, TypeError, ValueError):
        raise InputError.one(f"{source.name}: a listed call has no id") from None


def _write_call(folder: Path, vendor: str, call: dict[str, Any], called: Called) -> None:
    from hotato.runs.fleet import ingest_export

    folder.mkdir(parents=True, exist_ok=True)
    write_atomic(folder / "trace.json", msgspec.json.encode(call))
    transcript = folder / "transcript.json"
    # no spoken text, or a malformed export: no transcript (grading refuses the export itself)
    with tempfile.TemporaryDirectory() as scratch, contextlib.suppress(InputError):
        ingest_export(
            str(folder / "trace.json"), vendor, str(Path(scratch) / "trace.jsonl"), str(transcript)
        )
    meta = {
        "vendor": vendor,
        "call_id": called.call_id,
        "agent": called.agent,
        "started_at": called.started_at,
    }
    write_atomic(folder / "call.json", msgspec.json.encode(meta) + b"\n")


def _manifest(root: Path) -> Path:
    rows = []
    for folder in sorted(p for p in root.iterdir() if (p / "call.json").is_file()):
        meta = msgspec.json.decode((folder / "call.json").read_bytes())
        call_id = meta.get("call_id") or folder.name  # folders written before ids were kept
        row: dict[str, Any] = {"call_id": call_id, "trace": f"{folder.name}/trace.json"}
        if (folder / "transcript.json").is_file():
            row["transcript"] = f"{folder.name}/transcript.json"
        row.update(agent=meta.get("agent"), started_at=meta.get("started_at"))
        rows.append(msgspec.json.encode({k: v for k, v in row.items() if v is not None}))
    target = root / "calls.jsonl"
    write_atomic(target, b"".join(r + b"\n" for r in rows))
    return target
