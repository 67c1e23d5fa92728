"""Fleet summaries and diffs (hotato.model.fleet) as text tables."""

from __future__ import annotations

from typing import TYPE_CHECKING

from hotato.report._printable import one_line

if TYPE_CHECKING:
    from hotato.model.fleet import Diff, Rate, Summary


def _table(rows: list[list[str]]) -> list[str]:
    """Columns padded to width; every cell one visible line (a call id or an assertion id
    from a manifest or a results folder is data, and never reaches a terminal raw)."""
    rows = [[one_line(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return ["  ".join(c.ljust(widths[i]) for i, c in enumerate(r)).rstrip() for r in rows]


def _rate(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def _interval(low: float | None, high: float | None) -> str:
    return "-" if low is None or high is None else f"[{low:.3f}, {high:.3f}]"


def rate_label(rate: Rate, by: str | None) -> list[str]:
    """The leading cells naming a summary row: [group,] assertion (or the group alone)."""
    name = rate.assertion_id if rate.assertion_id is not None else str(rate.group)
    if not rate.deterministic:
        name += " (judge)"
    if by in ("agent", "day"):
        return [str(rate.group), name]
    return [name]


def summary_text(summary: Summary) -> str:
    by = summary.by
    calls = summary.calls
    head = [by, "assertion"] if by in ("agent", "day") else [by or "assertion"]
    rows = [[*head, "n", "pass", "fail", "inconclusive", "rate", "95% interval"]]
    for r in summary.rates:
        rows.append(
            [
                *rate_label(r, by),
                str(r.n),
                str(r.passed),
                str(r.failed),
                str(r.inconclusive),
                _rate(r.rate),
                _interval(r.low, r.high),
            ]
        )
    lines = [
        f"fleet run {one_line(str(summary.run_id or '-'))}: {calls.calls} call(s), "
        f"{calls.graded} graded, "
        f"{calls.refused} refused",
        "rate = pass / (pass + fail) with a Wilson 95% interval; INCONCLUSIVE is counted apart",
        "",
        *_table(rows),
    ]
    return "\n".join(lines) + "\n"


def diff_text(diff: Diff) -> str:
    rows = [["assertion", "before", "after", "z", "p", "verdict"]]
    for c in diff.assertions:
        rows.append(
            [
                c.assertion_id,
                f"{_rate(c.before_rate)} ({c.before_pass}/{c.before_judged})",
                f"{_rate(c.after_rate)} ({c.after_pass}/{c.after_judged})",
                "-" if c.z is None else f"{c.z:.2f}",
                "-" if c.p_value is None else f"{c.p_value:.4f}",
                c.verdict,
            ]
        )
    lines = [
        f"fleet diff {one_line(diff.before)} -> {one_line(diff.after)}: pass rates "
        f"compared with a two-proportion z-test (alpha {diff.alpha}); INCONCLUSIVE left out",
        "",
        *_table(rows),
        "",
        f"{diff.changed_calls} call x assertion result(s) changed between the runs"
        + (f" (first {len(diff.calls)} below)" if diff.calls else ""),
    ]
    for call in diff.calls:
        lines.append(
            one_line(f"  {call.call_id}  {call.assertion_id}: {call.before} -> {call.after}")
            + (f"  ({one_line(call.reason)})" if call.reason else "")
        )
    return "\n".join(lines) + "\n"
