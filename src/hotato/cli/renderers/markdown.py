"""Markdown: a compact table for a pull-request comment, failing checks first."""

from __future__ import annotations

from hotato.cli.renderers import CallView, OutcomeView, Renderer


def call(view: CallView) -> str:
    from hotato.report.markdown import call as call_table

    return call_table(view.graded.document, view.assertions_path)


def outcome(view: OutcomeView) -> str:
    from hotato.report import markdown

    shown = view.outcome
    if shown.suite is not None:
        named = [(g.name, g.document) for g in shown.items]
        return markdown.suite(named, str(shown.suite), shown.exit_code)
    first = shown.items[0].document
    return markdown.call(first, first.test_id)


MARKDOWN = Renderer(call, outcome)
