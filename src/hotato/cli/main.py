"""`hotato`: the front door. Command groups load lazily so start-up stays small."""

from __future__ import annotations

import gc
import importlib
import importlib.util
import os
import sys

import click

from hotato._version import __version__

# name -> (module, attribute, one-line help). Modules load only when their command runs.
COMMANDS: dict[str, tuple[str, str, str]] = {
    "assert": (
        "hotato.cli.assert_cmd",
        "assert_group",
        "Grade claims against a trace, transcript and state.",
    ),
    "claims": (
        "hotato.cli.claims_cmd",
        "claims_group",
        "Find what the agent said it did, and check it against the record.",
    ),
    "test": (
        "hotato.cli.conversation_tests_cmd",
        "conversation_tests_group",
        "Run conversation tests and bind the evidence.",
    ),
    "scenario": (
        "hotato.cli.scenario_cmd",
        "scenario_group",
        "Write and validate conversation-test files.",
    ),
    "conversation": (
        "hotato.cli.conversation_cmd",
        "conversation_group",
        "Verify conversation artifacts.",
    ),
    "trace": (
        "hotato.cli.trace_cmd",
        "trace_group",
        "Ingest traces from voice stacks; sign traces.",
    ),
    "state": (
        "hotato.cli.state_cmd",
        "state_group",
        "Read systems of record: snapshots for state_change.",
    ),
    "label": ("hotato.cli.label_cmd", "label_group", "Human labels: keys, signing and verifying."),
    "fleet": (
        "hotato.cli.fleet_cmd",
        "fleet_group",
        "Grade a whole fleet of calls into Parquet; summaries, diffs, reports.",
    ),
    "timing": (
        "hotato.cli.timing_cmd",
        "timing_group",
        "Score a stereo call recording into turn-taking timing events.",
    ),
    "serve": (
        "hotato.cli.serve_cmd",
        "serve_cmd",
        "Grade calls as they end: a live receiver for Vapi, Retell, LiveKit, Pipecat.",
    ),
    "schema": (
        "hotato.cli.schema_cmd",
        "schema_cmd",
        "JSON Schemas for editors: assertions, conversation tests, results, artifacts.",
    ),
    "demo": (
        "hotato.cli.demo_cmd",
        "demo",
        "Run the bundled demo: a refund claimed but never issued.",
    ),
}


class LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(n for n, (mod, _, _) in COMMANDS.items() if importlib.util.find_spec(mod))

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        entry = COMMANDS.get(cmd_name)
        if entry is None:
            return None
        module_name, attr, _ = entry
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name == module_name:
                return None
            raise
        command: click.Command = getattr(module, attr)
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(n, COMMANDS[n][2]) for n in self.list_commands(ctx)]
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", prog_name="hotato")
def cli() -> None:
    """hotato: did the task happen, or was it just claimed?

    Grades what a voice agent said against what its trace and systems of record show:
    PASS, FAIL, or INCONCLUSIVE when the evidence is not there. No model decides.

    Exit codes: 0 pass, 1 a check failed, 2 refused (bad input or usage), 3 internal error.
    """


def main(argv: list[str] | None = None) -> None:
    from hotato.cli._run import run_command

    # argv None: this process is hotato itself (the console script, `python -m hotato`), not
    # a caller running it in process, so it may tune the collector and end without tearing down
    if argv is None:
        # A pass over young objects every 20,000 allocations, not 700: a command builds
        # thousands of objects that live until it ends (modules, types, decoders, specs), which
        # those passes walk and never free; cycles of garbage still go, a few MB later at most.
        gc.set_threshold(20_000, *gc.get_threshold()[1:])
    code, teardown = run_command(cli, argv)
    if argv is None and not teardown:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except BrokenPipeError:
            pass
        else:
            os._exit(code)  # what the command built is not freed piece by piece
    sys.exit(code)
