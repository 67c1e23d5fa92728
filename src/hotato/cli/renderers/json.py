"""JSON: the `assert.v1` envelope of a call; a test run nests it under `assertions`."""

from __future__ import annotations

from hotato.cli.renderers import CallView, OutcomeView, Renderer


def call(view: CallView) -> bytes:
    from hotato.report.json_out import encoded

    return encoded(view.graded.document)  # bytes: written as they are


def outcome(view: OutcomeView) -> str:
    return view.outcome.to_json()


JSON = Renderer(call, outcome)
