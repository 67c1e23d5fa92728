"""The receiver's engine: acknowledge (spool durably, once per call id), grade in a pool of
processes, commit to the results store, then mark done. Restarted, it grades what was spooled
and not committed; a call committed before a kill and not yet marked done is marked, not graded
again. When more calls wait than `max_pending`, new ones are turned away with 503 and
Retry-After, so memory stays bounded whatever the rate."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
from collections import deque
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hotato.serve import fleet_io, otlp
from hotato.serve.config import Secrets, ServeConfig, check, is_loopback, secrets
from hotato.serve.metrics import Metrics
from hotato.serve.spool import Committer, Entry, Header, Spool, key_of, read_entry

log = logging.getLogger("hotato.serve")
ATTR = "attr:"


@dataclass(frozen=True)
class Queued:
    key: str
    path: Path
    received: float  # wall clock


@dataclass
class Recent:
    call_id: str
    status: str  # graded | refused
    exit_code: int | None
    failed: list[str]
    message: str
    lag: float


class Busy(Exception):
    """Grading is behind: the client should retry after a while."""


class Service:
    def __init__(self, cfg: ServeConfig) -> None:
        check(cfg)
        self.cfg = cfg
        # --var COLUMN=attr:NAME: an OTLP call's column from a span or resource attribute
        self.attr_vars = {c: p[len(ATTR) :] for c, p in cfg.variables.items() if p.startswith(ATTR)}
        self.secrets: Secrets = secrets(cfg)
        self.loopback = is_loopback(cfg.host)
        kind, path = ("test", cfg.test) if cfg.test is not None else ("assertions", cfg.assertions)
        assert path is not None
        self.job = fleet_io.make_job(path, kind, cfg.packs, cfg.policy, cfg.state, cfg.state_before)
        # alerted on each FAIL: the file's `alert: true` assertions and the --alert-on ids
        self.alert_on = tuple(dict.fromkeys((*fleet_io.alerting(self.job), *cfg.alert_on)))
        self.store = fleet_io.open_store(cfg.out, self.job)  # first: it refuses a foreign folder
        self._into = fleet_io.target(self.store)  # grading processes write the parts
        self.spool = Spool(cfg.out)
        self.spool.sweep()
        self.metrics = Metrics()
        self.recent: deque[Recent] = deque(maxlen=cfg.recent)
        self.pending = 0
        self.queue: asyncio.Queue[Queued] = asyncio.Queue()
        self.traces: dict[str, float] = {}  # open OTLP calls: trace id -> last export (monotonic)
        self._locks: dict[str, asyncio.Lock] = {}
        self._write = asyncio.Lock()
        self._tasks: list[asyncio.Task[Any]] = []
        self._pool: ProcessPoolExecutor | None = None
        self._committer: Committer | None = None
        self._pruner: threading.Thread | None = None
        self._stopping = threading.Event()
        self._alerter: Any = None
        self._client: Any = None
        self._busy: set[asyncio.Task[Any]] = set()
        self.started = time.time()

    # --- life -------------------------------------------------------------------------------

    async def start(self) -> None:
        self._pool = _pool(self.cfg.workers, self.cfg.grading_nice)
        self._committer = Committer(self.spool, asyncio.get_running_loop())
        if self.cfg.alert_url is not None:
            import httpx

            from hotato.serve.alerts import Alerter

            self._alerter = Alerter(
                self.cfg.alert_url, self.alert_on, self.cfg.alert_rate, self.cfg.alert_window
            )
            self._client = httpx.AsyncClient(follow_redirects=False)
        if self.alert_on and self.cfg.alert_url is None:
            log.warning(
                "assertions marked alert: true (%s), and no --alert URL: no alert is sent",
                ", ".join(self.alert_on),
            )
        held = await asyncio.to_thread(self._resume)
        log.info("resumed: %d spooled calls to grade, %d already committed", *held)
        now = time.monotonic()
        for path in self.spool.otlp.iterdir():
            if not path.name.startswith("."):
                self.traces[path.name] = now
        self.metrics.open_traces.set(len(self.traces))
        self._tasks = [
            asyncio.create_task(self._dispatch()),
            asyncio.create_task(self._idle_closer()),
        ]
        if self.cfg.spool_keep is not None:
            self._pruner = threading.Thread(
                target=self._prune, args=(self.cfg.spool_keep,), name="hotato-prune", daemon=True
            )
            self._pruner.start()

    def _prune(self, keep: float) -> None:
        """Remove graded calls' bodies past the retention, a pass every tenth of it (at most
        every five minutes)."""
        while not self._stopping.is_set():
            try:
                removed = self.spool.prune(keep, self._stopping)
                if removed:
                    self.metrics.pruned.inc(removed)
            except OSError as exc:
                log.error("pruning the spool failed (%s); trying again later", exc.strerror)
            self._stopping.wait(min(keep / 10, 300.0))

    def _resume(self) -> tuple[int, int]:
        pending = self.spool.pending()
        if not pending:
            return 0, 0
        held = {key_of(c) for c in fleet_io.graded_ids(self.store)}
        committed = [e.key for e in pending if e.key in held]
        self.spool.mark_done(committed)
        todo = [e for e in pending if e.key not in held]
        for e in todo:
            self.queue.put_nowait(Queued(e.key, e.path, e.path.stat().st_mtime))
        self.pending = len(todo)
        self.metrics.pending.set(self.pending)
        return len(todo), len(committed)

    async def stop(self) -> None:
        self._stopping.set()
        if self._pruner is not None:
            await asyncio.to_thread(self._pruner.join)
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        if self._busy:
            await asyncio.wait(self._busy, timeout=30)
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
        if self._committer is not None:
            self._committer.close()
        if self._client is not None:
            await self._client.aclose()
        self.store.close()

    # --- acknowledging ----------------------------------------------------------------------

    def check_room(self) -> None:
        if self.pending >= self.cfg.max_pending:
            self.metrics.rejected.labels("busy").inc()
            raise Busy()

    async def accept(self, header: Header, body: bytes) -> str:
        """Spool one call durably: "accepted", or "duplicate" for a call id already spooled."""
        self.check_room()
        entry = await self._spool(_with_received(header), body)
        return "duplicate" if entry is None else "accepted"

    async def _spool(self, header: Header, body: bytes) -> Entry | None:
        """The call on disk (group commit), queued for grading; None for a call id already
        spooled. Queued when its write settles, even if the request was cancelled meanwhile
        (its client went away): a spooled call is always graded."""
        if self._committer is None:  # not started (an app whose lifespan never ran)
            entry = await asyncio.to_thread(self.spool.put, header, body)
            self._spooled(header, entry)
            return entry
        future = self._committer.put(header, body)

        def settled(f: asyncio.Future[Entry | None]) -> None:
            if not f.cancelled() and f.exception() is None:
                self._spooled(header, f.result())

        future.add_done_callback(settled)
        return await asyncio.shield(future)

    def _spooled(self, header: Header, entry: Entry | None) -> None:
        if entry is None:
            self.metrics.duplicates.labels(header.source).inc()
            return
        self.pending += 1
        self.metrics.pending.set(self.pending)
        self.metrics.received.labels(header.source).inc()
        self.queue.put_nowait(Queued(entry.key, entry.path, header.received))

    async def gather(self, parts: dict[str, tuple[bytes, bool]]) -> None:
        """Append an OTLP export's spans to their calls; a root span closes its call."""
        self.check_room()
        if len(self.traces) + len(set(parts) - set(self.traces)) > self.cfg.max_pending:
            self.metrics.rejected.labels("busy").inc()
            raise Busy()  # calls still gathering are bounded as the pending ones are
        for trace, (data, root) in parts.items():
            async with self._lock(trace):
                await asyncio.to_thread(otlp.append, self.spool.otlp, trace, data)
                self.traces[trace] = time.monotonic()
            if root:
                await self._close_trace(trace)
        self.metrics.open_traces.set(len(self.traces))

    def _lock(self, trace: str) -> asyncio.Lock:
        lock = self._locks.get(trace)
        if lock is None:
            lock = self._locks[trace] = asyncio.Lock()
        return lock

    async def _close_trace(self, trace: str) -> None:
        async with self._lock(trace):
            path = self.spool.otlp / trace
            if not path.exists():
                return
            closed = await asyncio.to_thread(otlp.close_call, path)
            if closed.data:
                header = Header(
                    source="otlp",
                    call_id=closed.call_id or trace,
                    agent=closed.agent,
                    variables=otlp.variables(closed.attributes, self.attr_vars),
                )
                await self._spool(_with_received(header), closed.data)
            path.unlink(missing_ok=True)
            self.traces.pop(trace, None)
        self._locks.pop(trace, None)
        self.metrics.open_traces.set(len(self.traces))

    async def _idle_closer(self) -> None:
        tick = min(1.0, self.cfg.call_idle / 4)
        while True:
            await asyncio.sleep(tick)
            now = time.monotonic()
            for trace in [t for t, at in self.traces.items() if now - at >= self.cfg.call_idle]:
                try:
                    await self._close_trace(trace)
                except Exception:
                    log.exception("closing an OTLP call failed; it stays gathered")

    # --- grading ----------------------------------------------------------------------------

    async def _dispatch(self) -> None:
        room = asyncio.Semaphore(self.cfg.workers * 2)
        while True:
            batch = [await self.queue.get()]
            while len(batch) < self.cfg.batch_size and not self.queue.empty():
                batch.append(self.queue.get_nowait())
            await room.acquire()
            task = asyncio.create_task(self._grade(batch, room))
            self._busy.add(task)
            task.add_done_callback(self._busy.discard)

    async def _grade(self, batch: list[Queued], room: asyncio.Semaphore) -> None:
        loop = asyncio.get_running_loop()
        try:
            paths = [str(q.path) for q in batch]
            assert self._pool is not None
            try:
                graded = await loop.run_in_executor(
                    self._pool, fleet_io.grade_files, self.job, paths, self._into
                )
            except Exception as exc:
                # a grading process died (killed, out of memory): the batch is graded again
                log.error("a grading process failed (%s); grading the batch again", exc)
                self._renew_pool()
                await asyncio.sleep(1)
                for q in batch:
                    self.queue.put_nowait(q)
                return
            try:
                if graded.unwritten is not None:
                    raise OSError(graded.unwritten)
                async with self._write:
                    # the grading process wrote the parts; the receiver takes them into the
                    # index (and drops rows they replace), then marks the calls done
                    if graded.part is not None:
                        await asyncio.to_thread(self.store.adopt, graded.calls, graded.part)
                    elif graded.results is not None and graded.calls.num_rows:
                        await asyncio.to_thread(
                            fleet_io.write, self.store, graded.results, graded.calls
                        )
                    await asyncio.to_thread(self.spool.mark_done, [q.key for q in batch])
            except OSError as exc:
                # the results folder could not be written (a full disk): the calls stay
                # spooled and are graded again once it can be
                reason = exc.strerror or str(exc)
                log.error("results not written (%s); grading the batch again", reason)
                await asyncio.sleep(5)
                for q in batch:
                    self.queue.put_nowait(q)
                return
            self._record(batch, graded)
        finally:
            room.release()

    def _renew_pool(self) -> None:
        old = self._pool
        self._pool = _pool(self.cfg.workers, self.cfg.grading_nice)
        if old is not None:
            old.shutdown(wait=False, cancel_futures=True)

    def _record(self, batch: list[Queued], graded: fleet_io.Graded) -> None:
        now = time.time()
        received = {q.key: q.received for q in batch}
        self.pending -= len(batch)
        self.metrics.pending.set(self.pending)
        for row in graded.rows:
            lag = max(0.0, now - received.get(key_of(row["call_id"]), now))
            self.metrics.lag.observe(lag)
            if row["status"] == "refused":
                self.metrics.refused.inc()
            else:
                self.metrics.graded.inc()
                if row["exit_code"]:
                    self.metrics.failing.inc()
                for assertion in row["failed"]:
                    self.metrics.assertion_failures.labels(assertion).inc()
            self.recent.appendleft(
                Recent(
                    row["call_id"],
                    row["status"],
                    row["exit_code"],
                    row["failed"],
                    row["message"] or "",
                    lag,
                )
            )
            if self._alerter is not None:
                for alert in self._alerter.observe(row):
                    self._send(alert)
        for name in graded.unreadable:
            self.metrics.refused.inc()
            log.error("a spooled call could not be read and was set aside: %s", name)

    def _send(self, alert: dict[str, Any]) -> None:
        async def send() -> None:
            ok = await self._alerter.send(self._client, alert)
            self.metrics.alerts.labels("sent" if ok else "failed").inc()

        task = asyncio.create_task(send())
        self._busy.add(task)
        task.add_done_callback(self._busy.discard)

    # --- reading ----------------------------------------------------------------------------

    def find(self, call_id: str) -> tuple[str, Header | None]:
        """("unknown" | "pending" | "done" | "pruned", the call's header)."""
        path = self.spool.find(call_id)
        if path is None:
            return ("pruned" if self.spool.pruned(call_id) else "unknown"), None
        header, _ = read_entry(path)
        return ("done" if self.spool.is_done(key_of(call_id)) else "pending"), header


def _pool(workers: int, nice: int) -> ProcessPoolExecutor:
    """Grading processes that end with the server, even when it is killed with kill -9."""
    import multiprocessing
    import os

    return ProcessPoolExecutor(
        workers,
        mp_context=multiprocessing.get_context("forkserver"),
        initializer=_grading_process,
        initargs=(os.getpid(), nice),
    )


def _grading_process(server: int, nice: int) -> None:
    """Each grading process: it ends with the server, and yields the processor to it, so
    acknowledging a call never waits behind grading one (backpressure bounds the backlog)."""
    import contextlib
    import os

    from hotato.fleet.execute import end_with

    end_with(server)
    with contextlib.suppress(OSError):
        os.nice(nice)


def _with_received(header: Header) -> Header:
    import msgspec

    return msgspec.structs.replace(header, received=time.time())
