"""Reading the two documents the page and the Markdown summary are made from: a
`hotato.test-run` document, or the `assert.v1` envelope of `assert run`."""

from __future__ import annotations

from hotato.model.reports import AssertRun, TestRun
from hotato.model.results import Result
from hotato.model.rubric import RubricResult

Graded = TestRun | AssertRun
Lanes = tuple[list[Result], list[Result] | list[RubricResult]]


def lanes(doc: Graded) -> Lanes:
    """The deterministic results, and the judge's (the rubric lane), from either shape."""
    if isinstance(doc, TestRun):
        return doc.assertions.results, doc.rubric.results
    return doc.deterministic, doc.judged


def verdict(doc: Graded) -> str:
    """REFUSED (exit 2), else PASSED or FAILED: a test's success, or a run's exit code."""
    if doc.exit_code == 2:
        return "REFUSED"
    ok = doc.success.passed if isinstance(doc, TestRun) else doc.exit_code == 0
    return "PASSED" if ok else "FAILED"
