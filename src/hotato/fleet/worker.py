"""Grading one batch of calls, in whichever process the engine runs it.

A worker keeps one hotato.runs Grader per job (decoded assertions, one open state connection)
for its whole life. A call whose input is missing, corrupt, too large or too slow to read, or
whose grading raises anything at all, is refused on its own row with the reason; the batch and
the fleet go on."""

from __future__ import annotations

import hashlib
import tempfile
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from hotato.fleet.files import Limits
from hotato.fleet.manifest import CallRow
from hotato.model.errors import InputError
from hotato.model.fleet import CallRecord, ResultRecord
from hotato.runs.fleet import AssertionSet, decode_assertions
from hotato.runs.fleet import assertions_digest as assertions_digest  # the job's key, for serve

if TYPE_CHECKING:
    import pyarrow as pa

    from hotato.fleet.variables import Binder
    from hotato.runs.grader import Grader


# What a batch reports: assertion statuses, and calls graded, refused, already held with the
# same inputs (resumed) or held with inputs that have changed since (changed: not regraded).
COUNTS = ("pass", "fail", "inconclusive", "refused", "graded", "resumed", "changed")


@dataclass(frozen=True)
class Job:
    """What every batch of one run shares; small enough to send with each task."""

    run_id: str
    kind: str  # "assertions" or "test"
    name: str  # the file, for messages
    text: str  # its content, so a remote worker needs no shared disk
    packs: tuple[str, ...] = ()
    policy: str | None = None
    state: str | None = None
    state_before: str | None = None
    used: tuple[str, ...] = ()  # manifest columns the assertions reference
    digest: str = ""  # of the decoded assertions, part of every call's key
    limits: Limits = field(default_factory=Limits)  # each call's file size and deadline
    # the variable columns' types (hotato.fleet.vartypes); () writes hotato 2.0's text map
    variable_types: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Batch:
    job: Job
    calls: tuple[CallRow, ...]
    done: dict[str, str] = field(default_factory=dict)  # call_id -> recorded input digest


@dataclass
class BatchOut:
    results: pa.Table
    calls: pa.Table
    counts: dict[str, int]  # COUNTS


def decode_job(job: Job) -> AssertionSet:
    """The job's assertions, as `assert run` or `test run` would read the file."""
    return decode_assertions(job.kind, job.name, job.text, job.packs)


# One per job for the worker's life: its state connection stays open between batches.
_GRADERS: dict[Job, tuple[Grader, Binder]] = {}


def _grader(job: Job) -> tuple[Grader, Binder]:
    if job not in _GRADERS:
        from hotato.fleet.variables import Binder
        from hotato.runs.fleet import grader_for

        aset = decode_job(job)
        grader = grader_for(aset, job.state, job.state_before, job.policy)
        _GRADERS[job] = (grader, Binder(aset, list(job.used)))
    return _GRADERS[job]


def release(run_id: str) -> int:
    """Close and forget this process's graders of run `run_id` (their state connections), at
    the end of the run: a long-lived Dask worker would otherwise keep one per run it served.
    How many were closed."""
    gone = [job for job in _GRADERS if job.run_id == run_id]
    for job in gone:
        _GRADERS.pop(job)[0].close()
    return len(gone)


def grade_batch(batch: Batch) -> BatchOut:
    from hotato.fleet.store import call_schema, result_schema, table
    from hotato.fleet.vartypes import arrow_type

    grader, binder = _grader(batch.job)
    results: list[ResultRecord] = []
    calls: list[CallRecord] = []
    counts = dict.fromkeys(COUNTS, 0)
    with tempfile.TemporaryDirectory(prefix="hotato-fleet-") as scratch:
        for n, row in enumerate(batch.calls):
            what, call, rows = _grade_call(batch, grader, binder, row, Path(scratch) / str(n))
            counts[what] += 1
            if call is None:
                continue
            calls.append(call)
            results.extend(rows)
            counts["pass"] += call.passed or 0
            counts["fail"] += call.failed or 0
            counts["inconclusive"] += call.inconclusive or 0
    variables = arrow_type(dict(batch.job.variable_types))
    return BatchOut(
        table(results, result_schema(variables)), table(calls, call_schema(variables)), counts
    )


def _grade_call(
    batch: Batch, grader: Grader, binder: Binder, row: CallRow, scratch: Path
) -> tuple[str, CallRecord | None, list[ResultRecord]]:
    """("graded" | "refused", the call's row, its result rows), or ("resumed" | "changed",
    None, []) for a call this results folder already holds: its recorded input digest equal
    to (or, changed, different from) the one its files give now. Either way it is not
    written again, so a call never has two rows."""
    from hotato.fleet.files import fetch
    from hotato.fleet.vartypes import row_value

    job = batch.job
    until = time.monotonic() + job.limits.seconds
    head: dict[str, Any] = {
        "run_id": job.run_id,
        "call_id": row.call_id,
        "agent": row.agent,
        "started_at": None,
        "variables": row_value(dict(job.variable_types), row.variables),
    }
    refusal: Exception | None = None
    local: dict[str, str | None] = {}
    digests: dict[str, str | None] = {}
    try:
        head["started_at"] = _started(row.started_at)
        for what in ("trace", "transcript", "audio"):
            path = getattr(row, what)
            local[what], digests[what] = (
                fetch(path, scratch, what, job.limits, until) if path else (None, None)
            )
        head["input_digest"] = _key(job, row, digests)
    except Exception as exc:  # refused below, unless this call is already held
        refusal = exc
        head["input_digest"] = _key(job, row, {})
    recorded = batch.done.get(row.call_id)
    if recorded is not None:
        return ("resumed" if recorded == head["input_digest"] else "changed"), None, []
    try:
        if refusal is not None:
            raise refusal
        bound = binder.bind({c: row.column(c) for c in job.used})
        outcome = grader.grade(
            trace=local["trace"],
            transcript=local["transcript"],
            assertions=bound,
            audio=local["audio"],  # scored into timing when the assertions read timing
        ).outcome
    except Exception as exc:  # anything one call's input provokes refuses that call only
        refused = CallRecord(
            **head,
            status="refused",
            message=_message(row, exc),
            exit_code=2,
            passed=None,
            failed=None,
            inconclusive=None,
        )
        return "refused", refused, []
    tally = outcome.tally
    call = CallRecord(
        **head,
        status="graded",
        message="",
        exit_code=int(outcome.exit_code),
        passed=tally.passed,
        failed=tally.failed,
        inconclusive=tally.inconclusive,
    )
    rows = [
        ResultRecord(
            **head,
            assertion_id=r.id,
            kind=r.kind,
            dimension=r.dimension,
            deterministic=r.deterministic,
            status=r.status.value,
            reason=r.reason,
            skipped=r.skipped,
            observed=None
            if r.observed is msgspec.UNSET
            else msgspec.json.encode(r.observed).decode(),
            evidence=list(r.evidence),
        )
        for r in outcome.results
    ]
    return "graded", call, rows


def _key(job: Job, row: CallRow, digests: dict[str, str | None]) -> str:
    """The digest of everything that decides a call's results: the assertions, the state
    source named, the call's manifest row and the bytes of its files."""
    doc = {
        "assertions": job.digest,
        "policy": job.policy,
        "state": job.state,
        "state_before": job.state_before,
        "call_id": row.call_id,
        "agent": row.agent,
        "started_at": row.started_at,
        "variables": row.variables,
        "files": digests,
    }
    return hashlib.sha256(msgspec.json.encode(doc, order="sorted")).hexdigest()


def _started(value: str | None) -> datetime | None:
    if value is None:
        return None
    try:
        stamp = datetime.fromisoformat(value)
    except ValueError:
        raise InputError.one(f"started_at {value!r} is not an ISO 8601 time") from None
    return stamp.astimezone(UTC) if stamp.tzinfo else stamp.replace(tzinfo=UTC)


def _message(row: CallRow, exc: Exception) -> str:
    """The refusal, located: prefixed with the manifest row when no problem names a file. An
    error that is not a refusal of input is named by its type, so the row says what broke."""
    if isinstance(exc, InputError):
        text = str(exc)
        return text if any(p.file for p in exc.problems) else f"{row.where}: {text}"
    if isinstance(exc, RecursionError):
        return f"{row.where}: an input of this call is nested too deeply to read"
    return f"{row.where}: grading this call failed: {type(exc).__name__}: {exc}"
