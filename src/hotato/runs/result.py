"""What grading one call against an assertions file gives back, typed, with its JSON."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import msgspec

from hotato.engine.evaluate import Sources
from hotato.engine.run import RunOutcome
from hotato.model.reports import AssertRun
from hotato.model.results import Result
from hotato.model.status import Policy, Status
from hotato.runs.trace_auth import auth_doc

if TYPE_CHECKING:
    from hotato.artifacts.trace_auth import TraceAuth


class NotPassed(AssertionError):
    """A graded call did not pass; the message is its verdict table."""


class AssertionsResult(msgspec.Struct):
    """One call graded against an assertions file: every result in document order, the
    inconclusive policy that decided the exit code, and the trace's authentication when a
    check of its signature was asked for."""

    outcome: RunOutcome
    auth: TraceAuth | None = None
    sources: Sources | None = None  # the call's evidence, kept when asked (for the report page)

    def __repr__(self) -> str:
        """Short enough for pytest to show whole: `assert result.passed` explains itself."""
        parts = [f"exit {self.exit_code}", f"policy {self.policy.value}"]
        if self.failed:
            parts.append("FAIL: " + ", ".join(r.id for r in self.failed))
        if self.inconclusive:
            parts.append("INCONCLUSIVE: " + ", ".join(r.id for r in self.inconclusive))
        return f"AssertionsResult({'; '.join(parts)})"

    @property
    def results(self) -> list[Result]:
        return self.outcome.results

    @property
    def policy(self) -> Policy:
        return self.outcome.policy

    @property
    def exit_code(self) -> int:
        """0, 1 or 2, exactly as `hotato assert run` would exit."""
        return int(self.outcome.exit_code)

    @property
    def passed(self) -> bool:
        """True when the exit code is 0: no FAIL, and no INCONCLUSIVE the policy counts."""
        return self.exit_code == 0

    @property
    def inconclusive(self) -> list[Result]:
        return [r for r in self.outcome.deterministic if r.status is Status.INCONCLUSIVE]

    @property
    def failed(self) -> list[Result]:
        return [r for r in self.outcome.deterministic if r.status is Status.FAIL]

    @property
    def document(self) -> AssertRun:
        """The assert.v1 envelope, typed: what the renderers take and `to_json` encodes."""
        from hotato.report.json_out import envelope

        return envelope(self.outcome, auth_doc(self.auth) if self.auth is not None else None)

    def to_dict(self) -> dict[str, Any]:
        """The assert.v1 envelope (`hotato assert run --format json`) as JSON data."""
        out: dict[str, Any] = msgspec.to_builtins(self.document)
        return out

    def to_json(self) -> str:
        """The assert.v1 envelope exactly as `hotato assert run --format json` prints it."""
        from hotato.report.json_out import dumps

        return dumps(self.document)

    def table(self, title: str = "hotato") -> str:
        """The verdict table `hotato assert run` prints, under `title`."""
        from hotato.report.text import render

        return render(self.outcome, title)

    def assert_passed(self, title: str = "hotato") -> None:
        """Raise NotPassed (an AssertionError) with the verdict table unless the call passed."""
        if not self.passed:
            raise NotPassed(self.table(title))
