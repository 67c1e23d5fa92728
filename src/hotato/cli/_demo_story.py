"""The demo's printout: claim, trace and data side by side, then the verdicts."""

from __future__ import annotations

from typing import Any

import click

from hotato.engine.evaluate import Sources
from hotato.engine.run import RunOutcome
from hotato.report.text import result_lines


def _head(title: str, color: bool) -> str:
    return click.style(title, bold=True) if color else title


def story(sources: Sources, outcome: RunOutcome, color: bool) -> str:
    out: list[str] = ["hotato demo: did the task happen, or was it just claimed?", ""]
    out.append(_head("What was said (transcript)", color))
    if sources.transcript is not None:
        for turn in sources.transcript.turns:
            out.append(f"  {turn.role:>6}: {turn.text}")
    out += ["", _head("What the agent did (trace)", color)]
    if sources.trace is not None:
        tools = sources.trace.tool_order
        for span in tools:
            out.append(
                f"  {span.id}: tool_call {span.name}({_short(span.arguments())}) "
                f"-> {_short(span.result())}"
            )
        names = {s.name for s in tools}
        if "issue_refund" not in names:
            out.append("  (no issue_refund span: the refund tool never ran)")
    out += ["", _head("What the data shows (system of record)", color)]
    reads = sources.state.reads if sources.state is not None else []
    if sources.state is not None:
        out.append(f"  source: {sources.state.description}")
    for read in reads:
        out.append(f"  {read.resource} where {_short(read.filters)}: {_short(read.observed)}")
    out += ["", _head("Verdicts", color)]
    out += result_lines(outcome.results, color)
    t = outcome.tally
    out += [
        "",
        f"deterministic: {t.passed} pass, {t.failed} fail, {t.inconclusive} inconclusive",
        "",
        "The agent claimed the refund; the trace and the data say it did not happen.",
        "A CI gate (`hotato assert run`) would exit 1 here. The demo exits 0 after printing.",
        "Run `hotato demo --write DIR` to get these files and try it yourself.",
    ]
    return "\n".join(out) + "\n"


def _short(value: Any) -> str:
    if isinstance(value, dict):
        return ", ".join(f"{k}={v!r}" for k, v in value.items())
    return repr(value)
