"""`hotato demo`: a bundled call in which the agent claims a refund the trace and data deny."""

from __future__ import annotations

import shutil
import sys
from importlib import resources
from pathlib import Path

import click

from hotato.cli._run import Exit

FILES = ("assertions.yaml", "trace.jsonl", "transcript.json", "orders.sqlite")


def demo_dir() -> Path:
    return Path(str(resources.files("hotato") / "demo"))


@click.command("demo")
@click.option(
    "--write",
    "write_to",
    metavar="DIR",
    help="Copy the demo's files into DIR (created) to run them yourself.",
)
@click.option(
    "--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True
)
@click.option(
    "--html",
    "html_path",
    metavar="FILE",
    help="Also write the demo's report page here: open it in a browser.",
)
def demo(write_to: str | None, fmt: str, html_path: str | None) -> None:
    """Run the bundled demo call and print its verdicts.

    The agent tells the caller "your refund has been sent". hotato reads the three pieces of
    evidence side by side: what was said (the transcript), what the agent did (the trace:
    no issue_refund span) and what the data shows (the orders table still says `none`).
    The demo exits 0 once it has printed the verdicts; `hotato assert run` on the same files
    exits 1, as a CI gate would.
    """
    from hotato.cli._pages import check_target
    from hotato.runs.assertions import grade_assertions

    check_target(html_path, "--html")
    src = demo_dir()
    if write_to is not None:
        _write(src, Path(write_to))
        return
    graded = grade_assertions(
        src / "assertions.yaml",
        trace=src / "trace.jsonl",
        transcript=src / "transcript.json",
        state=str(src / "orders.sqlite"),
        keep_evidence=True,
    )
    outcome, sources = graded.outcome, graded.sources
    assert sources is not None  # kept: keep_evidence
    if html_path is not None:
        from hotato.cli._pages import write_page
        from hotato.report.json_out import envelope
        from hotato.runs.pages import call_page

        title = "hotato demo: a refund claimed"
        write_page(html_path, call_page(envelope(outcome), title, sources))
    if fmt == "json":
        from hotato.report.json_out import dumps, envelope

        click.echo(dumps(envelope(outcome)), nl=False)
        raise Exit(0)
    from hotato.cli._demo_story import story

    click.echo(story(sources, outcome, color=sys.stdout.isatty()), nl=False)
    if html_path is not None:
        click.echo(f"\nThe report page is in {html_path}: open it in a browser.")
    raise Exit(0)


def _write(src: Path, dest: Path) -> None:
    if dest.exists() and any(dest.iterdir()):
        from hotato.model.errors import InputError

        raise InputError.one("refusing to write into a folder that is not empty", file=str(dest))
    dest.mkdir(parents=True, exist_ok=True)
    for name in FILES:
        shutil.copyfile(src / name, dest / name)
    click.echo(
        f"wrote the demo call to {dest}/. Try:\n"
        f"  cd {dest} && hotato assert run --assertions assertions.yaml "
        "--trace trace.jsonl --transcript transcript.json --state orders.sqlite"
    )
