"""`hotato fleet`: grade every call of a night, query the results, compare two runs."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from hotato.cli._options import POLICIES, RegistryChoice
from hotato.cli._run import Exit

if TYPE_CHECKING:
    from hotato.model.registry import Registry


@click.group("fleet")
def fleet_group() -> None:
    """Grade a whole fleet of calls into a Parquet results folder, and query it.

    Needs the fleet extra: pip install 'hotato[fleet]' (and 'hotato[s3]' for s3:// paths).
    """


@fleet_group.command("grade")
@click.argument("calls", metavar="CALLS")
@click.option(
    "--assertions",
    metavar="FILE",
    help="The assertions file every call is graded "
    "against (assert.v1). May use ${call.COLUMN} for a manifest column.",
)
@click.option(
    "--test",
    "test",
    metavar="FILE",
    help="A conversation test whose deterministic "
    "assertions every call is graded against (instead of --assertions).",
)
@click.option(
    "--out",
    required=True,
    metavar="RESULTS/",
    help="The results folder (Parquet). "
    "Run again with the same --out to resume: calls already graded are skipped.",
)
@click.option("--pack", "packs", multiple=True, metavar="NAME", help="Merge a bundled pack.")
@click.option(
    "--state",
    metavar="SOURCE",
    help="The system of record, shared by every call (read-only; one connection per worker).",
)
@click.option("--state-before", metavar="FILE", help="A before snapshot for state_change.")
@click.option(
    "--inconclusive-policy",
    type=click.Choice(POLICIES),
    default=None,
    help="Decides each call's exit code (recorded per call).",
)
@click.option(
    "--workers",
    type=click.IntRange(min=1),
    default=None,
    metavar="N",
    help="Local worker processes (default: the machine's cores; 1 grades in this process).",
)
@click.option(
    "--scheduler",
    metavar="tls://HOST:8786",
    help="Run on an existing Dask distributed cluster instead of the local pool: tls:// "
    "with Dask's TLS configuration, or tcp:// on this machine (docs/scale.md).",
)
@click.option(
    "--allow-plaintext-scheduler",
    is_flag=True,
    help="Accept a tcp:// --scheduler on another machine. Dask unpickles the cluster's "
    "answers: only on a network you trust.",
)
@click.option(
    "--allow-remote",
    "allow_remote",
    multiple=True,
    metavar="SCHEME://HOST",
    help="A place manifest rows may name files at (repeatable; e.g. s3://bucket, "
    "https://host). The manifest's own place is allowed; plain http only when named.",
)
@click.option(
    "--batch-size",
    type=click.IntRange(min=1),
    default=50,
    show_default=True,
    help="Calls per task; memory follows it, not the fleet size.",
)
@click.option(
    "--max-file-mib",
    type=click.IntRange(min=1),
    default=256,
    show_default=True,
    metavar="MIB",
    help="A call whose trace, transcript or audio is larger is refused (that call only).",
)
@click.option(
    "--call-timeout",
    type=click.FloatRange(min=0, min_open=True),
    default=300.0,
    show_default=True,
    metavar="SECONDS",
    help="A call whose files are still being read after this long is refused (that call only).",
)
@click.option(
    "--max-refused",
    default="0",
    show_default=True,
    metavar="N|P%",
    help="Refused calls the run accepts before it exits 2: a count (10) or a percent of "
    "the calls (0.5%). By default any refused call makes the exit code 2.",
)
@click.option("--quiet", is_flag=True, help="No progress, only the final line.")
def grade_cmd(
    calls: str,
    assertions: str | None,
    test: str | None,
    out: str,
    packs: tuple[str, ...],
    state: str | None,
    state_before: str | None,
    inconclusive_policy: str | None,
    workers: int | None,
    scheduler: str | None,
    allow_plaintext_scheduler: bool,
    allow_remote: tuple[str, ...],
    batch_size: int,
    max_file_mib: int,
    call_timeout: float,
    max_refused: str,
    quiet: bool,
) -> None:
    """Grade every call in CALLS into the results folder --out.

    CALLS is a folder of call folders (each with a trace, transcript.json and optional audio,
    and an optional call.json of agent, started_at and variables), or a manifest (.jsonl,
    .csv or .parquet) with one row per call: call_id, trace, transcript, audio, agent,
    started_at, and any other columns as per-call variables. Paths may be fsspec URLs
    (s3://, gs://, file://): a URL is read only from the manifest's own place or one that
    --allow-remote names, so a row cannot make hotato request any host it likes.

    A call whose input is missing, corrupt, not a regular file, too large or too slow to read,
    or whose grading fails in any way, is refused on its own row with the reason; the fleet
    goes on.

    \b
    Exit codes: 0 no call failed and none refused; 1 a call FAILed (or was gated by the
    policy); 2 more calls refused than --max-refused accepts (default: none), or the run
    refused (bad assertions, manifest or a ${call.COLUMN} the manifest lacks).

    \b
    Example:
      hotato fleet grade calls.jsonl --assertions refund.yaml --state orders.sqlite \\
          --out results/
    """
    from hotato.cli._fleet_progress import final, reporter
    from hotato.fleet.files import Limits
    from hotato.fleet.grade import FleetRequest, grade_fleet
    from hotato.fleet.verdict import RefusedLimit, fleet_exit_code

    limit = RefusedLimit.parse(max_refused)

    req = FleetRequest(
        calls,
        out,
        assertions,
        test,
        packs,
        inconclusive_policy,
        state,
        state_before,
        workers,
        scheduler,
        batch_size,
        allow_remote,
        allow_plaintext_scheduler,
        Limits(max_file_mib << 20, call_timeout),
    )
    context, update = reporter(quiet)
    with context:
        progress = grade_fleet(req, update)
    click.echo(final(progress, out))
    assert progress.totals is not None
    code = fleet_exit_code(progress.totals, limit)
    if code == 2:
        click.echo(
            f"hotato: refused: {progress.totals.refused} of {progress.totals.calls} call(s) "
            f"refused, more than --max-refused {limit} accepts",
            err=True,
        )
    raise Exit(code)


@fleet_group.command("summary")
@click.argument("results", metavar="RESULTS/")
@click.option(
    "--by",
    type=click.Choice(["agent", "day", "dimension", "kind"]),
    default=None,
    help="Group the rates (by default: one row per assertion).",
)
@click.option(
    "--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True
)
def summary_cmd(results: str, by: str | None, fmt: str) -> None:
    """Per assertion: n, pass, fail, inconclusive and the pass rate with a Wilson 95% interval.

    The rate is pass / (pass + fail); INCONCLUSIVE is never counted as a pass or a fail.
    """
    from hotato.fleet.summary import summarize

    summary = summarize(results, by)
    if fmt == "json":
        from hotato.report.json_out import dumps

        click.echo(dumps(summary.as_dict()), nl=False)
    else:
        from hotato.report.fleet_text import summary_text

        click.echo(summary_text(summary), nl=False)


@fleet_group.command("diff")
@click.argument("before", metavar="BEFORE/")
@click.argument("after", metavar="AFTER/")
@click.option(
    "--limit",
    type=click.IntRange(min=0),
    default=50,
    show_default=True,
    help="Changed calls to list (all are counted).",
)
@click.option(
    "--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True
)
def diff_cmd(before: str, after: str, limit: int, fmt: str) -> None:
    """Which assertions regressed or improved from BEFORE/ to AFTER/ (two results folders).

    Each assertion's pass rate (pass / (pass + fail)) is compared with a two-proportion
    z-test; p < 0.05 is reported as regressed or improved. Calls graded in both runs whose
    status changed are listed.

    \b
    Exit codes: 0 nothing regressed; 1 an assertion regressed; 2 refused.
    """
    from hotato.fleet.diff import diff_runs
    from hotato.fleet.verdict import diff_exit_code

    diff = diff_runs(before, after, limit)
    if fmt == "json":
        from hotato.report.json_out import dumps

        click.echo(dumps(diff.as_dict()), nl=False)
    else:
        from hotato.report.fleet_text import diff_text

        click.echo(diff_text(diff), nl=False)
    raise Exit(diff_exit_code(diff))


@fleet_group.command("report")
@click.argument("results", metavar="RESULTS/")
@click.option("--html", "html_path", required=True, metavar="FILE", help="The page to write.")
def report_cmd(results: str, html_path: str) -> None:
    """Write one self-contained HTML page (nothing fetched when viewed): per-assertion rates
    with Wilson intervals, the worst assertions, the failing calls with their reasons, and
    filters by agent and day. Its numbers are those of `hotato fleet summary`."""
    from hotato._io import write_atomic
    from hotato.fleet.report import report_data
    from hotato.report.fleet_html import render

    write_atomic(html_path, render(report_data(results)).encode())
    click.echo(f"wrote {html_path}")


def _pull_sources() -> Registry[Any]:
    from hotato.fleet.pull import SOURCES

    return SOURCES


@fleet_group.command("pull")
@click.option(
    "--from",
    "vendor",
    type=RegistryChoice(_pull_sources),
    required=True,
    help="The platform whose list-calls API to read.",
)
@click.option(
    "--since",
    required=True,
    metavar="DATE",
    help="Calls started (Retell) or "
    "created (Vapi) at or after this ISO 8601 date or time (UTC unless it says).",
)
@click.option("--until", metavar="DATE", help="And before this one.")
@click.option(
    "--out",
    required=True,
    metavar="CALLS/",
    help="The folder of call folders to "
    "write (with calls.jsonl). Run again to resume: calls already written are kept.",
)
@click.option(
    "--api-key-env",
    metavar="NAME",
    help="The environment variable holding the API "
    "key (default VAPI_API_KEY or RETELL_API_KEY). The key is never printed.",
)
@click.option("--base-url", metavar="URL", help="The API's address (default: the platform's).")
@click.option("--page-size", type=click.IntRange(1, 1000), default=100, show_default=True)
def pull_cmd(
    vendor: str,
    since: str,
    until: str | None,
    out: str,
    api_key_env: str | None,
    base_url: str | None,
    page_size: int,
) -> None:
    """List and download production calls into call folders `fleet grade` reads.

    Each call becomes CALLS/<call id>/ with the platform's call object (trace.json), its
    transcript (transcript.json) and call.json (agent, started_at); CALLS/calls.jsonl lists
    them. Pages, rate limits (429, Retry-After) and server errors are retried.

    \b
    Example:
      VAPI_API_KEY=... hotato fleet pull --from vapi --since 2026-11-30 --out calls/
    """
    from hotato.fleet.pull import SOURCES
    from hotato.fleet.pull.run import parse_time, pull

    result = pull(
        SOURCES[vendor],
        out,
        parse_time(since, "--since"),
        parse_time(until, "--until") if until else None,
        base_url,
        api_key_env,
        page_size,
    )
    click.echo(
        f"pulled {result.written + result.resumed} of {result.listed} call(s) listed by "
        f"{vendor}: {result.written} written, "
        f"{result.resumed} already there ({result.pages} page(s), {result.retries} retried) "
        f"-> {result.manifest}"
    )
