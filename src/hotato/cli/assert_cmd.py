"""`hotato assert`: run assertion files, write starters, list packs."""

from __future__ import annotations

import sys

import click

from hotato.cli._options import (
    evidence_options,
    layout_option,
    report_format_option,
    timing_option,
    trace_format_option,
)
from hotato.cli._run import Exit


@click.group("assert")
def assert_group() -> None:
    """Grade an agent's claims against the trace, transcript and system of record."""


@assert_group.command("run")
@click.option(
    "--assertions",
    "assertions_path",
    required=True,
    metavar="FILE",
    help="The assertions file (YAML or JSON, assert.v1).",
)
@click.option(
    "--pack",
    "packs",
    multiple=True,
    metavar="NAME",
    help="Merge a bundled pack's assertions into the run (repeatable). See `hotato assert packs`.",
)
@evidence_options
@timing_option()
@click.option(
    "--audio",
    metavar="FILE",
    help="The call's stereo recording: scored into timing (as `hotato timing score` does) "
    "when no --timing is given. Needs hotato[audio].",
)
@layout_option("audio_layout", " (of --audio).")
@report_format_option(
    "Output format. html: one self-contained page (what was said beside what was done); "
    "markdown: a compact table for a pull-request comment, failing checks first."
)
@click.option("--html", "html_path", metavar="FILE", help="Also write the HTML report page here.")
def run_cmd(
    assertions_path: str,
    packs: tuple[str, ...],
    trace: str | None,
    trace_format: str,
    transcript: str | None,
    state: str | None,
    state_before: str | None,
    trace_keys: tuple[str, ...],
    require_signed_trace: bool,
    inconclusive_policy: str | None,
    timing: str | None,
    audio: str | None,
    audio_layout: str,
    fmt: str,
    html_path: str | None,
) -> None:
    """Evaluate an assertions file against one call's evidence.

    Each assertion comes out PASS, FAIL or INCONCLUSIVE. Evidence you leave out is not
    guessed: a check that needs it is INCONCLUSIVE, and says which flag would supply it.

    \b
    Exit codes: 0 no FAIL; 1 a FAIL (or an INCONCLUSIVE under --inconclusive-policy fail);
    2 refused (bad input, or an INCONCLUSIVE under refuse); 3 internal error.

    \b
    Example:
      hotato assert run --assertions assertions.yaml --trace call.jsonl \\
          --transcript turns.json --state sandbox.json
    """
    from hotato.cli._pages import check_target
    from hotato.runs.assertions import grade_assertions

    check_target(html_path, "--html")
    graded = grade_assertions(
        assertions_path,
        packs=packs,
        trace=trace,
        transcript=transcript,
        state=state,
        state_before=state_before,
        trace_format=trace_format,
        trace_keys=trace_keys,
        require_signed_trace=require_signed_trace,
        inconclusive_policy=inconclusive_policy,
        # kept whatever the format: the process ends after printing, and a million spans are
        # not worth freeing one by one on the way out (see _run.Exit's teardown)
        keep_evidence=True,
        timing=timing,
        audio=audio,
        audio_layout=audio_layout,
    )
    from hotato.cli.renderers import CallView, render_call

    view = CallView(
        graded,
        assertions_path,
        (
            ("trace", trace),
            ("transcript", transcript),
            ("state", state),
            ("timing", timing),
            ("audio", None if timing else audio),
        ),
        color=sys.stdout.isatty(),
    )
    outcome = graded.outcome
    page = None
    if html_path is not None:
        from hotato.cli._pages import write_page
        from hotato.cli.renderers.html import call as html_page

        page = html_page(view)
        write_page(html_path, page)
    if fmt == "html" and page is not None:
        click.echo(page, nl=False)
    else:
        click.echo(render_call(fmt, view), nl=False)
    raise Exit(outcome.exit_code, teardown=False)


@assert_group.command("init")
@click.option(
    "--from-trace",
    "from_trace",
    metavar="FILE",
    help="A trace whose tool_call spans seed the starter.",
)
@click.option(
    "--from-transcript",
    "from_transcript",
    metavar="FILE",
    help="A transcript whose claims (see `hotato claims extract`) seed the starter; with "
    "--from-trace too, each claim the trace backs drafts a tool_call.",
)
@click.option(
    "--packs",
    "packs",
    multiple=True,
    metavar="NAME|FILE",
    help="Claim packs besides `core`, for --from-transcript (repeatable).",
)
@click.option(
    "--out",
    metavar="FILE",
    default="assertions.yaml",
    show_default=True,
    help="Where to write the starter; `-` prints it to standard output instead.",
)
@click.option("--force", is_flag=True, help="Overwrite --out if it exists (refused otherwise).")
@trace_format_option
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="How to report what was written.",
)
def init_cmd(
    from_trace: str | None,
    from_transcript: str | None,
    packs: tuple[str, ...],
    out: str,
    force: bool,
    trace_format: str,
    fmt: str,
) -> None:
    """Write a starter assertions file from a trace's tool calls, or from the claims in a
    transcript.

    --from-trace: one tool_call assertion per distinct tool the trace saw, plus one
    require_order assertion once two or more tools were seen. Exit 2 when the trace holds no
    tool calls.

    --from-transcript: one `claims` assertion per claim type the agent's turns hold; with
    --from-trace as well, one tool_call (tool_error, for a claimed failure) per claim the
    trace backs, with the arguments that agreed with what was said. Exit 2 when no claim is
    found.

    The starter is written to assertions.yaml (or --out); an existing file is kept unless
    --force is given. It is a starter to edit, not a claim that these are the right
    assertions for the call.
    """
    written = None if out == "-" else out
    if from_transcript is not None:
        from hotato.runs.starter import write_claims_starter

        names = [p.strip() for item in packs for p in item.split(",") if p.strip()]
        drafted = write_claims_starter(
            from_transcript, from_trace, written, force, trace_format, names
        )
        if fmt == "json":
            from hotato.report.json_out import dumps

            doc = {"kind": "assert-init", "written": written, "assertions": drafted.assertion_count}
            click.echo(dumps(doc), nl=False)
        elif written is None:
            click.echo(drafted.text, nl=False)
        else:
            click.echo(
                f"wrote {out}: {drafted.assertion_count} assertion(s) drafted from claims; "
                "edit it before use"
            )
        return
    if from_trace is None:
        raise click.UsageError("give --from-trace FILE, --from-transcript FILE, or both")
    from hotato.runs.starter import write_starter

    starter = write_starter(from_trace, written, force, trace_format)
    if fmt == "json":
        from hotato.report.json_out import dumps

        click.echo(
            dumps(
                {
                    "kind": "assert-init",
                    "tool_names": starter.tools,
                    "written": written,
                    "assertions": starter.assertion_count,
                }
            ),
            nl=False,
        )
    elif written is None:
        click.echo(starter.text, nl=False)
    else:
        tools = starter.tools
        click.echo(
            f"wrote {out}: {len(tools)} tool_call assertion(s)"
            + (" and a require_order" if len(tools) >= 2 else "")
            + "; edit it before use, then grade a call with\n"
            + f"  hotato assert run --assertions {out} --trace {from_trace}"
        )


@assert_group.command("packs")
@click.option(
    "--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True
)
def packs_cmd(fmt: str) -> None:
    """List the bundled, versioned, offline packs you can merge with --pack or name in a
    `policy` assertion."""
    from hotato.kinds._packs import list_packs

    packs = list_packs()
    if fmt == "json":
        from hotato.report.json_out import dumps

        click.echo(
            dumps(
                {
                    "packs": [
                        {
                            "name": p.name,
                            "version": p.version,
                            "description": p.description,
                            "checks": list(p.checks),
                        }
                        for p in packs
                    ]
                }
            ),
            nl=False,
        )
        return
    for p in packs:
        click.echo(f"{p.name} {p.version}\n  {p.description}")
        for check in p.checks:
            click.echo(f"  - {check}")
