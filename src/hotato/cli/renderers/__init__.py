"""Output formats: one module per format, one line each in RENDERERS.

A format's module offers a `Renderer`: how it shows one graded call (`assert run`) and a
conversation-test outcome (`test run`). `--format` takes its choices from this table, and a
format that is not in it is refused before anything runs, never printed as text. A team's own
format is installed with pip and registered in the `hotato.renderers` entry-point group (see
CONTRIBUTING.md).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import msgspec

from hotato.model.errors import Problem, UsageError
from hotato.model.registry import Registry

if TYPE_CHECKING:
    from hotato.runs.outcome import ConversationOutcome
    from hotato.runs.result import AssertionsResult


class CallView(msgspec.Struct, frozen=True):
    """One graded call as `assert run` shows it."""

    graded: AssertionsResult
    assertions_path: str
    given: tuple[tuple[str, str | None], ...]  # (evidence name, what the user gave) in flag order
    color: bool


class OutcomeView(msgspec.Struct, frozen=True):
    """A `test run` outcome as shown; `page_path` is where an HTML page goes, for its links."""

    outcome: ConversationOutcome
    color: bool
    page_path: str | None = None


class Renderer(msgspec.Struct, frozen=True):
    """Either side may be None: that command then refuses the format."""

    call: Callable[[CallView], str | bytes] | None = None
    outcome: Callable[[OutcomeView], str] | None = None


RENDERERS: Registry[Renderer] = Registry(
    "output format",
    Renderer,
    {
        "text": "hotato.cli.renderers.text:TEXT",
        "json": "hotato.cli.renderers.json:JSON",
        "junit": "hotato.cli.renderers.junit:JUNIT",
        "html": "hotato.cli.renderers.html:HTML",
        "markdown": "hotato.cli.renderers.markdown:MARKDOWN",
    },
    group="hotato.renderers",
)


def render_call(fmt: str, view: CallView) -> str | bytes:
    """`assert run`'s output in `fmt`; an unknown format, or one without a call side, refused."""
    show = RENDERERS.require(fmt).call
    if show is None:
        raise UsageError([Problem(f"output format {fmt!r} does not show an assertions run")])
    return show(view)


def render_outcome(fmt: str, view: OutcomeView) -> str:
    """`test run`'s output in `fmt`; an unknown format, or one without a test side, refused."""
    show = RENDERERS.require(fmt).outcome
    if show is None:
        raise UsageError([Problem(f"output format {fmt!r} does not show a test run")])
    return show(view)


__all__ = ["RENDERERS", "CallView", "OutcomeView", "Renderer", "render_call", "render_outcome"]
