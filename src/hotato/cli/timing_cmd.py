"""`hotato timing score CALL`: a stereo recording scored into the timing document."""

from __future__ import annotations

import click

from hotato.cli._options import layout_option

VADS = ["webrtc", "energy", "silero"]


@click.group("timing")
def timing_group() -> None:
    """Timing from a call recording: turn-taking events (see docs/timing.md)."""


@timing_group.command("score")
@click.argument("call", metavar="CALL")
@layout_option()
@click.option(
    "--vad",
    type=click.Choice(VADS),
    default="webrtc",
    show_default=True,
    help="Voice-activity detector: webrtc; energy (hotato 1.x's); silero (hotato[audio-silero]).",
)
@click.option(
    "--onset", type=float, metavar="SEC", help="Score one event at this caller onset only."
)
@click.option(
    "--compat",
    type=click.Choice(["1.20"]),
    help="hotato 1.20's event: the first onset only, its energy detector and 0.2 s rule.",
)
@click.option(
    "--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True
)
def score_cmd(
    call: str, layout: str, vad: str, onset: float | None, compat: str | None, fmt: str
) -> None:
    """Score the stereo recording CALL: every caller onset is an event (did the agent stop,
    how fast, how much talk-over, the response gap), plus whole-call figures. The JSON is the
    timing document `--timing` reads.

    A recording that cannot be scored (mono, a silent channel, two copies of one signal) is
    printed with the reason and exits 2.

    \b
    Exit codes: 0 scored; 2 refused or not scorable; 3 internal error.

    \b
    Example:
      hotato timing score call.wav --layout vapi --format json > timing.json
    """
    from hotato.cli._run import Exit
    from hotato.model.status import ExitCode
    from hotato.report.timing_text import render
    from hotato.runs.timing import score_timing

    scored = score_timing(call, layout=layout, vad=vad, onset=onset, compat=compat)
    if fmt == "json":
        click.echo(scored.to_json().decode(), nl=False)
    else:
        click.echo(render(scored.document), nl=False)
    if not scored.scorable:
        raise Exit(ExitCode.REFUSED)
