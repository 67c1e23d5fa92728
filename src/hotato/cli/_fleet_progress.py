"""Progress of a fleet run on standard error: a rich bar on a terminal, a plain line every few
seconds otherwise, nothing with --quiet."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from typing import Any

import click

from hotato.fleet.grade import Progress

PLAIN_EVERY = 5.0  # seconds between plain lines


def _counts(p: Progress) -> str:
    c = p.counts
    return (
        f"pass {c['pass']} fail {c['fail']} inconclusive {c['inconclusive']} refused {c['refused']}"
    )


def line(p: Progress) -> str:
    return (
        f"fleet {p.run_id}: {p.done}/{p.total} calls ({p.counts['resumed']} already done), "
        f"{p.rate:.1f} calls/s; {_counts(p)}"
    )


def final(p: Progress, out: str) -> str:
    t = p.totals
    assert t is not None
    return (
        f"fleet {p.run_id}: {t.calls}/{p.total} calls in {out} ({t.graded} graded, "
        f"{t.refused} refused; {p.counts['resumed']} were already done"
        + (
            f", {p.counts['changed']} changed since graded and kept as graded: grade them "
            "into a new --out"
            if p.counts["changed"]
            else ""
        )
        + "); "
        f"assertions: pass {t.passed} fail {t.failed} inconclusive {t.inconclusive}; "
        f"{t.failed_calls} call(s) failed"
    )


def reporter(quiet: bool) -> tuple[AbstractContextManager[Any], Callable[[Progress], None]]:
    if quiet:
        return nullcontext(), lambda p: None
    if sys.stderr.isatty():
        return _rich()
    last = [0.0]

    def plain(p: Progress) -> None:
        now = time.monotonic()
        if now - last[0] >= PLAIN_EVERY or p.done == p.total:
            last[0] = now
            click.echo(line(p), err=True)

    return nullcontext(), plain


def _rich() -> tuple[AbstractContextManager[Any], Callable[[Progress], None]]:
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        TextColumn,
        TimeRemainingColumn,
    )
    from rich.progress import (
        Progress as Bar,
    )

    bar = Bar(
        TextColumn("[bold]fleet"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[rate]} calls/s"),
        TimeRemainingColumn(),
        TextColumn("{task.fields[counts]}"),
        console=Console(stderr=True),
    )
    task = bar.add_task("grade", total=None, rate="-", counts="")

    def update(p: Progress) -> None:
        bar.update(task, total=p.total, completed=p.done, rate=f"{p.rate:.1f}", counts=_counts(p))

    return bar, update
