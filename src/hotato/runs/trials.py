"""A test graded over a folder of independently recorded calls: pass@k, pass^k, a Wilson
interval, and one artifact per trial."""

from __future__ import annotations

import contextlib
from pathlib import Path

from msgspec.structs import replace

from hotato.conversation.calls import CallFiles, trial_folders
from hotato.conversation.document import run_document
from hotato.conversation.reliability import Aggregate
from hotato.conversation.runner import ConversationRun
from hotato.conversation.scorecard import scorecard
from hotato.conversation.staging import staged
from hotato.conversation.testfile import ConversationTest
from hotato.model.errors import InputError
from hotato.model.reports import ArtifactInfo, Counts, Reliability, RunRow, TestRun, TrialRow
from hotato.runs.call import grade_call, preflight, write_artifact
from hotato.runs.request import RunRequest


def out_root(req: RunRequest, each: str) -> Path | None:
    """--out for several runs (a suite's tests, or trials): a folder, one artifact per `each`."""
    root = Path(req.output.out) if req.output.out is not None else None
    if root is not None:
        if root.is_symlink() or (root.exists() and not root.is_dir()):
            raise InputError.one(
                f"--out here must be a folder (one artifact per {each} inside it)",
                file=str(root),
            )
        if not root.exists() and not root.parent.is_dir():
            raise InputError.one("the folder that would hold --out does not exist", file=str(root))
    return root


def trial_calls(req: RunRequest) -> list[tuple[CallFiles, RunRequest]]:
    """Each trial's files, and the request that grades it: the sub-folders of a trials folder,
    or the Calls given as objects (named `call-1`, `call-2`, ... unless named)."""
    if req.evidence.trials is None or isinstance(req.evidence.trials, str):
        return [(req.state_for(c), req) for c in trial_folders(str(req.evidence.trials))]
    if not req.evidence.trials:
        raise InputError.one("no trials were given (an empty list of calls)")
    names = [c.name or f"call-{i + 1}" for i, c in enumerate(req.evidence.trials)]
    for name in names:
        if names.count(name) > 1 or name in (".", "..") or Path(name).name != name:
            raise InputError.one(
                f"trial name {name!r} must be unique and a plain name (it names the trial's "
                "results and its artifact folder)"
            )
    for name, c in zip(names, req.evidence.trials, strict=True):
        if c.trace is None and c.transcript is None and c.state is None:
            raise InputError.one(
                f"trial {name!r} holds no evidence (no trace, transcript or state)"
            )
    each = [req.with_call(c) for c in req.evidence.trials]
    return [(r.files(name), r) for r, name in zip(each, names, strict=True)]


def trials(req: RunRequest, test: ConversationTest) -> tuple[list[ConversationRun], TestRun]:
    """Grade every trial in `req.evidence.trials`, then write the artifacts (none when one
    refuses)."""
    if req.has_call_evidence:
        raise InputError.one(
            "--trials reads each call from its folder; drop --trace, "
            "--transcript, --audio and --timing (--state names the system of record every "
            "trial is read against)"
        )
    plan = trial_calls(req)
    calls = [c for c, _ in plan]
    n = len(calls)
    k = req.options.k or n
    if k > n:
        raise InputError.one(f"--k {k} is larger than the number of trials n={n}")
    root = out_root(req, "trial")
    outs = [str(root / Path(c.folder).name) if root is not None else None for c in calls]
    for out in outs:
        if out is not None:
            preflight(
                req.but(out=out),
                test,
                check_out=root is not None and root.exists(),
            )
    # Grade every trial before writing anything: a refusal part-way leaves no artifacts behind.
    # Each call's inputs are read once: the bytes graded are the bytes bound.
    with contextlib.ExitStack() as stack:
        calls = [stack.enter_context(staged(c)) for c in calls]
        runs = [
            grade_call(r.but(repetitions=1), test, c) for c, (_, r) in zip(calls, plan, strict=True)
        ]
        artifacts: list[ArtifactInfo] = []
        if root is not None:
            root.mkdir(exist_ok=True)
            for c, r, out in zip(calls, runs, outs, strict=True):
                artifacts.append(write_artifact(req, test, run_document(r), c, str(out), r.sources))
    passes = sum(r.passed for r in runs)
    agg = Aggregate(n, k, passes, independent=True).figures()
    first = run_document(runs[0])
    graded = list(zip(calls, runs, strict=True))
    # Each condition holds only when it holds in every trial, so the conditions agree with
    # `passed`; the lanes and scorecard beside them are the first trial's (see "trials").
    success = replace(
        first.success,
        conditions={c: all(r.conditions[c] for r in runs) for c in first.success.conditions},
        passed=all(r.passed for r in runs),
    )
    doc = replace(
        first,
        exit_code=int(max(r.exit_code for r in runs)),
        success=success,
        dimensions=scorecard(runs[0].results, test.report_dimensions, agg),
        trials=[
            TrialRow(
                call=c.folder,
                passed=r.passed,
                exit_code=int(r.exit_code),
                summary=Counts.of(r.results),
                artifact=artifacts[i].path if artifacts else None,
            )
            for i, (c, r) in enumerate(graded)
        ],
    )
    if first.reliability is not None:  # left out of the scorecard, left out here
        doc.reliability = Reliability(
            runs=[
                RunRow(run=i + 1, call=Path(c.folder).name, passed=r.passed)
                for i, (c, r) in enumerate(graded)
            ],
            aggregate=agg,
        )
    return runs, doc
