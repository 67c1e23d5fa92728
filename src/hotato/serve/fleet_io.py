"""Everything hotato serve asks of the fleet, in one place: the job (assertions decoded once per
worker), a spooled call graded through the fleet's own worker (`grade_batch`, the door every
fleet call goes through), and the results folder written through `ResultStore`, so `hotato
fleet summary`, `diff` and `report` read what the server wrote."""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from hotato.fleet.worker import Job

if TYPE_CHECKING:
    import pyarrow as pa

    from hotato.fleet.store import ResultStore

SERVE_CALLS = "hotato serve"
_CALL_COLUMNS = ("call_id", "status", "exit_code", "message")


def make_job(
    path: str,
    kind: str,
    packs: tuple[str, ...] = (),
    policy: str | None = None,
    state: str | None = None,
    state_before: str | None = None,
) -> Job:
    """The job every spooled call is graded with; refuses a bad file before anything starts."""
    from dataclasses import replace

    from hotato._io import read_bytes
    from hotato.fleet.store import run_id_for
    from hotato.fleet.variables import check_references, references
    from hotato.fleet.worker import assertions_digest, decode_job
    from hotato.model.errors import InputError

    what = "conversation test" if kind == "test" else "assertions file"
    try:
        text = read_bytes(path, what).decode("utf-8-sig")
    except UnicodeDecodeError:
        raise InputError.one(f"{what} is not UTF-8 text", file=path) from None
    absolute = [None if p is None or "://" in p else str(Path(p).resolve()) for p in (state,)]
    job = Job("", kind, path, text, packs, policy, absolute[0] or state, state_before)
    aset = decode_job(job)
    used = check_references(aset, sorted(references(aset)), SERVE_CALLS)
    digest = assertions_digest(aset)
    return replace(job, run_id=run_id_for(digest, [SERVE_CALLS]), used=tuple(used), digest=digest)


def alerting(job: Job) -> tuple[str, ...]:
    """The ids of the job's assertions marked `alert: true`, in document order."""
    from hotato.fleet.worker import decode_job

    return tuple(s.id for s in decode_job(job).specs if getattr(s, "alert", False))


def open_store(out: str, job: Job) -> ResultStore:
    """The results folder, held by this server (a second writer is refused, naming it)."""
    from hotato.fleet.store import ResultStore, RunMeta

    store = ResultStore(out)
    store.open(
        RunMeta(
            run_id=job.run_id,
            assertions=job.name,
            assertions_digest=job.digest,
            calls=SERVE_CALLS,
            total=0,
        )
    )
    return store


def graded_ids(store: ResultStore) -> set[str]:
    """Call ids the folder already holds a graded row for (read once, at start)."""
    import pyarrow.parquet as pq

    from hotato.fleet.store import CALLS, read_part

    held: set[str] = set()
    for part in sorted((store.root / CALLS).glob("part-*.parquet")):
        table = read_part(pq, part, ["call_id", "status"])
        for call_id, status in zip(
            *(table.column(c).to_pylist() for c in ("call_id", "status")), strict=True
        ):
            if status != "refused":
                held.add(call_id)
    return held


def write(store: ResultStore, results: pa.Table, calls: pa.Table) -> None:
    store.write(results, calls)


@dataclass(frozen=True)
class Target:
    """Where a grading process writes a batch's parts: the results folder, and the metadata
    and variable types of the run holding it."""

    root: str
    kv: dict[str, str]
    types: dict[str, str] | None


def target(store: ResultStore) -> Target:
    meta = store.recorded()
    return Target(str(store.root), store.metadata(), meta.variables if meta else None)


@dataclass
class Graded:
    """One batch's outcome, sent back from a grading process."""

    results: pa.Table | None  # None once written by the grading process (`part`)
    calls: pa.Table
    rows: list[dict[str, Any]]  # per call: call_id, status, exit_code, failed assertion ids
    unreadable: list[str]  # spool files that could not be read at all (named by key)
    part: str | None = None  # the parts the grading process wrote, to adopt
    unwritten: str | None = None  # why the parts could not be written (a full disk)


def grade_files(job: Job, paths: list[str], into: Target | None = None) -> Graded:
    """Grade spooled call files (runs in a grading process), and with `into`, write the
    batch's parts there too, so the receiver only adopts them. A file that cannot be read at
    all is a refused row, never a lost call."""
    from hotato.fleet.manifest import CallRow
    from hotato.fleet.worker import Batch, grade_batch
    from hotato.serve.spool import read_entry

    with tempfile.TemporaryDirectory(prefix="hotato-serve-") as scratch:
        rows = []
        unreadable = []
        for n, path in enumerate(paths):
            try:
                header, body = read_entry(Path(path))
                files = evidence_files(header.source, body, Path(scratch) / str(n))
            except (OSError, ValueError, msgspec.DecodeError) as exc:
                unreadable.append(f"{Path(path).name}: {type(exc).__name__}: {exc}")
                continue
            rows.append(
                CallRow(
                    call_id=header.call_id,
                    agent=header.agent,
                    started_at=header.started_at,
                    variables=dict(header.variables),
                    where=f"{header.source} call {header.call_id}",
                    **files,
                )
            )
        out = grade_batch(Batch(job, tuple(rows)))
    failed: dict[str, list[str]] = {}
    for call_id, status, assertion in zip(
        *(out.results.column(c).to_pylist() for c in ("call_id", "status", "assertion_id")),
        strict=True,
    ):
        if status == "FAIL":
            failed.setdefault(call_id, []).append(assertion)
    summary = [
        {
            "call_id": c,
            "status": s,
            "exit_code": e,
            "message": m,
            "failed": failed.get(c, []),
        }
        for c, s, e, m in zip(
            *(
                out.calls.column(k).to_pylist()
                for k in ("call_id", "status", "exit_code", "message")
            ),
            strict=True,
        )
    ]
    graded = Graded(out.results, out.calls, summary, unreadable)
    if into is not None and out.calls.num_rows:
        from datetime import UTC, datetime

        from hotato.fleet.store import write_parts

        kv = {**into.kv, "hotato.written_at": datetime.now(UTC).isoformat(timespec="seconds")}
        try:
            graded.part = write_parts(Path(into.root), out.results, out.calls, kv, into.types)
        except OSError as exc:
            graded.unwritten = exc.strerror or str(exc)
        graded.results = None
    return graded


def evidence_files(source: str, body: bytes, base: Path) -> dict[str, str]:
    """The call's trace (and transcript) as files the fleet worker reads, named `base` plus a
    suffix (files, not a folder per call: removing folders costs more than grading here)."""

    def put(suffix: str, data: bytes) -> str:
        path = base.with_name(base.name + suffix)
        path.write_bytes(data)
        return str(path)

    if source == "otlp":
        return {"trace": put(".trace.pb", body)}
    if source != "calls":
        return {"trace": put(".trace.json", body)}
    doc = msgspec.json.decode(body)
    files: dict[str, str] = {}
    trace = doc.get("trace")
    if isinstance(trace, list):
        lines = trace
        if not (lines and isinstance(lines[0], dict) and lines[0].get("_meta")):
            meta = {"_meta": True, "schema": "hotato.voice_trace.v1", "call_id": doc["call_id"]}
            lines = [meta, *lines]
        files["trace"] = put(
            ".trace.jsonl", b"".join(msgspec.json.encode(x) + b"\n" for x in lines)
        )
    elif isinstance(trace, dict):
        files["trace"] = put(".trace.json", msgspec.json.encode(trace))
    if doc.get("transcript") is not None:
        files["transcript"] = put(".transcript.json", msgspec.json.encode(doc["transcript"]))
    return files
