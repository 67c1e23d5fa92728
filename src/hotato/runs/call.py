"""One call graded against one conversation test: trace authentication, human labels, both
lanes, and the artifact that binds it all."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import msgspec

from hotato.artifacts.bundle import SIGNATURE
from hotato.conversation.calls import CallFiles
from hotato.conversation.document import run_document
from hotato.conversation.identity import assertion_digests
from hotato.conversation.runner import ConversationRun, run_test
from hotato.conversation.scorecard import HumanVerdicts
from hotato.conversation.staging import staged
from hotato.conversation.testfile import ConversationTest
from hotato.engine.evaluate import Sources
from hotato.model.errors import InputError
from hotato.model.reports import ArtifactInfo, TestRun
from hotato.model.state import StateRead
from hotato.model.status import Policy
from hotato.runs.human import HumanLane, state_digest
from hotato.runs.request import RunRequest
from hotato.runs.trace_auth import auth_doc, authenticate, verified_digest


def _check_inputs(files: CallFiles) -> None:
    if files.audio is not None:
        audio = Path(files.audio)
        if audio.is_dir():
            raise InputError.one("--audio is a folder, expected a recording", file=files.audio)
        if not audio.is_file():
            raise InputError.one("audio file does not exist", file=files.audio)


def grade_call(req: RunRequest, test: ConversationTest, files: CallFiles) -> ConversationRun:
    """Grade the call in `files` (and the evidence `req` gives as loaded objects) against
    `test`: the trace authenticated first when asked, verified labels settling what they name,
    the judge lane when one is configured."""
    from hotato.conversation.judge import rubric_lane
    from hotato.runs.evidence import sources_of

    req.refuse_unbindable()
    _check_inputs(files)
    auth = authenticate(files.trace, req.evidence.trace_keys, req.evidence.require_signed_trace)
    human = _human(req, test, files)
    objects = req.objects()
    sources = sources_of(
        objects.get("trace", files.trace),
        objects.get("transcript", files.transcript),
        objects.get("state", files.state),
        req.evidence.state_before,
        req.evidence.trace_format,
        verified_digest(auth),
        evidence_state=not files.state_configured,
    )
    from hotato.runs.evidence import attach_timing

    attach_timing(sources, test.deterministic, files.timing, files.audio, req.evidence.audio_layout)
    run = run_test(
        test,
        sources,
        req.options.agent or test.agent,
        req.options.policy,
        req.options.repetitions,
        rubric_lane=rubric_lane(req.options.judge),
        gate_judge=req.options.gate_judge,
        human=_against_state(human) if human else None,
    )
    if human is not None:
        run.labels = human.as_doc()
    if auth is not None:
        run.trace_auth = auth_doc(auth)
    return run


def _against_state(human: HumanLane) -> Callable[[list[StateRead]], HumanVerdicts]:
    """The lane's verdicts once the state is read: each label checked against this run's state
    evidence (the same digest its artifact records)."""
    from hotato.conversation.document import state_evidence
    from hotato.runs.human import state_digest

    def verdicts(reads: list[StateRead]) -> HumanVerdicts:
        return human.against_state(state_digest(state_evidence(reads) if reads else None))

    return verdicts


def _human(req: RunRequest, test: ConversationTest, files: CallFiles) -> HumanLane | None:
    if req.evidence.labels is None:
        return None
    if not req.evidence.trust:
        raise InputError.one("--labels needs --trust PUBKEY (or a folder of keys) to verify them")
    from hotato.conversation.identity import assertion_digests, call_digests, conversation_id
    from hotato.runs.human import load_human_lane

    conv = conversation_id(test.id, req.options.agent or test.agent, call_digests(files))
    digests = assertion_digests([*test.deterministic, *test.rubric])
    return load_human_lane(req.evidence.labels, list(req.evidence.trust), conv, digests)


def write_artifact(
    req: RunRequest,
    test: ConversationTest,
    doc: TestRun,
    files: CallFiles,
    out: str,
    sources: Sources | None = None,
) -> ArtifactInfo:
    """Bind the run's document and evidence into an artifact at `out` (signed when the
    request names a key, with the report page when it asks for one); the document's
    `artifact` entry."""
    from hotato.runs.artifact import bind, created_at, origin

    when = created_at(req.output.created_at)
    signer = None
    if req.output.sign_key is not None:
        from hotato.artifacts.manifest_sig import manifest_envelope
        from hotato.artifacts.signing import load_private_key

        key = load_private_key(req.output.sign_key)

        def signer(manifest: bytes) -> bytes:
            return manifest_envelope(manifest, key)

    page = None
    if req.output.page:
        from hotato.runs.pages import call_page

        page = call_page(doc, test.id, sources).encode()
    manifest = bind(
        out,
        test.id,
        req.options.agent or test.agent,
        when,
        origin(req.output.origin, test.simulator),
        # the bound results also record each assertion's digest and the digest of the state
        # evidence they were graded against, which a label then carries
        {
            **msgspec.to_builtins(doc),
            "assertion_digests": assertion_digests([*test.deterministic, *test.rubric]),
            "state_sha256": state_digest(doc.state_evidence),
        },
        files,
        doc.state_evidence,
        signer,
        page,
        req.evidence.audio_layout,
    )
    # signed inside the staging folder, before the swap
    signature = str(Path(out) / SIGNATURE) if req.output.sign_key is not None else None
    return ArtifactInfo(path=out, manifest=manifest, signature=signature)


def preflight(req: RunRequest, test: ConversationTest, check_out: bool = True) -> None:
    """Refuse a bad --out, --created-at or --origin before any work, so nothing is written.

    `check_out` is False for a suite's artifact folder inside an --out not yet made."""
    if req.output.out is None:
        return
    from hotato.artifacts.bundle import check_out_dir
    from hotato.runs.artifact import created_at, origin

    if check_out:
        check_out_dir(req.output.out)
    if req.output.sign_key is not None:
        from hotato.artifacts.signing import load_private_key

        load_private_key(req.output.sign_key)  # a bad key is refused before anything is written
    if req.output.created_at is not None:
        created_at(req.output.created_at)
    origin(req.output.origin, test.simulator)


def single(
    req: RunRequest, test: ConversationTest, files: CallFiles
) -> tuple[ConversationRun, TestRun]:
    """Grade one call and, with `req.output.out`, write its artifact (never under a refusal)."""
    preflight(req, test)
    with staged(files) as call:  # each input read once: what is graded is what is bound
        return _single(req, test, call)


def _single(
    req: RunRequest, test: ConversationTest, files: CallFiles
) -> tuple[ConversationRun, TestRun]:
    run = grade_call(req, test, files)
    doc = run_document(run)
    if req.output.out is not None:
        if run.policy is Policy.REFUSE and run.tally.inconclusive:
            # the run refuses outright: a refusal writes nothing
            doc.artifact = ArtifactInfo(
                path=req.output.out,
                written=False,
                reason="the inconclusive policy `refuse` refused the run",
            )
        else:
            doc.artifact = write_artifact(req, test, doc, files, req.output.out, run.sources)
    return run, doc
