"""hotato's pytest plugin (entry point `pytest11`): recorded calls as pytest tests.

Inert unless used. `pytest --hotato DIR` (or `hotato_paths = DIR ...` in the pytest ini)
collects, under each DIR:

- every conversation test (see hotato.conversation.discover): one item per recorded call, the
  test's call folder (`test-id`) or each trial in it (`test-id[call-1]`), as `hotato test run`
  names them;
- every assertions file `NAME.yaml` beside a folder `NAME/` of recorded calls: one item per
  call (`NAME`, or `NAME[call-1]`), graded by one long-lived Grader.

A FAIL fails the item with the verdict table as its failure text. An INCONCLUSIVE follows the
file's inconclusive policy: `report` passes with a warning pytest lists in its summary, `fail`
fails, `refuse` is an error (as is refused input). `-k`, `-x`, `--junitxml` and xdist work as
for any test. The `hotato` fixture grades by hand:

    def test_refund(hotato):
        result = hotato.grade("assertions.yaml", trace="call.jsonl", state="orders.db")
        result.assert_passed()
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from hotato.conversation.calls import CallFiles
    from hotato.runs.grader import Grader

SUFFIXES = (".yaml", ".yml", ".json")


class HotatoInconclusive(UserWarning):
    """A graded call passed under the `report` policy with checks left INCONCLUSIVE."""


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("hotato", "grading recorded calls with hotato")
    group.addoption(
        "--hotato",
        action="append",
        default=[],
        metavar="DIR",
        help="Collect the conversation tests and assertion suites under DIR as tests (repeatable).",
    )
    parser.addini(
        "hotato_paths",
        type="paths",
        default=[],
        help="Folders whose conversation tests and assertion suites are collected as tests.",
    )
    group.addoption(
        "--hotato-state",
        default=None,
        metavar="SOURCE",
        help="The system of record every collected call is read against (an adapter file, a "
        "database URL, a sandbox), instead of each call folder's own state.json.",
    )
    parser.addini(
        "hotato_state",
        default="",
        help="As --hotato-state, in the project's configuration (relative to the ini file).",
    )


def configured_state(config: pytest.Config) -> str | None:
    """The system of record from the command line or the ini file, else None (each call
    folder's own state.json, read as data only)."""
    given = config.getoption("hotato_state", None)
    if given:
        return str(given)
    ini = str(config.getini("hotato_state") or "")
    if not ini:
        return None
    if "://" in ini or Path(ini).is_absolute() or config.inipath is None:
        return ini
    return str(config.inipath.parent / ini)


def _roots(config: pytest.Config) -> list[Path]:
    given = [Path(p) for p in config.getoption("hotato") or []]
    from_ini = [Path(p) for p in config.getini("hotato_paths") or []]
    return [p.resolve() for p in [*given, *from_ini]]


def pytest_configure(config: pytest.Config) -> None:
    roots = _roots(config)
    config.stash[_ROOTS] = roots
    if not roots:
        return
    config.addinivalue_line("markers", "hotato: a recorded call graded by hotato")
    covered = [Path(a.split("::")[0]).resolve() for a in config.args]
    for root in roots:
        if not root.is_dir():
            raise pytest.UsageError(f"--hotato {root}: not a folder")
        if not any(root == c or c in root.parents for c in covered):
            config.args.append(str(root))


_ROOTS = pytest.StashKey[list[Path]]()


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    roots = parent.config.stash.get(_ROOTS, [])
    if not roots or file_path.suffix.lower() not in SUFFIXES:
        return None
    resolved = file_path.resolve()
    if not any(r == resolved.parent or r in resolved.parents for r in roots):
        return None
    from hotato.conversation.discover import is_test_file

    if is_test_file(file_path):
        return ConversationFile.from_parent(parent, path=file_path)
    if (file_path.parent / file_path.stem).is_dir() and _is_assertions(file_path):
        return AssertionsFile.from_parent(parent, path=file_path)
    return None


def _is_assertions(path: Path) -> bool:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    return "assertions" in text and "hotato.conversation-test" not in text


class ConversationFile(pytest.File):
    """A conversation test: one item per recorded call."""

    def collect(self) -> Iterator[pytest.Item]:
        from hotato.conversation.testfile import load_test
        from hotato.runs.suite import call_folder, calls_in

        test = load_test(self.path)
        for name, files in calls_in(call_folder(test, self.path), test.id):
            yield CallItem.from_parent(self, name=name, test=test, files=files)


class AssertionsFile(pytest.File):
    """An assertions file beside a folder of calls: one item per call, one Grader for all."""

    _grader: Grader | None = None

    def collect(self) -> Iterator[pytest.Item]:
        from hotato.runs.suite import calls_in

        for name, files in calls_in(self.path.parent / self.path.stem, self.path.stem):
            yield CallItem.from_parent(self, name=name, test=None, files=files)

    def grader(self) -> Grader:
        if self._grader is None:
            from hotato.runs.grader import Grader

            self._grader = Grader(self.path, state=configured_state(self.config))
        return self._grader

    def teardown(self) -> None:
        if self._grader is not None:
            self._grader.close()
            self._grader = None


class CallItem(pytest.Item):
    """One recorded call graded against its test or assertions file."""

    def __init__(self, *, test: Any, files: CallFiles, **kw: Any) -> None:
        super().__init__(**kw)
        self.test = test
        self.files = files
        self.add_marker("hotato")
        self._verdict: tuple[int, int, str] | None = None  # exit code, inconclusive, table

    def setup(self) -> None:
        from hotato.model.errors import InputError

        try:
            self._verdict = self._grade()
        except InputError as exc:
            pytest.fail(f"hotato: refused:\n{exc}", pytrace=False)  # in setup: an error
        code, _, table = self._verdict
        if code >= 2:
            pytest.fail(table, pytrace=False)

    def _grade(self) -> tuple[int, int, str]:
        if self.test is None:
            assert isinstance(self.parent, AssertionsFile)
            from hotato.runs.evidence import state_source

            f = self.files
            # the configured state, else the call folder's state.json: evidence, data only
            configured = configured_state(self.config) is not None
            state = None if configured else state_source(f.state, None, evidence=True)
            result = self.parent.grader().grade(trace=f.trace, transcript=f.transcript, state=state)
            return result.exit_code, len(result.inconclusive), result.table(self.nodeid)
        from hotato.conversation.document import run_document
        from hotato.report.run_text import render
        from hotato.runs.call import grade_call
        from hotato.runs.request import RunRequest

        req = RunRequest.of(
            test_path=str(self.path),
            loaded=self.test,
            repetitions=1,
            state=configured_state(self.config),
        )
        run = grade_call(req.for_test(self.test), self.test, req.state_for(self.files))
        return (
            int(run.exit_code),
            run.tally.inconclusive,
            render(run_document(run), run.results),
        )

    def runtest(self) -> None:
        assert self._verdict is not None
        code, inconclusive, table = self._verdict
        if code == 1:
            pytest.fail(table, pytrace=False)
        if inconclusive:
            message = (
                f"{self.name}: {inconclusive} check(s) INCONCLUSIVE, passed under the "
                "inconclusive policy `report`"
            )
            # located at the test file, where the policy is set, not in this plugin
            warnings.warn_explicit(HotatoInconclusive(message), None, str(self.path), 1)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, None, self.name


class HotatoFixture:
    """The `hotato` fixture: the library's calls, for hand-written tests."""

    def grade(self, assertions: Any, **kw: Any) -> Any:
        """`hotato.grade`: the typed result; `.assert_passed()` raises with the table."""
        from hotato.api import grade

        return grade(assertions, **kw)

    def run_test(self, test: Any, **kw: Any) -> Any:
        """`hotato.run_test`: a conversation test against one recorded call."""
        from hotato.api import run_test

        return run_test(test, **kw)

    def grader(self, assertions: Any, **kw: Any) -> Grader:
        """A long-lived `hotato.Grader` (closed by you, or use it in a `with`)."""
        from hotato.runs.grader import Grader

        return Grader(assertions, **kw)


@pytest.fixture
def hotato() -> HotatoFixture:
    """Grade recorded calls in a test: `hotato.grade(...)`, `hotato.run_test(...)`."""
    return HotatoFixture()


def pytest_assertrepr_compare(
    config: pytest.Config, op: str, left: Any, right: Any
) -> list[str] | None:
    """`assert result == ...` on a graded result explains itself with the verdict table."""
    from hotato.runs.result import AssertionsResult

    for side in (left, right):
        if isinstance(side, AssertionsResult):
            return [f"graded result {op} {right!r}", *side.table("hotato").splitlines()]
    return None
