"""A folder of conversation tests, each graded against its own call folder."""

from __future__ import annotations

import contextlib
from pathlib import Path

from hotato.conversation.calls import CallFiles, call_files
from hotato.conversation.discover import find_tests
from hotato.conversation.document import run_document
from hotato.conversation.staging import staged
from hotato.conversation.testfile import ConversationTest, load_test
from hotato.model.errors import InputError
from hotato.model.reports import TestSuite
from hotato.runs.call import grade_call, preflight, write_artifact
from hotato.runs.outcome import ConversationOutcome, Graded
from hotato.runs.request import RunRequest
from hotato.runs.trials import out_root


def suite_tests(folder: Path) -> list[tuple[ConversationTest, Path]]:
    """Every conversation test under `folder` (see hotato.conversation.discover), loaded."""
    found = [(load_test(path), path) for path in find_tests(folder)]
    if not found:
        raise InputError.one(
            "the folder holds no conversation tests (files with kind: hotato.conversation-test)",
            file=str(folder),
        )
    return found


def call_folder(test: ConversationTest, path: Path) -> Path:
    """Where a test's recorded call lives: its `call:` folder, or a sibling folder named like
    the file (`refund.yaml` -> `refund/` or `refund.call/`)."""
    if test.call is not None:
        return path.parent / test.call
    for candidate in (path.parent / path.stem, path.parent / f"{path.stem}.call"):
        if candidate.is_dir():
            return candidate
    raise InputError.one(
        "no call folder for this test: add `call: FOLDER` to the test, or put "
        f"the call in a sibling folder named {path.stem!r}",
        file=str(path),
    )


def suite_call(test: ConversationTest, path: Path) -> CallFiles:
    """The test's call: its `call:` folder, or a sibling folder named like the file."""
    return call_files(call_folder(test, path))


def calls_in(folder: Path, name: str) -> list[tuple[str, CallFiles]]:
    """The calls a folder holds, each with the id users see: the folder itself when it holds a
    call (`name`), else one per sub-folder holding one (`name[sub-folder]`), as trials."""
    files = call_files(folder)
    if not files.empty:
        return [(name, files)]
    from hotato.conversation.calls import trial_folders

    return [(f"{name}[{Path(c.folder).name}]", c) for c in trial_folders(folder)]


def _plan(
    req: RunRequest, tests: list[tuple[ConversationTest, Path]]
) -> list[tuple[ConversationTest, CallFiles, str | None]]:
    """Each test with its call folder and artifact folder, every one checked up front."""
    seen: dict[str, Path] = {}
    for test, path in tests:
        if test.id in seen:
            raise InputError.one(
                f"two tests share the id {test.id!r} (the other is {seen[test.id]}); "
                "ids name each test's artifact and must be unique in a suite",
                file=str(path),
            )
        seen[test.id] = path
    root = out_root(req, "test")
    plan = []
    for test, path in tests:
        out = None
        if root is not None:
            if test.id in (".", "..") or Path(test.id).name != test.id or "\\" in test.id:
                raise InputError.one(
                    f"test id {test.id!r} cannot name an artifact folder inside --out",
                    file=str(path),
                )
            out = str(root / test.id)
            preflight(req.but(out=out), test, check_out=root.exists())
        plan.append((test, req.state_for(suite_call(test, path)), out))
    return plan


def suite(req: RunRequest, folder: Path) -> ConversationOutcome:
    """Grade every test in `folder`, then write the artifacts (none when one refuses)."""
    if req.has_call_evidence or req.evidence.trials is not None:
        raise InputError.one(
            "a suite reads each test's call from its own folder; drop --trace, "
            "--transcript, --audio, --timing and --trials (--state names the system of "
            "record every call is read against)"
        )
    plan = _plan(req, suite_tests(folder))
    # Grade every test before writing anything: a refusal part-way leaves no artifacts behind.
    graded = []
    items: list[Graded] = []
    with contextlib.ExitStack() as stack:  # each call's inputs read once, graded and bound
        for test, files, out in plan:
            call = stack.enter_context(staged(files))
            run = grade_call(req.for_test(test), test, call)
            graded.append((test, call, out, run, run_document(run)))
        if req.output.out is not None and not Path(req.output.out).exists():
            Path(req.output.out).mkdir()
        for test, call, out, run, doc in graded:
            if out is not None:
                doc.artifact = write_artifact(req.for_test(test), test, doc, call, out, run.sources)
            items.append(Graded(test.id, run, doc))
    document = TestSuite(
        version=1,
        exit_code=max((g.document.exit_code for g in items), default=0),
        passed=all(g.run.passed for g in items),
        tests=[g.document for g in items],
    )
    return ConversationOutcome(document, items, suite=folder)
