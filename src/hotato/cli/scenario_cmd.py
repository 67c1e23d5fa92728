"""`hotato scenario`: write a commented starter conversation test; validate files or a tree."""

from __future__ import annotations

from pathlib import Path

import click

from hotato.cli._run import Exit

STARTER = """\
# A conversation test, written by `hotato scenario init`. Edit it, then grade a recorded call:
#   hotato test run {file} --agent {agent} --transcript turns.json --trace call.jsonl \\
#       --state sandbox.json --out ./conv-artifact
kind: hotato.conversation-test
version: 1
id: {name}
agent: {agent}
caller:
  persona: a customer whose order arrived damaged
  goal: get a refund for order A-1001
  facts: {{order_id: A-1001}}
assertions:
  # Deterministic lane: regex, checksum, span or state lookups. No model. Each result is
  # tagged with a dimension (outcome, policy, conversation, speech, reliability): a grouping
  # key for the scorecard, never a weight.
  deterministic:
    - id: refund-tool-ran
      kind: tool_call
      name: issue_refund
      args_subset: {{order_id: A-1001}}
      dimension: outcome
    - id: refund-recorded
      kind: state
      resource: orders
      filters: {{order_id: A-1001}}
      expect: {{refund_status: refunded}}
      dimension: outcome
    - id: recording-disclosed
      kind: phrase
      regex: "(this call|calls) (is|are|may be) recorded"
      role: agent
      dimension: policy
    - id: no-card-number-spoken
      kind: pii
      detectors: [card_luhn, ssn]
      dimension: policy
  # Rubric lane: advisory criteria (deterministic: false). INCONCLUSIVE and counted apart
  # unless a judge is configured; never in the exit code unless --gate-judge.
  rubric:
    - id: acknowledged-frustration
      kind: judge_rubric
      criterion: "Did the agent acknowledge the caller's frustration before proposing a fix?"
      evidence: [transcript]
      dimension: conversation
success:
  # Success is all of these named conditions, never a score. Others:
  # no_deterministic_fail, no_rubric_failure, no_inconclusive, no_unresolved_inconclusive.
  required: [all_deterministic_assertions_pass]
  report_dimensions: [outcome, policy, conversation, speech, reliability]
# inconclusive_policy: fail   # CI and compliance suites should set fail or refuse
repetitions: 1
"""


@click.group("scenario")
def scenario_group() -> None:
    """Write and check conversation-test files (hotato.conversation-test v1)."""


@scenario_group.command("init")
@click.argument("name")
@click.option("--agent", required=True, metavar="ID", help="The agent the test is for.")
@click.option("--out", metavar="FILE", help="Where to write it (default: NAME.yaml).")
@click.option("--force", is_flag=True, help="Overwrite an existing file.")
def init_cmd(name: str, agent: str, out: str | None, force: bool) -> None:
    """Write a commented starter conversation test named NAME."""
    from hotato._io import write_atomic
    from hotato.model.errors import InputError

    if not name.strip():
        raise InputError.one("NAME must not be empty: it becomes the test's id")
    target = Path(out or f"{name}.yaml")
    if target.is_dir():
        raise InputError.one("is a folder; give --out a file name", file=str(target))
    if target.exists() and not force:
        raise InputError.one(
            "refusing to overwrite an existing file (use --force)", file=str(target)
        )
    text = STARTER.format(name=_yaml_str(name), agent=_yaml_str(agent), file=target)
    write_atomic(target, text.encode())
    click.echo(
        f"wrote {target}: a starter to edit; check it with `hotato scenario validate {target}`"
    )


def _yaml_str(value: str) -> str:
    import json

    from hotato.runs.starter import yaml_scalar

    return yaml_scalar(value) if value else json.dumps(value)


@scenario_group.command("validate")
@click.argument("path", metavar="FILE|DIR")
@click.option(
    "--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True
)
def validate_cmd(path: str, fmt: str) -> None:
    """Check one conversation test, or every one under a folder. Exit 2 on any problem,
    with every problem located (file:line, JSON path)."""
    from hotato.conversation.testfile import load_test
    from hotato.model.errors import InputError

    target = Path(path)
    if target.is_dir():
        from hotato.conversation.discover import find_tests

        files = find_tests(target)
        if not files:
            raise InputError.one("no conversation tests under this folder", file=path)
    else:
        files = [target]
    report: list[dict[str, object]] = []
    for file in files:
        try:
            test = load_test(file)
        except InputError as exc:
            report.append(
                {"file": str(file), "ok": False, "problems": [str(p) for p in exc.problems]}
            )
        else:
            report.append(
                {
                    "file": str(file),
                    "ok": True,
                    "id": test.id,
                    "assertions": len(test.deterministic) + len(test.rubric),
                }
            )
    bad = [r for r in report if not r["ok"]]
    if fmt == "json":
        from hotato.report.json_out import dumps

        click.echo(dumps({"ok": not bad, "files": report}), nl=False)
    else:
        for r in report:
            if r["ok"]:
                click.echo(f"ok       {r['file']} ({r['id']}, {r['assertions']} assertion(s))")
            else:
                click.echo(f"invalid  {r['file']}")
                for problem in r["problems"]:  # type: ignore[attr-defined]
                    click.echo(f"  {problem}")
        click.echo(f"{len(report) - len(bad)} valid, {len(bad)} invalid")
    raise Exit(2 if bad else 0)
