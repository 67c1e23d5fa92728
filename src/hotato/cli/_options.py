"""Options shared by `assert run` and `test run`, declared once."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import click

from hotato.evidence.formats import CHOICES

if TYPE_CHECKING:
    from hotato.model.registry import Registry

POLICIES = ["report", "fail", "refuse"]
LAYOUTS = ["caller-left", "agent-left", "vapi", "retell", "twilio", "livekit", "pipecat"]
_LAYOUT_HELP = (
    "Which channel is whom: caller-left / agent-left, or the recording's source "
    "(vapi, retell, pipecat and twilio: caller left; livekit: agent left)"
)

_TIMING_HELP = (
    "Measured timing of the call (a JSON object, or a list of events) for latency "
    "`field` and outcome `field_present` checks"
)


def timing_option(more: str = "") -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """--timing FILE, wherever a command grades timing checks; `more` adds to its help."""
    return click.option("--timing", metavar="FILE", help=_TIMING_HELP + (more or "."))


def layout_option(
    dest: str = "layout", more: str = "."
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """--layout, wherever a stereo recording is scored; `more` adds to its help."""
    return click.option(
        "--layout",
        dest,
        type=click.Choice(LAYOUTS),
        default="caller-left",
        show_default=True,
        help=_LAYOUT_HELP + more,
    )


class RegistryChoice(click.Choice):
    """A choice among a registry's names, the registry imported only when the option is used
    or its help shown. A built-in name is accepted without reading the installed plug-ins; the
    full list (plug-ins included) is read for help and refusals."""

    def __init__(self, registry: Callable[[], Registry[Any]]) -> None:
        self._registry = registry
        super().__init__(())

    @property
    def registry(self) -> Registry[Any]:
        return self._registry()

    @property
    def choices(self) -> tuple[str, ...]:
        return self.registry.names()

    @choices.setter
    def choices(self, _: Any) -> None:
        pass  # always the registry's own names

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if value in self.registry.builtin_names:
            return value
        return super().convert(value, param, ctx)


def _renderers() -> Registry[Any]:
    from hotato.cli.renderers import RENDERERS

    return RENDERERS


def report_format_option(help: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """--format for the commands that print a report: the output formats' registry."""
    return click.option(
        "--format",
        "fmt",
        type=RegistryChoice(_renderers),
        default="text",
        show_default=True,
        help=help,
    )


def _file(exists: bool = False) -> click.Path:
    return click.Path(dir_okay=False, exists=False) if not exists else click.Path(dir_okay=False)


# --trace-format, wherever a command reads a trace
trace_format_option = click.option(
    "--trace-format",
    default="auto",
    show_default=True,
    metavar="FORMAT",
    help="Name the trace's format instead of detecting it: " + ", ".join(CHOICES) + ".",
)


def evidence_options(f: Callable[..., Any]) -> Callable[..., Any]:
    options = [
        click.option(
            "--trace",
            "trace",
            metavar="FILE",
            help="The call's trace: hotato.voice_trace.v1 JSONL, "
            "or what your stack exported (OpenTelemetry, LiveKit, Pipecat, Vapi, Retell).",
        ),
        trace_format_option,
        click.option("--transcript", metavar="FILE", help="The call's transcript (JSON turns)."),
        click.option(
            "--state",
            metavar="SOURCE",
            help="The system of record after the call: a JSON "
            "sandbox, a SQLite file, a postgresql:// or mysql:// URL, or an adapter file.",
        ),
        click.option(
            "--state-before",
            metavar="FILE",
            help="A before snapshot (from `hotato state snapshot`) for state_change.",
        ),
        click.option(
            "--trace-key",
            "trace_keys",
            multiple=True,
            metavar="PUBKEY",
            help="A trusted public key (or folder of keys): the trace's DSSE signature "
            "(TRACE.dsse.json, from `hotato trace sign`) is checked before any check reads it. "
            "Results record whether the trace was authenticated.",
        ),
        click.option(
            "--require-signed-trace",
            is_flag=True,
            help="Refuse (exit 2) a trace that is unsigned or not signed by a --trace-key.",
        ),
        click.option(
            "--inconclusive-policy",
            type=click.Choice(POLICIES),
            default=None,
            help="What an INCONCLUSIVE costs: report (default; exit code ignores it), "
            "fail (exit 1), refuse (exit 2). Overrides the file's own setting.",
        ),
    ]
    for option in reversed(options):
        f = option(f)
    return f
