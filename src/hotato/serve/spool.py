"""The spool: every acknowledged call, on disk before its 2xx.

    OUT/spool/calls/<key>   one file per call: a JSON header line, then the body as received
    OUT/spool/done/<key>    empty; the call's rows are committed to the results store
    OUT/spool/otlp/<trace>  OTLP spans gathered for a call still in progress (length-prefixed
                            protobuf frames, the OpenTelemetry file exporter's layout)

A call file is written aside, fsync'd and linked into place: a link that finds a file there is
a call already received (a vendor's retry), so the same call id is spooled, and graded, once.
Under load the receiver spools through a `Committer`: calls arriving together share the
folder's fsync (group commit), and each is acknowledged only after the fsync that covers it.
A call is pending while it has a file in calls/ and none in done/; on start every pending call
is graded. `key` is a digest of the call id, so any id is a safe file name.

Pruning (`--spool-keep`): a call's body in calls/ is removed once its done mark is older than
the retention. The done mark, an empty file, stays: it is the record that the call id was
received and graded, so a vendor's retry after the body is gone is still a duplicate."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import os
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec

SPOOL = "spool"


class Header(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """What the grader needs besides the body: where it came from and the call's columns."""

    source: str  # vapi | retell | calls | otlp
    call_id: str
    agent: str | None = None
    started_at: str | None = None
    variables: dict[str, Any] = {}
    received: float = 0.0  # wall clock at acknowledgement, for the grading lag


@dataclass(frozen=True)
class Entry:
    key: str
    path: Path


def key_of(call_id: str) -> str:
    return hashlib.sha256(call_id.encode("utf-8", "surrogatepass")).hexdigest()[:40]


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class Spool:
    def __init__(self, out: str | os.PathLike[str]) -> None:
        self.root = Path(out) / SPOOL
        self.calls = self.root / "calls"
        self.done = self.root / "done"
        self.otlp = self.root / "otlp"
        for folder in (self.calls, self.done, self.otlp):
            folder.mkdir(parents=True, exist_ok=True)

    def put(self, header: Header, body: bytes) -> Entry | None:
        """Write the call durably; None when this call id is already spooled."""
        key = key_of(header.call_id)
        target = self.calls / key
        if target.exists() or (self.done / key).exists():
            return None
        tmp = self.calls / f".{key}.{os.urandom(6).hex()}.tmp"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(msgspec.json.encode(header) + b"\n")
                handle.write(body)
                handle.flush()
                os.fsync(handle.fileno())
            try:
                os.link(tmp, target)  # atomic: a second arrival of the same id finds it there
            except FileExistsError:
                return None
        finally:
            tmp.unlink(missing_ok=True)
        _fsync_dir(self.calls)
        return Entry(key, target)

    def put_many(self, calls: list[tuple[Header, bytes]]) -> list[Entry | None]:
        """Write calls durably, sharing one fsync of the folder: every body is written aside
        and fsync'd, then linked into place (a link that finds a file: a call already
        received, None), then the folder is fsync'd once. Nothing is linked before its bytes
        are on disk, and nothing is returned before its link is."""
        written: list[tuple[str, Path] | None] = []
        try:
            for header, body in calls:
                key = key_of(header.call_id)
                if (self.calls / key).exists() or (self.done / key).exists():
                    written.append(None)  # spooled, or graded and its body pruned
                    continue
                tmp = self.calls / f".{key}.{os.urandom(6).hex()}.tmp"
                written.append((key, tmp))
                fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
                try:
                    view = memoryview(msgspec.json.encode(header) + b"\n" + body)
                    while view:
                        view = view[os.write(fd, view) :]
                    os.fsync(fd)
                finally:
                    os.close(fd)
            out: list[Entry | None] = []
            for item in written:
                if item is None:
                    out.append(None)
                    continue
                key, tmp = item
                target = self.calls / key
                try:
                    os.link(tmp, target)  # atomic: a second arrival of the same id finds it
                except FileExistsError:
                    out.append(None)
                    continue
                out.append(Entry(key, target))
        finally:
            for item in written:
                if item is not None:
                    item[1].unlink(missing_ok=True)
        if any(e is not None for e in out):
            _fsync_dir(self.calls)
        return out

    def mark_done(self, keys: list[str]) -> None:
        for key in keys:
            (self.done / key).touch()
        if keys:
            _fsync_dir(self.done)

    def is_done(self, key: str) -> bool:
        return (self.done / key).exists()

    def pending(self) -> list[Entry]:
        """Calls spooled and not yet committed, oldest first."""
        done = {e.name for e in os.scandir(self.done)}
        entries = [
            e for e in os.scandir(self.calls) if not e.name.startswith(".") and e.name not in done
        ]
        entries.sort(key=lambda e: e.stat().st_mtime_ns)
        return [Entry(e.name, Path(e.path)) for e in entries]

    def prune(self, keep: float, stop: threading.Event, pace: int = 1000) -> int:
        """Remove the bodies of calls done more than `keep` seconds ago (their done marks
        stay); how many were removed. Streams the folder, resting briefly every `pace`
        entries so a large spool is pruned without holding the processor."""
        cutoff = time.time() - keep
        removed = 0
        with os.scandir(self.calls) as entries:
            for n, e in enumerate(entries):
                if stop.is_set():
                    break
                if n and n % pace == 0:
                    stop.wait(0.01)
                if e.name.startswith("."):
                    continue
                try:
                    if e.stat().st_mtime > cutoff:
                        continue  # received within the retention: done later, if at all
                    if (self.done / e.name).stat().st_mtime > cutoff:
                        continue
                except FileNotFoundError:
                    continue  # not done yet (pending), or removed meanwhile
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(e.path)
                    removed += 1
        return removed

    def sweep(self) -> None:
        """Temporary files a killed process left behind."""
        for folder in (self.calls, self.otlp):
            for e in os.scandir(folder):
                if e.name.startswith(".") and e.name.endswith(".tmp"):
                    os.unlink(e.path)

    def find(self, call_id: str) -> Path | None:
        path = self.calls / key_of(call_id)
        return path if path.exists() else None

    def pruned(self, call_id: str) -> bool:
        """Received and graded, its body removed after the retention."""
        key = key_of(call_id)
        return (self.done / key).exists() and not (self.calls / key).exists()


class Committer:
    """Group commit: one thread writes the calls handed to it, as many at a time as arrived
    while it was busy, with one fsync of the folder for them all (`Spool.put_many`), then
    settles each call's future on the event loop in one wake-up: the Entry, None for a call
    already spooled, or the exception that kept the group from disk (a full disk)."""

    def __init__(self, spool: Spool, loop: asyncio.AbstractEventLoop) -> None:
        self.spool = spool
        self.loop = loop
        self._todo: list[tuple[Header, bytes, asyncio.Future[Entry | None]]] = []
        self._cond = threading.Condition()
        self._stop = False
        self._thread = threading.Thread(target=self._run, name="hotato-spool", daemon=True)
        self._thread.start()

    def put(self, header: Header, body: bytes) -> asyncio.Future[Entry | None]:
        """Called on the event loop: a future settled once the call is durable."""
        future: asyncio.Future[Entry | None] = self.loop.create_future()
        with self._cond:
            self._todo.append((header, body, future))
            self._cond.notify()
        return future

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._todo and not self._stop:
                    self._cond.wait()
                if not self._todo:
                    return
                group, self._todo = self._todo, []
            outcomes: list[Entry | BaseException | None]
            try:
                outcomes = list(self.spool.put_many([(h, b) for h, b, _ in group]))
            except Exception as exc:  # every call of the group is answered with the error
                outcomes = [exc] * len(group)
            settled = [(f, o) for (_, _, f), o in zip(group, outcomes, strict=True)]
            try:
                self.loop.call_soon_threadsafe(_settle, settled)
            except RuntimeError:  # the loop is closed: the server is stopping
                return

    def close(self) -> None:
        with self._cond:
            self._stop = True
            self._cond.notify()
        self._thread.join()


Settled = list[tuple["asyncio.Future[Entry | None]", "Entry | BaseException | None"]]


def _settle(settled: Settled) -> None:
    for future, outcome in settled:
        if future.done():  # the request went away (its client disconnected)
            continue
        if isinstance(outcome, BaseException):
            future.set_exception(outcome)
        else:
            future.set_result(outcome)


def read_entry(path: Path) -> tuple[Header, bytes]:
    data = path.read_bytes()
    head, _, body = data.partition(b"\n")
    return msgspec.json.decode(head, type=Header), body
