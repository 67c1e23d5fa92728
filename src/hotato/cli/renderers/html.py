"""HTML: one self-contained page, what was said beside what was done."""

from __future__ import annotations

from hotato.cli.renderers import CallView, OutcomeView, Renderer


def call(view: CallView) -> str:
    from hotato.runs.pages import call_page

    return call_page(view.graded.document, view.assertions_path, view.graded.sources)


def outcome(view: OutcomeView) -> str:
    from hotato.runs.pages import outcome_page

    return outcome_page(view.outcome, view.page_path)


HTML = Renderer(call, outcome)
