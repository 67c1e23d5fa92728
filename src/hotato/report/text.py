"""The human-readable report: one line per result, then counts that are never merged."""

from __future__ import annotations

import click

from hotato.engine.policy import Tally
from hotato.engine.run import RunOutcome
from hotato.model.results import Result
from hotato.model.status import Status
from hotato.report._printable import printable

COLORS = {Status.PASS: "green", Status.FAIL: "red", Status.INCONCLUSIVE: "yellow"}


def status_word(status: Status, color: bool) -> str:
    word = f"{status.value:<12}"
    return click.style(word, fg=COLORS[status], bold=True) if color else word


def result_lines(results: list[Result], color: bool) -> list[str]:
    width = max((len(r.id) for r in results), default=0)
    kind_width = max((len(r.kind) for r in results), default=0)
    lines = []
    for r in results:
        tag = "" if r.deterministic else " [judge lane]"
        lines.append(
            f"  {status_word(r.status, color)}  {r.id:<{width}}  {r.kind:<{kind_width}}  "
            f"{r.reason}{tag}"
        )
    return lines


def render(outcome: RunOutcome, header: str, color: bool = False) -> str:
    lines = [header, ""]
    lines += result_lines(outcome.results, color)
    lines.append("")
    kinds: dict[str, list[Result]] = {}
    for r in outcome.deterministic:
        kinds.setdefault(r.kind, []).append(r)
    if kinds:
        parts = []
        for k, rs in kinds.items():
            t = Tally.of(rs)
            parts.append(f"{k} {t.passed}/{t.failed}/{t.inconclusive}")
        lines.append("by kind (pass/fail/inconclusive): " + ", ".join(parts))
    t = outcome.tally
    lines.append(f"deterministic: {t.passed} pass, {t.failed} fail, {t.inconclusive} inconclusive")
    j = Tally.of(outcome.judge)
    lines.append(
        f"judge (advisory, counted apart): {len(outcome.judge)} "
        f"({j.passed} pass, {j.failed} fail, {j.inconclusive} inconclusive)"
    )
    lines.append(f"inconclusive policy: {outcome.policy.value}; exit {int(outcome.exit_code)}")
    return printable("\n".join(lines)) + "\n"
