"""`hotato fleet grade`: every call of a manifest graded against one assertions file (or a
conversation test's deterministic assertions), resumably, into a Parquet results folder."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from hotato.fleet.files import Limits
from hotato.fleet.manifest import CallRow, Manifest, read_calls
from hotato.fleet.store import ResultStore, RunIds, RunMeta, Totals
from hotato.fleet.vartypes import VariableTypes
from hotato.fleet.worker import COUNTS, Batch, BatchOut, Job, assertions_digest, decode_job
from hotato.model.errors import InputError
from hotato.runs.fleet import check_state

if TYPE_CHECKING:
    from hotato.fleet.execute import Engine


@dataclass(frozen=True)
class FleetRequest:
    calls: str
    out: str
    assertions: str | None = None
    test: str | None = None
    packs: tuple[str, ...] = ()
    policy: str | None = None
    state: str | None = None
    state_before: str | None = None
    workers: int | None = None
    scheduler: str | None = None
    batch_size: int = 50
    allow_remote: tuple[str, ...] = ()  # SCHEME://HOST places a manifest row may name
    allow_plaintext_scheduler: bool = False  # a tcp:// scheduler off this machine
    limits: Limits = field(default_factory=Limits)  # each call's file size and deadline


@dataclass
class Progress:
    run_id: str
    total: int  # calls in the manifest
    started: float = field(default_factory=time.monotonic)
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(COUNTS, 0))
    totals: Totals | None = None  # the whole folder's, once the run has finished

    @property
    def done(self) -> int:
        c = self.counts
        return c["graded"] + c["refused"] + c["resumed"] + c["changed"]

    @property
    def elapsed(self) -> float:
        return time.monotonic() - self.started

    @property
    def rate(self) -> float:
        worked = self.counts["graded"] + self.counts["refused"]
        return worked / self.elapsed if self.elapsed > 0 else 0.0

    def add(self, out: BatchOut) -> None:
        for key, value in out.counts.items():
            self.counts[key] += value


def _job(req: FleetRequest, manifest_columns: list[str] | None = None) -> Job:
    if (req.assertions is None) == (req.test is None):
        raise InputError.one("give exactly one of --assertions FILE or --test FILE")
    from hotato._io import read_bytes

    kind, path = ("test", req.test) if req.test is not None else ("assertions", req.assertions)
    assert path is not None
    what = "conversation test" if kind == "test" else "assertions file"
    try:
        text = read_bytes(path, what).decode("utf-8-sig")
    except UnicodeDecodeError:
        raise InputError.one(f"{what} is not UTF-8 text", file=path) from None
    return Job(
        "", kind, path, text, req.packs, req.policy, req.state, req.state_before, limits=req.limits
    )


@dataclass(frozen=True)
class Plan:
    """What the checking pass over the manifest learnt besides the calls."""

    legacy_run_id: str  # hotato 2.0's id of this run: a folder it wrote resumes
    variable_types: tuple[tuple[str, str], ...]


def prepare(req: FleetRequest) -> tuple[Job, Manifest]:
    """Everything refused before a call is graded: the assertions, the manifest, references
    to manifest columns, the state source."""
    job, manifest, _ = _prepare(req)
    return job, manifest


def _prepare(req: FleetRequest) -> tuple[Job, Manifest, Plan]:
    from dataclasses import replace

    from hotato.fleet.variables import check_references

    try:
        import pyarrow  # noqa: F401  (the results are Parquet)
    except ImportError:
        raise InputError.one(
            "fleet grading needs the fleet extra: pip install 'hotato[fleet]'"
        ) from None
    if req.batch_size < 1:
        raise InputError.one("--batch-size must be at least 1")
    if req.limits.max_bytes < 1 or req.limits.seconds <= 0:
        raise InputError.one("--max-file-mib and --call-timeout must be above 0")
    if req.scheduler is not None:
        from hotato.fleet.scheduler import check_scheduler

        check_scheduler(req.scheduler, req.allow_plaintext_scheduler)
    req = _resolved(req)
    job = _job(req)
    aset = decode_job(job)
    digest = assertions_digest(aset)
    ids = RunIds(digest)
    types = VariableTypes()

    def visit(call: CallRow) -> None:
        ids.add(call.call_id, call.agent)
        types.visit(call)

    manifest = read_calls(req.calls, req.allow_remote, visit)
    columns = ["call_id", "trace", "transcript", "audio", "agent", "started_at", *manifest.columns]
    used = check_references(aset, list(dict.fromkeys(columns)), manifest.source)
    if req.state is not None:
        check_state(req.state, req.state_before)
    typed = tuple(types.types().items())
    job = replace(job, run_id=ids.run_id, used=tuple(used), digest=digest, variable_types=typed)
    return job, manifest, Plan(ids.legacy, typed)


def _resolved(req: FleetRequest) -> FleetRequest:
    """The request with its local state paths made absolute here, in the driver: a relative
    path sent as it is would be read from each worker's own folder."""
    from dataclasses import replace

    def absolute(path: str | None) -> str | None:
        return path if path is None or "://" in path else str(Path(path).resolve())

    return replace(req, state=absolute(req.state), state_before=absolute(req.state_before))


def worker_paths(job: Job, manifest: Manifest) -> dict[str, str]:
    """The local files and folders every worker must read, by the flag that names them: the
    state source and the manifest's folder (where its relative paths point)."""
    paths = {"--state": job.state, "--state-before": job.state_before}
    if "://" not in manifest.source:
        source = Path(manifest.source)
        paths["the manifest's folder"] = str(source if source.is_dir() else source.parent)
    return {flag: path for flag, path in paths.items() if path is not None and "://" not in path}


def grade_fleet(
    req: FleetRequest, on_progress: Callable[[Progress], None] | None = None
) -> Progress:
    """Grade every call not already in `req.out`; the final counts."""
    from hotato.fleet.execute import open_engine

    job, manifest, plan = _prepare(req)
    # the engine first: an unreachable scheduler or a path a worker cannot read is refused
    # before anything is written under --out
    engine = open_engine(req.workers, req.scheduler, req.allow_plaintext_scheduler)
    try:
        engine.check_paths(worker_paths(job, manifest))
        return _grade_with(engine, req, _as_recorded(req, job, plan), manifest, on_progress)
    finally:
        try:
            engine.release(job.run_id)
        finally:
            engine.close()


def _as_recorded(req: FleetRequest, job: Job, plan: Plan) -> Job:
    """The job as the results folder already holding this run recorded it: hotato 2.0's run
    id and text variables for a folder it wrote, the variable types of the run's first
    start for a resume."""
    from dataclasses import replace

    held = ResultStore(req.out).recorded() if Path(req.out).is_dir() else None
    if held is None:
        return job
    if held.run_id == plan.legacy_run_id and held.variables is None:
        return replace(job, run_id=held.run_id, variable_types=())
    if held.run_id == job.run_id:
        return replace(job, variable_types=tuple((held.variables or {}).items()))
    return job


def _grade_with(
    engine: Engine,
    req: FleetRequest,
    job: Job,
    manifest: Manifest,
    on_progress: Callable[[Progress], None] | None,
) -> Progress:
    """Grade the calls not already in `req.out` on an open engine."""
    from hotato.fleet.execute import run_batches

    store = ResultStore(req.out)
    done = store.open(
        RunMeta(
            run_id=job.run_id,
            assertions=str(Path(job.name)),
            assertions_digest=job.digest,
            calls=req.calls,
            total=manifest.total,
            variables=dict(job.variable_types),
        )
    )
    progress = Progress(job.run_id, manifest.total)

    def batches() -> Iterator[Batch]:
        for chunk in _chunks(manifest.iter_calls(), req.batch_size):
            yield Batch(job, chunk, done.lookup(c.call_id for c in chunk))

    def on_done(out: BatchOut) -> None:
        if out.calls.num_rows:
            store.write(out.results, out.calls)
        progress.add(out)
        if on_progress is not None:
            on_progress(progress)

    try:
        run_batches(engine, batches(), on_done)
        store.compact()
        progress.totals = store.totals()
    finally:
        store.close()
    return progress


def _chunks(calls: Iterator[CallRow], size: int) -> Iterator[tuple[CallRow, ...]]:
    chunk: list[CallRow] = []
    for call in calls:
        chunk.append(call)
        if len(chunk) == size:
            yield tuple(chunk)
            chunk = []
    if chunk:
        yield tuple(chunk)
