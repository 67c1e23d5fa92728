"""`hotato test run`: conversation tests against recorded calls, one, several trials, or a suite."""

from __future__ import annotations

import sys
from typing import Any

import click

from hotato.cli._options import (
    evidence_options,
    layout_option,
    report_format_option,
    timing_option,
)
from hotato.cli._run import Exit


@click.group("test")
def conversation_tests_group() -> None:
    """Run conversation tests (hotato.conversation-test v1) against recorded calls."""


@conversation_tests_group.command("run")
@click.argument("test_path", metavar="TEST|DIR")
@click.option(
    "--agent", required=True, metavar="ID", help="The agent under test (recorded in the artifact)."
)
@evidence_options
@click.option(
    "--audio", metavar="FILE", help="The call's recording, bound into the artifact by digest."
)
@layout_option("audio_layout", " (of --audio, when it is scored into timing).")
@timing_option("; bound into the artifact. In --trials folders: each call's timing.json.")
@click.option(
    "--out",
    metavar="DIR",
    help="Write the tamper-evident artifact here (new, empty, or an "
    "earlier artifact, which is replaced whole).",
)
@click.option(
    "--repetitions",
    type=click.IntRange(min=1),
    metavar="N",
    help="Replay the deterministic lane N times (overrides the file).",
)
@click.option(
    "--trials",
    metavar="DIR",
    help="A folder of recorded calls of this test, one per "
    "sub-folder: independent trials for pass@k, pass^k and a Wilson interval.",
)
@click.option("--k", "k", type=click.IntRange(min=1), help="k for pass@k and pass^k (default: n).")
@click.option(
    "--created-at",
    metavar="TS",
    help="Pin the artifact's time (ISO 8601) for a byte-identical artifact.",
)
@click.option(
    "--origin",
    "origin",
    type=click.Choice(["real", "simulated", "fixture"]),
    default="real",
    show_default=True,
    help="Where the call came from.",
)
@report_format_option(
    "html: one self-contained page (said beside done, scorecard, trials, suite rows); "
    "markdown: a compact table for a pull-request comment or CI job summary."
)
@click.option("--junit", "junit_path", metavar="FILE", help="Also write JUnit XML here.")
@click.option(
    "--html",
    "html_path",
    metavar="FILE",
    help="Also write the HTML report page here. With --out, each artifact binds it as report.html.",
)
@click.option(
    "--sign",
    "sign_key",
    metavar="KEY",
    help="Sign the artifact's manifest with this "
    "Ed25519 private key (PEM or OpenSSH); `conversation verify --trust` checks it.",
)
@click.option(
    "--labels",
    metavar="DIR",
    help="A folder of signed human labels (`hotato label "
    "sign`): each verified label stands beside its assertion as authority human.",
)
@click.option(
    "--trust",
    multiple=True,
    metavar="PUBKEY",
    help="A public key (or a folder of them) trusted to sign labels. Needed with --labels.",
)
@click.option(
    "--judge-endpoint",
    metavar="URL",
    help="An OpenAI-compatible chat endpoint (e.g. a "
    "local Ollama or vLLM server) for judge_rubric criteria. Advisory: never in the exit "
    "code unless --gate-judge.",
)
@click.option(
    "--judge-model",
    default="default",
    show_default=True,
    metavar="NAME",
    help="The model the judge endpoint should use.",
)
@click.option(
    "--judge-egress-opt-in",
    is_flag=True,
    help="Allow a judge endpoint that is not on "
    "this machine (transcripts leave it; HTTPS required).",
)
@click.option(
    "--judge-cache",
    metavar="DIR",
    default=None,
    help="Where judge verdicts are cached by endpoint, model, prompt and evidence digest, so a "
    "rerun replays them. Default: the user's cache folder ($XDG_CACHE_HOME/hotato/judge, else "
    "~/.cache/hotato/judge), never the working tree.",
)
@click.option("--no-store", is_flag=True, help="Neither read nor write the judge cache.")
@click.option(
    "--judge-timeout",
    type=click.FloatRange(min=0.1),
    default=30.0,
    show_default=True,
    help="Seconds the judge may take per request.",
)
@click.option(
    "--gate-judge",
    is_flag=True,
    help="Let the rubric lane decide the build: a rubric "
    "FAIL exits 1, a judge ERROR with no FAIL exits 2.",
)
def run_cmd(
    test_path: str,
    fmt: str,
    junit_path: str | None,
    html_path: str | None,
    judge_endpoint: str | None,
    judge_model: str,
    judge_egress_opt_in: bool,
    judge_cache: str | None,
    no_store: bool,
    judge_timeout: float,
    inconclusive_policy: str | None,
    **given: Any,
) -> None:
    """Grade a recorded call against a conversation test.

    The deterministic lane runs; the rubric lane is quarantined (INCONCLUSIVE and counted
    apart unless a judge is configured). Success is a boolean over the test's named
    conditions; there is no overall score. The exit code follows the inconclusive policy
    exactly as `assert run`, raised to 1 when a required condition fails.

    \b
    TEST may be a folder: every conversation test in it runs against its call folder
    (the test's `call:` key, or a sibling folder named like the file), one line per test.

    \b
    A call folder's state.json is evidence, read as data only (a JSON sandbox or a SQLite
    file); an adapter file or database URL there is refused. A live system of record is
    given with --state, which every call of a suite or of --trials is then read against.

    \b
    Examples:
      hotato test run refund.yaml --agent support-v3 --transcript turns.json \\
          --trace call.jsonl --state sandbox.json --out ./conv-artifact
      hotato test run refund.yaml --agent support-v3 --trials ./recorded-calls --k 3
      hotato test run tests/ --agent support-v3 --junit report.xml
      hotato test run tests/ --agent support-v3 --format markdown --html report.html
    """
    from hotato.cli._pages import check_target, write_page
    from hotato.cli._test_output import check_junit, write_junit
    from hotato.cli.renderers import OutcomeView, render_outcome
    from hotato.runs.conversation import run_request
    from hotato.runs.request import RunRequest

    judge = None
    if judge_endpoint is not None:
        from pathlib import Path

        from hotato.conversation.judge import JudgeConfig, default_cache_dir

        judge = JudgeConfig(
            endpoint=judge_endpoint,
            model=judge_model,
            cache_dir=None if no_store else Path(judge_cache or default_cache_dir()),
            egress_opt_in=judge_egress_opt_in,
            timeout=judge_timeout,
        )
    # every other option is a field of the request by its own name (RunRequest.of)
    req = RunRequest.of(
        test_path,
        policy=inconclusive_policy,
        judge=judge,
        page=fmt == "html" or html_path is not None,
        **given,
    )
    check_junit(junit_path)
    check_target(html_path, "--html")
    outcome = run_request(req)
    for note in outcome.notes:
        click.echo(f"hotato: note: {note}", err=True)
    write_junit(junit_path, outcome.items)
    view = OutcomeView(outcome, color=sys.stdout.isatty(), page_path=html_path)
    page = None
    if html_path is not None:
        from hotato.cli.renderers.html import outcome as html_page

        page = html_page(view)
        write_page(html_path, page)
    click.echo(page if fmt == "html" and page is not None else render_outcome(fmt, view), nl=False)
    raise Exit(outcome.exit_code)
