"""The work behind `hotato test run`: one call, several trials, or a suite of tests."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import click

from hotato.conversation.calls import CallFiles, call_files, trial_folders
from hotato.conversation.document import test_run_document
from hotato.conversation.reliability import Aggregate
from hotato.conversation.runner import TestRun, run_test
from hotato.conversation.testfile import ConversationTest, load_test
from hotato.model.errors import InputError

TEST_SUFFIXES = (".yaml", ".yml", ".json")


@dataclass(frozen=True)
class Request:
    test_path: str
    agent: str
    trace: str | None = None
    trace_format: str = "auto"
    transcript: str | None = None
    state: str | None = None
    state_before: str | None = None
    audio: str | None = None
    policy: str | None = None
    out: str | None = None
    repetitions: int | None = None
    trials: str | None = None
    k: int | None = None
    created_at: str | None = None
    origin: str = "real"

    def files(self) -> CallFiles:
        return CallFiles(".", self.transcript, self.trace, self.state, self.audio)

    @property
    def has_evidence(self) -> bool:
        return not self.files().empty


def _check_inputs(files: CallFiles) -> None:
    for what, path in (("audio", files.audio),):
        if path is not None and not Path(path).is_file():
            raise InputError.one(f"{what} file does not exist", file=path)


def grade_call(req: Request, test: ConversationTest, files: CallFiles) -> TestRun:
    from hotato.engine.sources import open_sources

    _check_inputs(files)
    sources = open_sources(
        files.trace, files.transcript, files.state, req.state_before, req.trace_format
    )
    return run_test(test, sources, req.agent, req.policy, req.repetitions)


def _artifact(
    req: Request,
    test: ConversationTest,
    run: TestRun,
    doc: dict[str, Any],
    files: CallFiles,
    out: str,
) -> dict[str, Any]:
    from hotato.cli._artifact import bind, created_at, origin

    when = created_at(req.created_at)
    manifest = bind(
        out,
        test.id,
        req.agent,
        when,
        origin(req.origin, test.simulator),
        doc,
        files,
        doc.get("state_evidence"),
    )
    return {"path": out, "manifest": manifest}


def _single(
    req: Request, test: ConversationTest, files: CallFiles
) -> tuple[TestRun, dict[str, Any]]:
    if req.out is not None:
        from hotato.artifacts.bundle import check_out_dir

        check_out_dir(req.out)  # refuse before any work, so nothing is written on a bad --out
        if req.created_at is not None:
            from hotato.cli._artifact import created_at

            created_at(req.created_at)
        if req.origin == "simulated" and not test.simulator:
            from hotato.cli._artifact import origin

            origin(req.origin, test.simulator)
    run = grade_call(req, test, files)
    doc = test_run_document(run)
    if req.out is not None:
        doc["artifact"] = _artifact(req, test, run, doc, files, req.out)
    return run, doc


def _trials(req: Request, test: ConversationTest) -> tuple[list[TestRun], dict[str, Any]]:
    if req.has_evidence:
        raise InputError.one(
            "--trials reads each call from its folder; drop --trace, "
            "--transcript, --state and --audio"
        )
    if req.out is not None:
        raise InputError.one(
            "--out binds one call; with --trials, run each trial folder on its "
            "own to keep its artifact"
        )
    calls = trial_folders(str(req.trials))
    n = len(calls)
    k = req.k or n
    if k > n:
        raise InputError.one(f"--k {k} is larger than the number of trials n={n}")
    runs = [grade_call(replace(req, repetitions=1), test, c) for c in calls]
    passes = sum(r.passed for r in runs)
    agg = Aggregate(n, k, passes, independent=True)
    first = test_run_document(runs[0])
    doc = {
        **first,
        "exit_code": int(max(r.exit_code for r in runs)),
        "trials": [
            {
                "call": c.folder,
                "passed": r.passed,
                "exit_code": int(r.exit_code),
                "summary": r.tally.as_dict(),
            }
            for c, r in zip(calls, runs, strict=True)
        ],
        "reliability": {
            "runs": [
                {"run": i + 1, "call": Path(c.folder).name, "passed": r.passed}
                for i, (c, r) in enumerate(zip(calls, runs, strict=True))
            ],
            "aggregate": agg.as_dict(),
        },
    }
    doc["success"] = {**first["success"], "passed": all(r.passed for r in runs)}
    return runs, doc


def _suite_tests(folder: Path) -> list[tuple[ConversationTest, Path]]:
    found = []
    for path in sorted(folder.iterdir()):
        if path.suffix.lower() not in TEST_SUFFIXES or not path.is_file():
            continue
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        if "hotato.conversation-test" not in text:
            continue
        found.append((load_test(path), path))
    if not found:
        raise InputError.one(
            "the folder holds no conversation tests (files with kind: hotato.conversation-test)",
            file=str(folder),
        )
    return found


def _suite_call(test: ConversationTest, path: Path) -> CallFiles:
    if test.call is not None:
        return call_files(path.parent / test.call)
    for candidate in (path.parent / path.stem, path.parent / f"{path.stem}.call"):
        if candidate.is_dir():
            return call_files(candidate)
    raise InputError.one(
        "no call folder for this test: add `call: FOLDER` to the test, or put "
        f"the call in a sibling folder named {path.stem!r}",
        file=str(path),
    )


def run_request(req: Request, fmt: str, junit_path: str | None, color: bool) -> tuple[int, str]:
    target = Path(req.test_path)
    if target.is_dir():
        return _suite(req, target, fmt, junit_path)
    test = load_test(req.test_path)
    if req.agent != test.agent:
        click.echo(
            f"hotato: note: --agent {req.agent!r} differs from the test's agent "
            f"{test.agent!r}; the artifact records {req.agent!r}",
            err=True,
        )
    if req.trials is not None:
        runs, doc = _trials(req, test)
        run = runs[0]
    else:
        files = req.files()
        if not req.has_evidence and test.call is not None:
            files = call_files(target.parent / test.call)
        run, doc = _single(req, test, files)
    _write_junit(junit_path, [(test.id, run, doc)])
    return doc["exit_code"], _render(fmt, doc, run, color)


def _render(fmt: str, doc: dict[str, Any], run: TestRun, color: bool) -> str:
    if fmt == "json":
        from hotato.report.json_out import dumps

        return dumps(doc)
    if fmt == "junit":
        return _junit_text([(run.test.id, run, doc)])
    from hotato.report.test_text import render

    return render(doc, run.results, color)


def _junit_text(items: list[tuple[str, TestRun, dict[str, Any]]]) -> str:
    from hotato.report import junit

    return junit.render([junit.suite(test_id, run.results) for test_id, run, _ in items])


def _write_junit(path: str | None, items: list[tuple[str, TestRun, dict[str, Any]]]) -> None:
    if path is None:
        return
    from hotato.artifacts._safe_io import write_atomic

    write_atomic(path, _junit_text(items).encode())


def _suite(req: Request, folder: Path, fmt: str, junit_path: str | None) -> tuple[int, str]:
    if req.has_evidence or req.trials is not None:
        raise InputError.one(
            "a suite reads each test's call from its own folder; drop --trace, "
            "--transcript, --state, --audio and --trials"
        )
    tests = _suite_tests(folder)
    items: list[tuple[str, TestRun, dict[str, Any]]] = []
    for test, path in tests:
        out = str(Path(req.out) / test.id) if req.out is not None else None
        if out is not None:
            Path(req.out or "").mkdir(parents=True, exist_ok=True)
        run, doc = _single(replace(req, out=out), test, _suite_call(test, path))
        items.append((test.id, run, doc))
    _write_junit(junit_path, items)
    code = max((int(doc["exit_code"]) for _, _, doc in items), default=0)
    failed = [tid for tid, run, _ in items if not run.passed]
    if fmt == "json":
        from hotato.report.json_out import dumps

        return code, dumps(
            {
                "kind": "hotato.test-suite",
                "version": 1,
                "exit_code": code,
                "passed": not failed,
                "tests": [doc for _, _, doc in items],
            }
        )
    if fmt == "junit":
        return code, _junit_text(items)
    lines = [f"hotato test run: suite {folder} ({len(items)} test(s))", ""]
    for tid, run, doc in items:
        t = run.tally
        lines.append(
            f"  {'PASSED' if run.passed else 'FAILED':<7} {tid}  "
            f"{t.passed} pass, {t.failed} fail, {t.inconclusive} inconclusive; "
            f"exit {doc['exit_code']}"
        )
    lines += ["", f"suite: {len(items) - len(failed)} passed, {len(failed)} failed; exit {code}"]
    return code, "\n".join(lines) + "\n"
