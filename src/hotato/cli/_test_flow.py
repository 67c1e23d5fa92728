"""The work behind `hotato test run`: one call, several trials, or a suite of tests."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import click

from hotato.cli._trace_auth import auth_doc, authenticate, verified_digest
from hotato.conversation.calls import CallFiles, call_files, trial_folders
from hotato.conversation.document import test_run_document
from hotato.conversation.reliability import Aggregate
from hotato.conversation.runner import TestRun, run_test
from hotato.conversation.testfile import ConversationTest, load_test
from hotato.model.errors import InputError
from hotato.model.status import Policy

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
    labels: str | None = None
    trust: tuple[str, ...] = ()
    judge: Any = None  # a hotato.conversation.judge.JudgeConfig, or None for no judge
    gate_judge: bool = False
    sign_key: str | None = None
    trace_keys: tuple[str, ...] = ()
    require_signed_trace: bool = False

    def files(self) -> CallFiles:
        return CallFiles(".", self.transcript, self.trace, self.state, self.audio)

    @property
    def has_evidence(self) -> bool:
        return not self.files().empty


def _check_inputs(files: CallFiles) -> None:
    if files.audio is not None:
        audio = Path(files.audio)
        if audio.is_dir():
            raise InputError.one("--audio is a folder, expected a recording", file=files.audio)
        if not audio.is_file():
            raise InputError.one("audio file does not exist", file=files.audio)


def grade_call(req: Request, test: ConversationTest, files: CallFiles) -> TestRun:
    from hotato.conversation.judge import rubric_lane
    from hotato.engine.sources import open_sources

    _check_inputs(files)
    auth = authenticate(files.trace, req.trace_keys, req.require_signed_trace)
    human = _human(req, test, files)
    sources = open_sources(
        files.trace,
        files.transcript,
        files.state,
        req.state_before,
        req.trace_format,
        verified_digest(auth),
    )
    run = run_test(
        test,
        sources,
        req.agent,
        req.policy,
        req.repetitions,
        rubric_lane=rubric_lane(req.judge),
        gate_judge=req.gate_judge,
        settled=human.settled if human else None,
    )
    if human is not None:
        run.labels = human.as_dict()
    if auth is not None:
        run.trace_auth = auth_doc(auth)
    return run


def _human(req: Request, test: ConversationTest, files: CallFiles) -> Any:
    if req.labels is None:
        return None
    if not req.trust:
        raise InputError.one("--labels needs --trust PUBKEY (or a folder of keys) to verify them")
    from hotato.cli._human import load_human_lane
    from hotato.conversation.identity import call_digests, conversation_id

    conv = conversation_id(test.id, req.agent, call_digests(files))
    known = {s.id for s in [*test.deterministic, *test.rubric]}
    return load_human_lane(req.labels, list(req.trust), conv, known)


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
    info: dict[str, Any] = {"path": out, "manifest": manifest}
    if req.sign_key is not None:
        from hotato.artifacts.manifest_sig import sign_manifest
        from hotato.artifacts.signing import load_private_key

        info["signature"] = str(sign_manifest(out, load_private_key(req.sign_key)))
    return info


def _preflight(req: Request, test: ConversationTest, check_out: bool = True) -> None:
    """Refuse a bad --out, --created-at or --origin before any work, so nothing is written.

    `check_out` is False for a suite's artifact folder inside an --out not yet made."""
    if req.out is None:
        return
    from hotato.artifacts.bundle import check_out_dir
    from hotato.cli._artifact import created_at, origin

    if check_out:
        check_out_dir(req.out)
    if req.sign_key is not None:
        from hotato.artifacts.signing import load_private_key

        load_private_key(req.sign_key)  # a bad key is refused before anything is written
    if req.created_at is not None:
        created_at(req.created_at)
    origin(req.origin, test.simulator)


def _single(
    req: Request, test: ConversationTest, files: CallFiles
) -> tuple[TestRun, dict[str, Any]]:
    _preflight(req, test)
    run = grade_call(req, test, files)
    doc = test_run_document(run)
    if req.out is not None:
        if run.policy is Policy.REFUSE and run.tally.inconclusive:
            # the run refuses outright: a refusal writes nothing
            doc["artifact"] = {
                "path": req.out,
                "written": False,
                "reason": "the inconclusive policy `refuse` refused the run",
            }
        else:
            doc["artifact"] = _artifact(req, test, run, doc, files, req.out)
    return run, doc


def _trials(req: Request, test: ConversationTest) -> tuple[list[TestRun], dict[str, Any]]:
    if req.has_evidence:
        raise InputError.one(
            "--trials reads each call from its folder; drop --trace, "
            "--transcript, --state and --audio"
        )
    calls = trial_folders(str(req.trials))
    n = len(calls)
    k = req.k or n
    if k > n:
        raise InputError.one(f"--k {k} is larger than the number of trials n={n}")
    root = _out_root(req, "trial")
    outs = [str(root / Path(c.folder).name) if root is not None else None for c in calls]
    for out in outs:
        if out is not None:
            _preflight(replace(req, out=out), test, check_out=root is not None and root.exists())
    # Grade every trial before writing anything: a refusal part-way leaves no artifacts behind.
    runs = [grade_call(replace(req, repetitions=1), test, c) for c in calls]
    artifacts: list[dict[str, Any]] = []
    if root is not None:
        root.mkdir(exist_ok=True)
        for c, r, out in zip(calls, runs, outs, strict=True):
            artifacts.append(_artifact(req, test, r, test_run_document(r), c, str(out)))
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
                **({"artifact": artifacts[i]["path"]} if artifacts else {}),
            }
            for i, (c, r) in enumerate(zip(calls, runs, strict=True))
        ],
        "reliability": {
            "runs": [
                {"run": i + 1, "call": Path(c.folder).name, "passed": r.passed}
                for i, (c, r) in enumerate(zip(calls, runs, strict=True))
            ],
            "aggregate": agg.as_dict(),
        },
    }
    # Each condition holds only when it holds in every trial, so the conditions agree with
    # `passed`; the lanes and scorecard beside them are the first trial's (see "trials").
    doc["success"] = {
        **first["success"],
        "conditions": {
            c: all(r.conditions[c] for r in runs) for c in first["success"]["conditions"]
        },
        "passed": all(r.passed for r in runs),
    }
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


def _out_root(req: Request, each: str) -> Path | None:
    """--out for several runs (a suite's tests, or trials): a folder, one artifact per `each`."""
    root = Path(req.out) if req.out is not None else None
    if root is not None:
        if root.is_symlink() or (root.exists() and not root.is_dir()):
            raise InputError.one(
                f"--out here must be a folder (one artifact per {each} inside it)",
                file=str(root),
            )
        if not root.exists() and not root.parent.is_dir():
            raise InputError.one("the folder that would hold --out does not exist", file=str(root))
    return root


def _suite_plan(
    req: Request, tests: list[tuple[ConversationTest, Path]]
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
    root = _out_root(req, "test")
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
            _preflight(replace(req, out=out), test, check_out=root.exists())
        plan.append((test, _suite_call(test, path), out))
    return plan


def _check_junit(path: str | None) -> None:
    """Refuse a --junit that cannot be written before anything runs or is written."""
    if path is None:
        return
    target = Path(path)
    if target.is_dir():
        raise InputError.one("--junit is a folder; give it a file name", file=path)
    if not target.parent.is_dir():
        raise InputError.one("the folder that would hold --junit does not exist", file=path)


def run_request(req: Request, fmt: str, junit_path: str | None, color: bool) -> tuple[int, str]:
    _check_junit(junit_path)
    if req.k is not None and req.trials is None:
        raise InputError.one(
            "--k applies to --trials: replays of one recording all agree, so pass@k and "
            "pass^k equal pass@1 for every k"
        )
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
        items = [
            (f"{test.id}[{Path(t['call']).name}]", r, doc)
            for t, r in zip(doc["trials"], runs, strict=True)
        ]
    else:
        files = req.files()
        if not req.has_evidence and test.call is not None:
            files = call_files(target.parent / test.call)
        run, doc = _single(req, test, files)
        items = [(test.id, run, doc)]
    _write_junit(junit_path, items)
    return doc["exit_code"], _render(fmt, doc, run, color, items)


def _render(
    fmt: str,
    doc: dict[str, Any],
    run: TestRun,
    color: bool,
    items: list[tuple[str, TestRun, dict[str, Any]]],
) -> str:
    if fmt == "json":
        from hotato.report.json_out import dumps

        return dumps(doc)
    if fmt == "junit":
        return _junit_text(items)
    from hotato.report.test_text import render

    text = render(doc, run.results, color)
    if "trials" in doc:
        text += _trials_text(doc)
    return text


def _trials_text(doc: dict[str, Any]) -> str:
    trials = doc["trials"]
    first = Path(trials[0]["call"]).name
    lines = ["", f"trials (independent recorded calls; the lanes above are trial 1, {first}):"]
    for t in trials:
        s = t["summary"]
        lines.append(
            f"  {'PASSED' if t['passed'] else 'FAILED':<7} {Path(t['call']).name}  "
            f"{s['pass']} pass, {s['fail']} fail, {s['inconclusive']} inconclusive; "
            f"exit {t['exit_code']}"
        )
    passes = sum(bool(t["passed"]) for t in trials)
    lines.append(
        f"success over {len(trials)} trial(s): "
        f"{'PASSED' if doc['success']['passed'] else 'FAILED'} ({passes} of {len(trials)} passed); "
        f"exit {doc['exit_code']}"
    )
    return "\n".join(lines) + "\n"


def _junit_text(items: list[tuple[str, TestRun, dict[str, Any]]]) -> str:
    """One testsuite per test (or trial): its deterministic results, plus a `success` testcase
    that fails when a required condition broke, so CI sees a failed test even when no single
    assertion FAILed (say an INCONCLUSIVE under `no_inconclusive`)."""
    import xml.etree.ElementTree as ET

    from hotato.report import junit

    suites = []
    for name, run, _ in items:
        el = junit.suite(name, run.results)
        case = ET.SubElement(el, "testcase", {"classname": f"{name}.success", "name": "success"})
        if not run.passed:
            broken = [c for c, ok in run.conditions.items() if not ok]
            ET.SubElement(
                case,
                "failure",
                {"message": "required condition(s) broken: " + ", ".join(broken), "type": "FAIL"},
            )
            el.set("failures", str(int(el.get("failures", "0")) + 1))
        el.set("tests", str(int(el.get("tests", "0")) + 1))
        suites.append(el)
        if run.rubric:
            suites.append(junit.rubric_suite(name, run.rubric, run.gate_judge))
        if run.labels:
            suites.append(junit.human_suite(name, run.labels))
    return junit.render(suites)


def _write_junit(path: str | None, items: list[tuple[str, TestRun, dict[str, Any]]]) -> None:
    if path is None:
        return
    from hotato._io import write_atomic

    write_atomic(path, _junit_text(items).encode())


def _suite(req: Request, folder: Path, fmt: str, junit_path: str | None) -> tuple[int, str]:
    if req.has_evidence or req.trials is not None:
        raise InputError.one(
            "a suite reads each test's call from its own folder; drop --trace, "
            "--transcript, --state, --audio and --trials"
        )
    tests = _suite_tests(folder)
    plan = _suite_plan(req, tests)
    # Grade every test before writing anything: a refusal part-way leaves no artifacts behind.
    graded = []
    for test, files, out in plan:
        run = grade_call(req, test, files)
        graded.append((test, files, out, run, test_run_document(run)))
    if req.out is not None and not Path(req.out).exists():
        Path(req.out).mkdir()
    items: list[tuple[str, TestRun, dict[str, Any]]] = []
    for test, files, out, run, doc in graded:
        if out is not None:
            doc["artifact"] = _artifact(req, test, run, doc, files, out)
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
