"""Counting results and turning them into an exit code under the inconclusive policy."""

from __future__ import annotations

from collections import Counter

import msgspec

from hotato.model.results import Result
from hotato.model.status import ExitCode, Policy, Status


class Tally(msgspec.Struct, frozen=True):
    passed: int = 0
    failed: int = 0
    inconclusive: int = 0

    @classmethod
    def of(cls, results: list[Result]) -> Tally:
        c = Counter(r.status for r in results)
        return cls(c[Status.PASS], c[Status.FAIL], c[Status.INCONCLUSIVE])

    def as_dict(self) -> dict[str, int]:
        return {"pass": self.passed, "fail": self.failed, "inconclusive": self.inconclusive}


def resolve_policy(flag: str | None, from_file: Policy | None) -> Policy:
    """The flag wins over the file; `report` when neither says."""
    if flag is not None:
        return Policy(flag)
    return from_file or Policy.REPORT


def exit_code(deterministic: list[Result], policy: Policy) -> ExitCode:
    """0 clean; 1 a FAIL (or an INCONCLUSIVE under `fail`); 2 under `refuse` with any
    INCONCLUSIVE, which takes precedence over a FAIL. Judge results never count here."""
    tally = Tally.of(deterministic)
    if tally.inconclusive and policy is Policy.REFUSE:
        return ExitCode.REFUSED
    if tally.failed:
        return ExitCode.FAILED
    if tally.inconclusive and policy is Policy.FAIL:
        return ExitCode.FAILED
    return ExitCode.OK
