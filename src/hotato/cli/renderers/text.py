"""Text: the terminal report (colour when stdout is a terminal)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from hotato.cli.renderers import CallView, OutcomeView, Renderer

if TYPE_CHECKING:
    from hotato.runs.outcome import ConversationOutcome


def call(view: CallView) -> str:
    from hotato.report.text import render

    outcome, auth = view.graded.outcome, view.graded.auth
    given = ", ".join(f"{k}: {v}" for k, v in view.given if v) or "no evidence"
    count = len(outcome.results)
    header = f"hotato assert run: {count} assertion(s) from {view.assertions_path} ({given})"
    if auth is not None:
        header += "\ntrace " + (
            "authenticated by key " + str(auth.key_id)
            if auth.authenticated
            else f"NOT authenticated: {auth.reason}"
        )
    return render(outcome, header, color=view.color)


def outcome(view: OutcomeView) -> str:
    shown = view.outcome
    if shown.suite is not None:
        return _suite_text(shown.suite, shown)
    from hotato.report.run_text import render as render_run
    from hotato.report.run_text import trials_text

    doc = shown.items[0].document
    text = render_run(doc, shown.run.results, view.color)
    if doc.trials is not None:
        text += trials_text(doc, doc.trials)
    return text


def _suite_text(folder: Path, outcome: ConversationOutcome) -> str:
    items = outcome.items
    failed = [g for g in items if not g.run.passed]
    lines = [f"hotato test run: suite {folder} ({len(items)} test(s))", ""]
    for g in items:
        t = g.run.tally
        lines.append(
            f"  {'PASSED' if g.run.passed else 'FAILED':<7} {g.name}  "
            f"{t.passed} pass, {t.failed} fail, {t.inconclusive} inconclusive; "
            f"exit {g.document.exit_code}"
        )
    code = outcome.exit_code
    lines += ["", f"suite: {len(items) - len(failed)} passed, {len(failed)} failed; exit {code}"]
    return "\n".join(lines) + "\n"


TEXT = Renderer(call, outcome)
