"""The engines that run batches: a local process pool (the default) or a Dask distributed
cluster by address. Both take the same task and give the same result; hotato only keeps a
bounded window of batches in flight, so memory follows the batch size, not the fleet size."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Protocol

from hotato.fleet.worker import Batch, BatchOut, grade_batch, release
from hotato.model.errors import InputError


class Engine(Protocol):
    workers: int

    def submit(self, batch: Batch) -> Any: ...

    def wait_any(self, pending: set[Any]) -> tuple[set[Any], set[Any]]: ...

    def result(self, future: Any) -> BatchOut: ...

    def check_paths(self, paths: dict[str, str]) -> None:
        """Refuse, before any call is graded, a path (by the flag naming it) that a worker
        cannot read. Workers on this machine read what the driver has already checked."""

    def release(self, run_id: str) -> None:
        """Close the run's graders and state connections wherever they were opened."""

    def close(self) -> None: ...


class InProcess:
    """`--workers 1`: batches graded in this process, one after another (no pool to start)."""

    workers = 1

    def submit(self, batch: Batch) -> Any:
        from concurrent.futures import Future

        future: Future[BatchOut] = Future()
        future.set_result(grade_batch(batch))
        return future

    def wait_any(self, pending: set[Any]) -> tuple[set[Any], set[Any]]:
        return set(pending), set()

    def check_paths(self, paths: dict[str, str]) -> None:
        pass

    def result(self, future: Any) -> BatchOut:
        out: BatchOut = future.result()
        return out

    def release(self, run_id: str) -> None:
        release(run_id)

    def close(self) -> None:
        pass


class LocalPool:
    """A pool of worker processes on this machine (concurrent.futures, forkserver)."""

    def __init__(self, workers: int | None) -> None:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        self.workers = workers or os.cpu_count() or 1
        self._pool = ProcessPoolExecutor(
            self.workers,
            mp_context=multiprocessing.get_context("forkserver"),
            initializer=end_with,
            initargs=(os.getpid(),),
        )

    def submit(self, batch: Batch) -> Any:
        return self._pool.submit(grade_batch, batch)

    def wait_any(self, pending: set[Any]) -> tuple[set[Any], set[Any]]:
        from concurrent.futures import FIRST_COMPLETED, wait

        done, rest = wait(pending, return_when=FIRST_COMPLETED)
        return set(done), set(rest)

    def check_paths(self, paths: dict[str, str]) -> None:
        pass

    def result(self, future: Any) -> BatchOut:
        out: BatchOut = future.result()
        return out

    def release(self, run_id: str) -> None:
        pass  # the pool's processes end with the run, and their connections with them

    def close(self) -> None:
        self._pool.shutdown(cancel_futures=True)


def end_with(driver: int, every: float = 1.0) -> None:
    """Run in each pool process: end it when the driver (`hotato fleet grade`) is gone, even
    killed with SIGKILL, instead of outliving it with nothing to do."""
    import threading
    import time

    def watch() -> None:
        while True:
            time.sleep(every)
            try:
                os.kill(driver, 0)
            except ProcessLookupError:
                os._exit(1)
            except PermissionError:  # the pid now belongs to another user: ours is gone
                os._exit(1)

    threading.Thread(target=watch, daemon=True, name="hotato-end-with-driver").start()


class DaskCluster:
    """An existing Dask distributed cluster, by scheduler address (`tls://host:8786`, or
    plaintext on loopback: see hotato.fleet.scheduler)."""

    def __init__(self, address: str, allow_plaintext: bool = False) -> None:
        try:
            from distributed import Client, as_completed
        except ImportError:
            raise InputError.one(
                "--scheduler needs the fleet extra: pip install 'hotato[fleet]'"
            ) from None
        from hotato.fleet.scheduler import check_scheduler

        full = check_scheduler(address, allow_plaintext)
        self._client = _connect(Client, full, address)
        self.workers = max(
            1, sum(w.get("nthreads", 1) for w in self._client.scheduler_info()["workers"].values())
        )
        # Results are gathered in the background as tasks finish, each handed over with its
        # future: one round trip to the client's event loop per batch, not a wait and a
        # result each.
        self._finished = as_completed(with_results=True, loop=self._client.loop)
        self._results: dict[str, BatchOut] = {}

    def submit(self, batch: Batch) -> Any:
        future = self._client.submit(grade_batch, batch, pure=False)
        self._finished.add(future)
        return future

    def wait_any(self, pending: set[Any]) -> tuple[set[Any], set[Any]]:
        future, out = next(self._finished)
        self._results[future.key] = out
        done = {future}
        for more, out in self._finished.next_batch(block=False):  # finished meanwhile
            self._results[more.key] = out
            done.add(more)
        return done, pending - done

    def result(self, future: Any) -> BatchOut:
        out = self._results.pop(future.key)
        future.release()
        return out

    def check_paths(self, paths: dict[str, str]) -> None:
        """Ask every worker of the cluster (another machine, another folder) what it cannot
        read, and refuse the run naming the worker, the flag and the path."""
        if not paths:
            return
        answers: dict[str, list[str]] = self._client.run(unreadable, paths)
        problems = [
            f"the Dask worker {worker} cannot read {why}"
            for worker, whys in sorted(answers.items())
            for why in whys
        ]
        if problems:
            raise InputError.one(
                "; ".join(problems) + ". Give paths every worker can read (a shared folder "
                "mounted at the same place, or an s3:// or gs:// URL)"
            )

    def release(self, run_id: str) -> None:
        self._client.run(release, run_id)

    def close(self) -> None:
        self._client.close()


SCHEDULER_ANSWER_S = 20.0  # a listener that never answers Dask's handshake is not waited on


def _connect(client: Any, full: str, address: str) -> Any:
    """A Dask client for `full`, or a refusal: unreachable, refused by Dask, or a listener
    that never answers as a Dask scheduler does (an HTTP server, say), which Dask alone
    would wait on for ever. The attempt runs on a daemon thread given up at the deadline."""
    import threading

    box: dict[str, Any] = {}

    def attempt() -> None:
        try:
            box["client"] = client(full, timeout="10s")
        except Exception as exc:  # any failure to connect is reported, whatever its type
            box["error"] = exc

    thread = threading.Thread(target=attempt, daemon=True, name="hotato-dask-connect")
    thread.start()
    thread.join(SCHEDULER_ANSWER_S)
    if thread.is_alive():
        raise InputError.one(
            f"no Dask scheduler answered at {address} within {SCHEDULER_ANSWER_S:g} s: "
            "is a Dask scheduler listening there (not another service)?"
        )
    if "error" in box:
        raise InputError.one(f"cannot reach the Dask scheduler at {address}: {box['error']}")
    return box["client"]


def unreadable(paths: dict[str, str]) -> list[str]:
    """Run on a worker: which of `paths` (by flag) it cannot read, and why."""
    problems = []
    for flag, path in paths.items():
        if not os.path.exists(path):
            problems.append(f"{flag} {path}: it does not exist there")
        elif not os.access(path, os.R_OK | (os.X_OK if os.path.isdir(path) else 0)):
            problems.append(f"{flag} {path}: permission denied")
    return problems


def open_engine(
    workers: int | None, scheduler: str | None, allow_plaintext: bool = False
) -> Engine:
    if scheduler is not None:
        return DaskCluster(scheduler, allow_plaintext)
    if workers == 1:
        return InProcess()
    return LocalPool(workers)


def run_batches(
    engine: Engine, batches: Iterable[Batch], on_done: Callable[[BatchOut], None]
) -> None:
    """Submit batches keeping at most two per worker in flight; hand each result over as it
    completes (in completion order: part files are keyed by content, not by order)."""
    window = 2 * engine.workers
    source: Iterator[Batch] = iter(batches)
    pending: set[Any] = set()
    exhausted = False
    while pending or not exhausted:
        while not exhausted and len(pending) < window:
            batch = next(source, None)
            if batch is None:
                exhausted = True
                break
            pending.add(engine.submit(batch))
        if not pending:
            break
        done, pending = engine.wait_any(pending)
        for future in done:
            on_done(engine.result(future))
