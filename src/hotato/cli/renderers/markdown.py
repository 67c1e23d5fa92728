"""Markdown: a compact table for a pull-request comment, failing checks first."""

from __future__ import annotations

from hotato.cli.renderers import CallView, Renderer, TestView


def call(view: CallView) -> str:
    from hotato.report.markdown import call as call_table

    return call_table(view.graded.document, view.assertions_path)


def test(view: TestView) -> str:
    from hotato.report import markdown

    outcome = view.outcome
    if outcome.suite is not None:
        named = [(g.name, g.document) for g in outcome.items]
        return markdown.suite(named, str(outcome.suite), outcome.exit_code)
    first = outcome.items[0].document
    return markdown.call(first, first.test_id)


MARKDOWN = Renderer(call, test)
