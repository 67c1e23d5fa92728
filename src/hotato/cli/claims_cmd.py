"""`hotato claims`: find what the agent said it did, and check it against the record."""

from __future__ import annotations

import click

from hotato.cli._options import POLICIES, trace_format_option
from hotato.cli._run import Exit

FORMATS = ["text", "json"]


def _pack_names(packs: tuple[str, ...]) -> list[str]:
    return [p.strip() for item in packs for p in item.split(",") if p.strip()]


def packs_option(f: click.decorators.FC) -> click.decorators.FC:
    return click.option(
        "--packs",
        "packs",
        multiple=True,
        metavar="NAME|FILE",
        help="Claim packs to use besides `core` (repeatable, or comma-separated): a bundled "
        "pack's name or your own pack file. See `hotato claims packs` and docs/claims.md.",
    )(f)


@click.group("claims")
def claims_group() -> None:
    """Find the agent's claims of completed (or failed) actions and check them against the
    trace and the system of record. Deterministic: claim packs of RE2 patterns, no model."""


@claims_group.command("extract")
@click.option("--transcript", required=True, metavar="FILE", help="The call's transcript.")
@packs_option
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="text", show_default=True)
def extract_cmd(transcript: str, packs: tuple[str, ...], fmt: str) -> None:
    """List the claims in the agent's turns: type, polarity (done, failed, promised,
    negated), the entities stated (amounts, dates, times, counts, ids; spoken numbers read as
    digits), the turn (0-based) and the character span.

    \b
    Example:
      hotato claims extract --transcript turns.json --format json
    """
    from hotato.report import claims_out
    from hotato.runs.claims import find_claims

    found = find_claims(transcript, _pack_names(packs))
    pack_set, claims = found.packs, found.claims
    if fmt == "json":
        from hotato.report.json_out import dumps

        click.echo(dumps(claims_out.extract_doc(claims, pack_set)), nl=False)
        return
    header = f"hotato claims extract: {len(claims)} claim(s) in {transcript}"
    click.echo(claims_out.extract_text(claims, header), nl=False)


@claims_group.command("check")
@click.option("--transcript", required=True, metavar="FILE", help="The call's transcript.")
@click.option("--trace", metavar="FILE", help="The call's trace (what the agent did).")
@trace_format_option
@click.option(
    "--state",
    metavar="SOURCE",
    help="The system of record, for packs whose types ask it (as for `assert run`).",
)
@packs_option
@click.option(
    "--tools",
    "tools",
    metavar="FILE",
    help="The agent's tool catalog (OpenAI / JSON-Schema function definitions, an MCP tools "
    "list, a Vapi assistant's tools, Pipecat or LiveKit function schemas). Claims are aligned "
    "with its tools; without it, with the tools the trace shows.",
)
@click.option(
    "--type",
    "types",
    multiple=True,
    metavar="TYPE",
    help="Grade only claims of these types (repeatable).",
)
@click.option(
    "--promises",
    is_flag=True,
    help="Grade `promised` claims too: the promised action must follow later in the call.",
)
@click.option(
    "--inconclusive-policy",
    type=click.Choice(POLICIES),
    default="report",
    show_default=True,
    help="What an INCONCLUSIVE claim costs: report, fail (exit 1), refuse (exit 2).",
)
@click.option(
    "--format", "fmt", type=click.Choice([*FORMATS, "junit"]), default="text", show_default=True
)
def check_cmd(
    transcript: str,
    trace: str | None,
    trace_format: str,
    state: str | None,
    packs: tuple[str, ...],
    tools: str | None,
    types: tuple[str, ...],
    promises: bool,
    inconclusive_policy: str,
    fmt: str,
) -> None:
    """Grade each claim against the record. PASS: a matching action ran and succeeded with
    the values that were said. FAIL: the trace was read and no such action succeeded, or it
    ran with other values, or a claimed failure contradicts a success. INCONCLUSIVE: the
    evidence that would settle it was not supplied, or the claim cannot be aligned with any
    tool of the catalog (--tools, else the trace's tools) while other actions ran. Negated
    claims (and promises, without --promises) are listed and not graded.

    \b
    Exit codes: 0 no FAIL; 1 a claim FAILs (or an INCONCLUSIVE under --inconclusive-policy
    fail); 2 refused (bad input, or an INCONCLUSIVE under refuse); 3 internal error.

    \b
    Example:
      hotato claims check --transcript turns.json --trace call.jsonl --format json
      hotato claims check --transcript turns.json --trace call.jsonl --tools tools.json
    """
    from hotato.model.status import Policy
    from hotato.report import claims_out
    from hotato.runs.claims import grade_claims

    graded = grade_claims(
        transcript,
        trace,
        state,
        _pack_names(packs),
        types,
        promises,
        Policy(inconclusive_policy),
        trace_format,
        tools,
    )
    results, totals, code = graded.results, graded.summary, graded.exit_code
    if fmt == "json":
        from hotato.report.json_out import dumps

        click.echo(
            dumps(claims_out.check_doc(results, totals, graded.packs, code, graded.policy)),
            nl=False,
        )
    elif fmt == "junit":
        from hotato.claims.results import as_results
        from hotato.report import junit

        suite = junit.suite(f"claims:{transcript}", as_results(results))
        click.echo(junit.render([suite]), nl=False)
    else:
        given = ", ".join(f"{k}: {v}" for k, v in (("trace", trace), ("state", state)) if v)
        header = (
            f"hotato claims check: {len(results)} claim(s) in {transcript} "
            f"({given or 'no trace: claims are INCONCLUSIVE'})"
        )
        click.echo(claims_out.check_text(results, totals, header), nl=False)
    raise Exit(code)


@claims_group.command("packs")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="text", show_default=True)
def packs_cmd(fmt: str) -> None:
    """List the bundled claim packs, their versions and the claim types they define."""
    from hotato.claims.pack import bundled_names, load_pack

    infos = [load_pack(n).info for n in bundled_names()]
    if fmt == "json":
        from hotato.report.json_out import dumps

        doc = {
            "packs": [
                {
                    "name": i.name,
                    "version": i.version,
                    "description": i.description,
                    "sha256": i.sha256,
                    "types": list(i.types),
                }
                for i in infos
            ]
        }
        click.echo(dumps(doc), nl=False)
        return
    for i in infos:
        click.echo(f"{i.name} {i.version}\n  {i.description}")
        for t in i.types:
            click.echo(f"  - {t}")
