"""What one conversation-test run was asked to do: the test, the evidence, and the options."""

from __future__ import annotations

import os
from dataclasses import dataclass, fields, replace
from typing import Any

from hotato.conversation.calls import CallFiles
from hotato.conversation.testfile import ConversationTest
from hotato.model.errors import InputError
from hotato.runs.evidence import Call, StateInput, TraceInput, TranscriptInput, loaded


@dataclass(frozen=True)
class RunEvidence:
    """The call's evidence: paths as strings, or the trace, transcript and state loaded; the
    trials a folder of calls or a tuple of Calls; human labels and the keys they are trusted by."""

    trace: TraceInput | None = None
    trace_format: str = "auto"
    transcript: TranscriptInput | None = None
    state: StateInput | None = None
    state_before: str | None = None
    audio: str | None = None
    audio_layout: str = "caller-left"  # which channel of `audio` is whom (timing score --layout)
    timing: str | None = None  # measured timing for latency `field` and outcome `field_present`
    trials: str | tuple[Call, ...] | None = None
    labels: str | None = None
    trust: tuple[str, ...] = ()
    trace_keys: tuple[str, ...] = ()
    require_signed_trace: bool = False


@dataclass(frozen=True)
class RunOptions:
    """How the run grades."""

    agent: str | None = None  # None: each test's own `agent`
    policy: str | None = None
    repetitions: int | None = None
    k: int | None = None
    judge: Any = None  # a hotato.conversation.judge.JudgeConfig, or None for no judge
    gate_judge: bool = False


@dataclass(frozen=True)
class RunOutput:
    """What the run writes beside its result: an artifact folder, signed, with its page."""

    out: str | None = None
    created_at: str | None = None
    origin: str = "real"
    sign_key: str | None = None
    page: bool = False  # bind the report page into each artifact (report.html)


_PARTS = {
    "evidence": RunEvidence,
    "options": RunOptions,
    "output": RunOutput,
}
_PART_OF = {f.name: part for part, kind in _PARTS.items() for f in fields(kind)}


@dataclass(frozen=True)
class RunRequest:
    """Every input of `hotato test run`, as a library call takes them: the test, and the
    evidence, options and output apart."""

    test_path: str
    evidence: RunEvidence = RunEvidence()
    options: RunOptions = RunOptions()
    output: RunOutput = RunOutput()
    loaded: ConversationTest | None = None  # the test, already loaded (test_path is then unused)

    @classmethod
    def of(cls, test_path: str, loaded: ConversationTest | None = None, **given: Any) -> RunRequest:
        """A request from flat keyword arguments, each given to the part with a field of its
        name (a new option is a field in one part; the command line passes its options by
        name). An unknown name is a TypeError, as for any call."""
        parts: dict[str, dict[str, Any]] = {part: {} for part in _PARTS}
        for name, value in given.items():
            if name not in _PART_OF:
                raise TypeError(f"RunRequest.of() got an unexpected keyword argument {name!r}")
            parts[_PART_OF[name]][name] = value
        return cls(
            test_path, **{part: _PARTS[part](**kw) for part, kw in parts.items()}, loaded=loaded
        )

    def but(self, **changed: Any) -> RunRequest:
        """This request with some fields (of any part, by name) changed."""
        parts: dict[str, dict[str, Any]] = {}
        for name, value in changed.items():
            parts.setdefault(_PART_OF[name], {})[name] = value
        return replace(
            self, **{part: replace(getattr(self, part), **kw) for part, kw in parts.items()}
        )

    def files(self, folder: str = ".") -> CallFiles:
        """The call's evidence given as files (loaded objects are left out: see `objects`)."""
        return CallFiles(
            folder,
            _path(self.evidence.transcript),
            _path(self.evidence.trace),
            _path(self.evidence.state),
            self.evidence.audio,
            self.evidence.timing,
            state_configured=True,  # given by the caller, never found beside a call
        )

    def objects(self) -> dict[str, Any]:
        """The evidence given as loaded objects, by name (trace, transcript, state)."""
        given = {
            "trace": self.evidence.trace,
            "transcript": self.evidence.transcript,
            "state": self.evidence.state,
        }
        return {name: value for name, value in given.items() if loaded(value)}

    def with_call(self, call: Call) -> RunRequest:
        """This request grading `call` (one trial given as objects)."""
        state = call.state if call.state is not None else self.evidence.state
        return self.but(trace=call.trace, transcript=call.transcript, state=state)

    def refuse_unbindable(self) -> None:
        """Refuse what cannot hold for evidence given as objects: an artifact and signed labels
        are bound to the bytes of the trace and transcript files, and a trace's signature
        covers a file. Binding something other than what was graded is never done."""
        unbound = [n for n in self.objects() if n != "state"]  # state is bound as its reads
        if not unbound:
            return
        given = ", ".join(f"{n} ({type(self.objects()[n]).__name__})" for n in unbound)
        ev = self.evidence
        needs = [
            what
            for what, asked in (
                ("an artifact (out)", self.output.out is not None),
                ("signed labels (labels)", self.evidence.labels is not None),
                ("a trace signature check (trace_keys, require_signed_trace)",
                 "trace" in unbound and (bool(ev.trace_keys) or ev.require_signed_trace)),
            )
            if asked
        ]  # fmt: skip
        if needs:
            raise InputError.one(
                f"{' and '.join(needs)} needs the bytes of the call's files, and the {given} "
                f"{'was' if len(unbound) == 1 else 'were'} given loaded: pass paths instead, "
                "so what is bound is what was graded"
            )

    def for_test(self, test: ConversationTest) -> RunRequest:
        """This request with the agent settled: the one asked for, else the test's own."""
        return self if self.options.agent is not None else self.but(agent=test.agent)

    @property
    def has_evidence(self) -> bool:
        return not self.files().empty or bool(self.objects())

    @property
    def has_call_evidence(self) -> bool:
        """Evidence of one call given here (a trace, transcript, audio or timing): what a
        suite or trials read from each call's own folder instead. `--state` is not: it names
        the system of record, which every call may share."""
        given = [
            self.evidence.trace,
            self.evidence.transcript,
            self.evidence.audio,
            self.evidence.timing,
        ]
        return any(v is not None for v in given)

    def state_for(self, files: CallFiles) -> CallFiles:
        """A call folder's files read against the state given here, when one is: the
        configured system of record (which may be an adapter) replaces the folder's own
        `state.json` (evidence, data only). A state given as an object is used by grade_call."""
        state = _path(self.evidence.state)
        if state is None:
            return files
        return replace(files, state=state, state_configured=True)


def _path(value: Any) -> str | None:
    return None if value is None or loaded(value) else os.fspath(value)
