"""A Grader: one assertions file decoded once, one state connection kept, many calls graded.

    with Grader("assertions.yaml", state="orders.db") as grader:
        for call in calls:
            result = grader.grade(trace=call.trace, transcript=call.transcript)
            print(result.exit_code, result.to_json())

Each call gets its own question cache, so a record that changed between two calls is read
again; what lasts is the decoded file, the plan, the database connection and its reflected
table shapes. A system of record that was unreachable for one call is tried again for the next.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from hotato.engine.loader import AssertionSet, load_assertions
from hotato.engine.run import run
from hotato.model.errors import InputError
from hotato.model.evidence import Trace
from hotato.model.state import StateReader, StateSource
from hotato.runs.evidence import (
    PathLike,
    StateInput,
    TraceInput,
    TranscriptInput,
    is_reader,
    path_of,
    sources_of,
    state_source,
)
from hotato.runs.result import AssertionsResult
from hotato.runs.trace_auth import authenticate, verified_digest


class Grader:
    """Grades calls against one assertions file (a path, or a loaded AssertionSet).

    `state` is the system of record every call is checked against: a sandbox, SQLite file,
    database URL or adapter file (opened once, at the first call, and kept until `close`), or
    your own object with `query(resource, filters)`. Raises InputError for a refused file."""

    def __init__(
        self,
        assertions: PathLike | AssertionSet,
        *,
        state: StateInput | None = None,
        state_before: PathLike | None = None,
        packs: Sequence[str] = (),
        inconclusive_policy: str | None = None,
        trace_format: str = "auto",
        trace_keys: Sequence[str] = (),
        require_signed_trace: bool = False,
    ) -> None:
        from hotato.engine.packs import merge_packs

        aset = (
            assertions
            if isinstance(assertions, AssertionSet)
            else load_assertions(assertions, list(packs))
        )
        self.assertions = merge_packs(aset, list(packs))
        _ = self.assertions.order  # cycles, unknown ids: refused now (and planned once)
        self.inconclusive_policy = inconclusive_policy
        self.trace_format = trace_format
        self.trace_keys = tuple(os.fspath(k) for k in trace_keys)
        self.require_signed_trace = require_signed_trace
        self._state = state
        self._state_before = os.fspath(state_before) if state_before is not None else None
        self._opened: tuple[StateReader, StateReader | None, str] | None = None
        self._closers: list[Any] = []

    def grade(
        self,
        *,
        trace: TraceInput | None = None,
        transcript: TranscriptInput | None = None,
        state: StateInput | None = None,
        assertions: AssertionSet | None = None,
        keep_evidence: bool = False,
        timing: PathLike | None = None,
        audio: PathLike | None = None,
        audio_layout: str = "caller-left",
    ) -> AssertionsResult:
        """Grade one call. Evidence left as None is not supplied: its checks are INCONCLUSIVE.
        `state` here replaces the grader's own for this call only; so do `assertions` (the
        grader's own with this call's values bound, as a fleet run's `${call.col}` does).
        `keep_evidence` keeps the call's loaded evidence on the result (for the report page);
        a batch leaves it off so a graded call's trace is not held in memory.
        `timing`: a timing file (see hotato.evidence.timing). `audio`: the call's stereo
        recording, scored into timing when no `timing` is given (see hotato.runs.timing), its
        channels read by `audio_layout` (as `hotato timing score --layout`)."""
        trace_path = None
        if isinstance(trace, Trace):
            if self.trace_keys or self.require_signed_trace:
                raise InputError.one(
                    "a trace's signature is checked against its file: pass the trace's path, "
                    "not a loaded trace"
                )
        else:
            trace_path = path_of(trace, "trace")
        auth = authenticate(trace_path, self.trace_keys, self.require_signed_trace)
        sources = sources_of(
            trace,
            transcript,
            state if state is not None else self._source(),
            self._state_before,
            self.trace_format,
            verified_digest(auth),
        )
        from hotato.runs.evidence import attach_timing

        aset = assertions if assertions is not None else self.assertions
        if timing is None and audio is not None and not os.path.isfile(os.fspath(audio)):
            raise InputError.one("audio file does not exist", file=os.fspath(audio))
        attach_timing(sources, aset.specs, timing, audio, audio_layout)
        outcome = run(aset, sources, self.inconclusive_policy)
        return AssertionsResult(outcome, auth, sources if keep_evidence else None)

    def _source(self) -> StateSource | None:
        if self._state is None:
            return None
        if isinstance(self._state, StateSource):
            return self._state
        if is_reader(self._state):
            return state_source(self._state, self._state_before)
        if self._opened is None:
            self._opened = self._open(os.fspath(self._state))  # type: ignore[arg-type]
        reader, before, description = self._opened
        new_call = getattr(reader, "new_call", None)
        if new_call is not None:
            new_call()
        from hotato.adapters.cache import CachedReader

        return StateSource(
            after=CachedReader(reader),
            before=CachedReader(before) if before is not None else None,
            description=description,
        )

    def _open(self, source: str) -> tuple[StateReader, StateReader | None, str]:
        from hotato.adapters.open import open_reader
        from hotato.adapters.sandbox import read_sandbox

        reader, sandbox_before, description = open_reader(source)
        close = getattr(reader, "close", None)
        if close is not None:
            self._closers.append(close)
        before: StateReader | None = sandbox_before
        if self._state_before is not None:
            before = read_sandbox(self._state_before).as_before()
        return reader, before, description

    def close(self) -> None:
        """Close the connections the grader opened (a reader you passed in stays yours)."""
        while self._closers:
            self._closers.pop()()
        self._opened = None

    def __enter__(self) -> Grader:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()
