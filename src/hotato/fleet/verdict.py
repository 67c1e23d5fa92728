"""A fleet run's exit code: refused calls count (a night with refusals is not clean) unless
the user accepts some with `--max-refused N` or `--max-refused P%`; then a FAILed call."""

from __future__ import annotations

import re
from dataclasses import dataclass

from hotato.fleet.store import Totals
from hotato.model.errors import InputError
from hotato.model.fleet import Diff

_LIMIT = re.compile(r"(\d+)|(\d+(?:\.\d+)?)%")


@dataclass(frozen=True)
class RefusedLimit:
    """How many refused calls a run accepts: a count, or a percent of its calls."""

    count: int | None = 0
    percent: float | None = None

    @classmethod
    def parse(cls, text: str) -> RefusedLimit:
        match = _LIMIT.fullmatch(text.strip())
        if match is None:
            raise InputError.one(
                f"--max-refused {text!r}: give a count of calls (10) or a percent of them (0.5%)"
            )
        if match.group(1) is not None:
            return cls(count=int(match.group(1)))
        percent = float(match.group(2))
        if percent > 100:
            raise InputError.one(f"--max-refused {text!r}: a percent is at most 100%")
        return cls(count=None, percent=percent)

    def allows(self, refused: int, calls: int) -> bool:
        if self.count is not None:
            return refused <= self.count
        assert self.percent is not None
        return refused * 100 <= self.percent * calls

    def __str__(self) -> str:
        return str(self.count) if self.count is not None else f"{self.percent:g}%"


def fleet_exit_code(totals: Totals, limit: RefusedLimit) -> int:
    """2 when more calls were refused than `limit` accepts (it takes precedence, as a refusal
    does everywhere); else 1 when a graded call failed; else 0."""
    if not limit.allows(totals.refused, totals.calls):
        return 2
    return 1 if totals.failed_calls else 0


def diff_exit_code(diff: Diff) -> int:
    """`fleet diff`'s exit code: 1 when an assertion regressed, else 0."""
    return 1 if diff.regressed else 0
