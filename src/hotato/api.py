"""The library: every use case of the CLI as a typed call that never prints or exits.

    import hotato

    result = hotato.grade("assertions.yaml", trace="call.jsonl", state="orders.db")
    result.passed, result.exit_code   # exit_code: 0, 1 or 2, as `hotato assert run` exits
    print(result.to_json())           # the JSON `assert run --format json` prints

    outcome = hotato.run_trials("refund.yaml", "recorded-calls/", k=3, out="artifacts/")
    hotato.verify_artifact("artifacts/call-1").ok

Every argument that names a file takes a path (str or os.PathLike); evidence may also be an
already loaded object (`hotato.load_trace(...)`, `hotato.load_transcript(...)`), and `state` may
be your own object with `query(resource, filters)`. Refused input raises `hotato.InputError`
(the CLI's exit 2), whose `.problems` say what and where. See docs/api.md.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, overload

from hotato.conversation.testfile import ConversationTest, load_test
from hotato.engine.loader import AssertionSet, load_assertions
from hotato.engine.run import RunOutcome
from hotato.evidence.trace import load_trace
from hotato.evidence.transcript import load_transcript
from hotato.model.errors import InputError, Problem, UsageError
from hotato.model.evidence import CallEvidence, Trace
from hotato.runs.evidence import Call, PathLike, StateInput, TraceInput, TranscriptInput
from hotato.runs.grader import Grader
from hotato.runs.outcome import ConversationOutcome
from hotato.runs.result import AssertionsResult, NotPassed
from hotato.runs.verify import Verification

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from hotato.artifacts.labels import VerifiedLabel
    from hotato.artifacts.signing import Trust
    from hotato.conversation.judge import JudgeConfig
    from hotato.evidence.ingest import IngestResult
    from hotato.fleet.grade import Progress
    from hotato.fleet.summary import Summary
    from hotato.runs.claims import ClaimsFound, ClaimsGraded
    from hotato.runs.timing import TimingScore

Paths = Sequence[PathLike]


def grade(
    assertions: PathLike | AssertionSet,
    *,
    trace: TraceInput | None = None,
    transcript: TranscriptInput | None = None,
    state: StateInput | None = None,
    state_before: PathLike | None = None,
    packs: Sequence[str] = (),
    inconclusive_policy: str | None = None,
    trace_format: str = "auto",
    trace_keys: Paths = (),
    require_signed_trace: bool = False,
    timing: PathLike | None = None,
    audio: PathLike | None = None,
    audio_layout: str = "caller-left",
) -> AssertionsResult:
    """Grade one call against an assertions file, as `hotato assert run` does.

    Evidence left as None is not supplied, and the checks that need it are INCONCLUSIVE (with
    that cause). `timing`: a measured-timing file for latency `field` and outcome
    `field_present` checks; `audio`: the call's stereo recording, scored into timing
    when no `timing` is given (needs hotato[audio]), its channels read by `audio_layout`
    (as `hotato timing score --layout`). To grade many calls against one file,
    keep a `Grader` instead."""
    from hotato.runs.assertions import grade_assertions

    return grade_assertions(
        assertions,
        packs=packs,
        trace=trace,
        transcript=transcript,
        state=state,
        state_before=state_before,
        trace_format=trace_format,
        trace_keys=[os.fspath(k) for k in trace_keys],
        require_signed_trace=require_signed_trace,
        inconclusive_policy=inconclusive_policy,
        timing=timing,
        audio=audio,
        audio_layout=audio_layout,
    )


def run_assertions(
    assertions: PathLike | AssertionSet,
    *,
    trace: TraceInput | None = None,
    transcript: TranscriptInput | None = None,
    state: StateInput | None = None,
    state_before: PathLike | None = None,
    packs: list[str] | None = None,
    inconclusive_policy: str | None = None,
    trace_format: str = "auto",
) -> RunOutcome:
    """The engine's RunOutcome for one call (the 1.x call); `grade` gives the typed result."""
    return grade(
        assertions,
        trace=trace,
        transcript=transcript,
        state=state,
        state_before=state_before,
        packs=packs or (),
        inconclusive_policy=inconclusive_policy,
        trace_format=trace_format,
    ).outcome


def run_test(
    test: PathLike | ConversationTest,
    *,
    agent: str | None = None,
    trace: TraceInput | None = None,
    transcript: TranscriptInput | None = None,
    state: StateInput | None = None,
    state_before: PathLike | None = None,
    audio: PathLike | None = None,
    audio_layout: str = "caller-left",
    timing: PathLike | None = None,
    out: PathLike | None = None,
    inconclusive_policy: str | None = None,
    repetitions: int | None = None,
    labels: PathLike | None = None,
    trust: Paths = (),
    judge: JudgeConfig | None = None,
    gate_judge: bool = False,
    sign_key: PathLike | None = None,
    created_at: str | None = None,
    origin: str = "real",
    trace_format: str = "auto",
    trace_keys: Paths = (),
    require_signed_trace: bool = False,
) -> ConversationOutcome:
    """Grade one recorded call against a conversation test, as `hotato test run TEST` does.

    The call is the evidence given, else the test's own `call:` folder. `trace` is a path or a
    loaded Trace or CallEvidence (`load_trace`, `ingest`), `transcript` a path or a Transcript,
    `state` a path or your own object with `query(resource, filters)`. `agent` defaults to the
    test's. With `out`, a tamper-evident artifact is written there (signed with `sign_key` when
    given); it binds the bytes of the trace and transcript, so those must then be paths (a
    loaded object is refused with an InputError, as it is with `labels` and `trace_keys`).
    `labels` (a folder of signed human labels) needs `trust`."""
    return _run(
        test,
        agent=agent,
        trace=trace,
        transcript=transcript,
        state=state,
        state_before=state_before,
        audio=audio,
        audio_layout=audio_layout,
        timing=timing,
        out=out,
        inconclusive_policy=inconclusive_policy,
        repetitions=repetitions,
        labels=labels,
        trust=trust,
        judge=judge,
        gate_judge=gate_judge,
        sign_key=sign_key,
        created_at=created_at,
        origin=origin,
        trace_format=trace_format,
        trace_keys=trace_keys,
        require_signed_trace=require_signed_trace,
    )


def run_trials(
    test: PathLike | ConversationTest,
    trials: PathLike | Sequence[Call | Trace | CallEvidence],
    *,
    k: int | None = None,
    agent: str | None = None,
    out: PathLike | None = None,
    **options: Any,
) -> ConversationOutcome:
    """Grade a test over independently recorded calls: pass@k, pass^k and a Wilson interval;
    with `out`, one artifact per trial inside it.

    `trials` is a folder (one call per sub-folder), or the calls themselves: each a
    `hotato.Call(trace=..., transcript=..., state=..., name=...)` of paths or loaded objects,
    or just a loaded Trace or CallEvidence. `options` are `run_test`'s (state_before, labels,
    trust, judge, sign_key, ...)."""
    if not isinstance(trials, str | os.PathLike):
        calls = tuple(c if isinstance(c, Call) else Call(trace=c) for c in trials)
        return _run(test, agent=agent, out=out, trials=calls, k=k, **options)
    return _run(test, agent=agent, out=out, trials=trials, k=k, **options)


def run_suite(
    folder: PathLike,
    *,
    agent: str | None = None,
    out: PathLike | None = None,
    **options: Any,
) -> ConversationOutcome:
    """Run every conversation test under `folder` against its own call folder (the test's
    `call:`, or a sibling folder named like the file). `agent` defaults to each test's own;
    with `out`, one artifact per test inside it. `options` are `run_test`'s."""
    return _run(folder, agent=agent, out=out, **options)


def _run(test: PathLike | ConversationTest, **kw: Any) -> ConversationOutcome:
    from hotato.runs.conversation import run_request
    from hotato.runs.request import RunRequest

    def fs(value: Any) -> Any:
        return os.fspath(value) if isinstance(value, str | os.PathLike) else value

    policy = kw.pop("inconclusive_policy", None)
    trust = tuple(os.fspath(p) for p in kw.pop("trust", ()))
    trace_keys = tuple(os.fspath(p) for p in kw.pop("trace_keys", ()))
    loaded = test if isinstance(test, ConversationTest) else None
    req = RunRequest.of(
        test_path=_path(test),
        loaded=loaded,
        policy=policy,
        trust=trust,
        trace_keys=trace_keys,
        **{n: fs(v) for n, v in kw.items()},
    )
    return run_request(req)


def _path(test: PathLike | ConversationTest) -> str:
    return "." if isinstance(test, ConversationTest) else os.fspath(test)


def extract_claims(transcript: PathLike, *, packs: Sequence[str] = ()) -> ClaimsFound:
    """The claims of done (or failed) actions in a transcript's agent turns, as
    `hotato claims extract` lists them: `.claims`, each with turn, span, text, type, polarity
    and entities. `packs`: claim packs besides `core` (bundled names or files)."""
    from hotato.runs.claims import find_claims

    return find_claims(os.fspath(transcript), packs)


def check_claims(
    transcript: PathLike,
    *,
    trace: PathLike | None = None,
    state: str | None = None,
    packs: Sequence[str] = (),
    types: Sequence[str] = (),
    promises: bool = False,
    inconclusive_policy: str = "report",
    trace_format: str = "auto",
    tools: PathLike | None = None,
) -> ClaimsGraded:
    """Every claim of one call graded against its trace (and state, where a pack asks), as
    `hotato claims check` grades them: `.results` (status, reason, evidence per claim),
    `.summary` and `.exit_code`. `tools`: the agent's tool catalog (as `--tools`). See
    docs/claims.md."""
    from hotato.model.status import Policy
    from hotato.runs.claims import grade_claims

    return grade_claims(
        os.fspath(transcript),
        os.fspath(trace) if trace is not None else None,
        state,
        packs,
        types,
        promises,
        Policy(inconclusive_policy),
        trace_format,
        os.fspath(tools) if tools is not None else None,
    )


def verify_artifact(folder: PathLike, *, trust: Paths = ()) -> Verification:
    """Re-hash every child an artifact's manifest binds; with `trust` (public keys or folders
    of them) its signature must hold too. Look at `.ok`: a refusal is a verdict, not an error."""
    from hotato.runs.verify import verify_conversation_artifact

    return verify_conversation_artifact(folder, list(trust))


def sign_label(
    artifact: PathLike,
    *,
    assertion_id: str,
    verdict: str,
    reviewer: str,
    key: PathLike | Ed25519PrivateKey,
    note: str = "",
    created_at: str | None = None,
) -> bytes:
    """A reviewer's signed verdict ("pass" or "fail") on one assertion of an artifact: the
    label's bytes (write them to a file in a labels folder)."""
    from hotato.artifacts.labels import sign_label as sign
    from hotato.artifacts.signing import load_private_key

    private = load_private_key(key) if isinstance(key, str | os.PathLike) else key
    return sign(
        artifact,
        assertion_id=assertion_id,
        verdict=verdict,
        reviewer=reviewer,
        private_key=private,
        note=note,
        created_at=created_at,
    )


def verify_label(
    label: PathLike, *, trust: Paths | Trust, artifact: PathLike | None = None
) -> VerifiedLabel:
    """The label at `label` when a trusted key signed it (and, given `artifact`, it is about
    that artifact). Raises an InputError (a SignatureError) when refused."""
    from hotato.artifacts.labels import verify_label as verify
    from hotato.artifacts.signing import Trust, load_trust

    keys = trust if isinstance(trust, Trust) else load_trust(list(trust))
    return verify(label, keys, artifact)


def grade_fleet(
    calls: PathLike,
    *,
    out: PathLike,
    assertions: PathLike | None = None,
    test: PathLike | None = None,
    state: str | None = None,
    state_before: PathLike | None = None,
    packs: Sequence[str] = (),
    inconclusive_policy: str | None = None,
    workers: int | None = None,
    scheduler: str | None = None,
    batch_size: int = 50,
    allow_remote: Sequence[str] = (),
    allow_plaintext_scheduler: bool = False,
    max_file_mib: int = 256,
    call_timeout: float = 300.0,
) -> Progress:
    """Grade every call of `calls` (a folder of call folders, or a JSONL / CSV / Parquet
    manifest; fsspec URLs allowed) against `assertions` (or a conversation test's deterministic
    lane, `test`) into the Parquet results folder `out` (`hotato fleet grade`). Resumable: run
    again with the same `out`. On the local process pool, or a Dask cluster at `scheduler`
    (`tls://`, or `tcp://` on loopback unless `allow_plaintext_scheduler`). A row's file
    behind a URL is read only from the manifest's own place or one `allow_remote` names
    (`"s3://bucket"`). A call whose file is over `max_file_mib` MiB, or still being read after
    `call_timeout` seconds, is refused alone. The returned progress's `totals` count the whole
    folder (`hotato.fleet.verdict.fleet_exit_code` turns them into the CLI's exit code). Needs
    the `fleet` extra."""
    from hotato.fleet.files import Limits
    from hotato.fleet.grade import FleetRequest
    from hotato.fleet.grade import grade_fleet as grade_all

    def opt(path: PathLike | None) -> str | None:
        return None if path is None else str(path)

    request = FleetRequest(
        str(calls),
        str(out),
        opt(assertions),
        opt(test),
        tuple(packs),
        inconclusive_policy,
        state,
        opt(state_before),
        workers,
        scheduler,
        batch_size,
        tuple(allow_remote),
        allow_plaintext_scheduler,
        Limits(max_file_mib << 20, call_timeout),
    )
    return grade_all(request)


def fleet_summary(results: PathLike, *, by: str | None = None) -> Summary:
    """Per assertion (or per agent, day, dimension or kind with `by`): n, pass, fail,
    inconclusive and the pass rate over pass + fail with a Wilson 95% interval, from a
    results folder `grade_fleet` wrote (`hotato fleet summary`). Needs the `fleet` extra."""
    from hotato.fleet.summary import summarize

    return summarize(str(results), by)


@overload
def ingest(source: PathLike, *, fmt: str = "auto") -> Trace: ...


@overload
def ingest(
    source: PathLike,
    *,
    fmt: str = "auto",
    out: PathLike,
    transcript_out: PathLike | None = None,
    include_text: bool = False,
    include_identifiers: bool = False,
) -> IngestResult: ...


def ingest(
    source: PathLike,
    *,
    fmt: str = "auto",
    out: PathLike | None = None,
    transcript_out: PathLike | None = None,
    include_text: bool = False,
    include_identifiers: bool = False,
) -> Trace | IngestResult:
    """A stack's trace (OpenTelemetry, LiveKit, Pipecat, Vapi, Retell, or native) as a Trace
    you can grade; with `out`, written as a voice_trace file instead (`hotato trace ingest`),
    and what was written is returned. `fmt` names the format instead of detecting it."""
    from hotato.evidence import ingest as stacks

    if out is None:
        return stacks.load_any_trace(source, fmt)
    return stacks.ingest(
        source,
        fmt=fmt,
        out=out,
        transcript_out=transcript_out,
        include_text=include_text,
        include_identifiers=include_identifiers,
    )


def score_timing(
    audio: PathLike,
    *,
    layout: str = "caller-left",
    vad: str = "webrtc",
    onset: float | None = None,
    compat: str | None = None,
) -> TimingScore:
    """Score a stereo recording into its timing document, as `hotato timing score` does:
    one event per caller onset in hotato 1.x's names, the whole call under the first event's
    `call`. `layout`: caller-left, agent-left, vapi, retell, twilio, livekit, pipecat. `vad`:
    webrtc, energy, silero. `compat="1.20"`: hotato 1.20's rule and numbers. Needs
    hotato[audio]; see docs/timing.md."""
    from hotato.runs.timing import score_timing as score

    return score(audio, layout=layout, vad=vad, onset=onset, compat=compat)


__all__ = [
    "AssertionSet",
    "AssertionsResult",
    "Call",
    "ConversationOutcome",
    "ConversationTest",
    "Grader",
    "InputError",
    "NotPassed",
    "Problem",
    "UsageError",
    "Verification",
    "check_claims",
    "extract_claims",
    "fleet_summary",
    "grade",
    "grade_fleet",
    "ingest",
    "load_assertions",
    "load_test",
    "load_trace",
    "load_transcript",
    "run_assertions",
    "run_suite",
    "run_test",
    "run_trials",
    "score_timing",
    "sign_label",
    "verify_artifact",
    "verify_label",
]
