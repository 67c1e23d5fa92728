"""The report page of a graded call, of a test over its trials, or of a suite: the run's JSON
document and the call's evidence handed to the page renderer (hotato.report.page)."""

from __future__ import annotations

import os
from pathlib import Path

from hotato.engine.evaluate import Sources
from hotato.model.reports import AssertRun, TestRun
from hotato.report.page import CallInput, render_call, render_suite
from hotato.runs.outcome import ConversationOutcome

REPORT_FILE = "report.html"  # the page's name inside an artifact


def call_input(
    doc: TestRun | AssertRun, title: str, sources: Sources | None, link: str | None = None
) -> CallInput:
    """A graded call as the page takes it: its document, and the evidence it was graded on."""
    bound = doc.state_evidence if isinstance(doc, TestRun) else None
    entries = bound.entries if bound is not None else None
    state = sources.state if sources is not None else None
    if entries is None and state is not None and state.reads:
        from hotato.conversation.document import state_evidence

        entries = state_evidence(state.reads).entries
    return CallInput(
        doc,
        title,
        sources.trace if sources is not None else None,
        sources.transcript if sources is not None else None,
        entries or [],
        link,
    )


def call_page(doc: TestRun | AssertRun, title: str, sources: Sources | None) -> str:
    """The page of one graded call."""
    return render_call(call_input(doc, title, sources))


def relative_link(target: str, page_path: str | None) -> str:
    """A link from the page (or the working folder, for a page on standard output) to a file:
    always relative, starting with `./` or `../`, never a scheme."""
    base = Path(page_path).parent if page_path is not None else Path(".")
    rel = os.path.relpath(target, base).replace(os.sep, "/")
    return rel if rel.startswith("../") else f"./{rel}"


def outcome_page(outcome: ConversationOutcome, page_path: str | None = None) -> str:
    """The page of a `test run`: one call, a test over its trials (the first trial's evidence
    beside every trial's figures), or a suite with one row per test linking to the test's own
    page when its artifact holds one. `page_path` is where the page will be written, for links."""
    if outcome.suite is None:
        first = outcome.items[0]
        return call_page(first.document, first.document.test_id, first.run.sources)
    calls = []
    for g in outcome.items:
        art = g.document.artifact
        link = None
        if art is not None and "report" in (art.manifest or {}).get("artifacts", {}):
            link = relative_link(str(Path(art.path) / REPORT_FILE), page_path)
        calls.append(call_input(g.document, g.name, g.run.sources, link))
    return render_suite(f"suite {outcome.suite}", calls, outcome.passed, outcome.exit_code)
