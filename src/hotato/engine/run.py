"""One `assert run`: load, plan, grade, and decide the exit code."""

from __future__ import annotations

import msgspec

from hotato.engine.evaluate import Sources, evaluate
from hotato.engine.loader import AssertionSet
from hotato.engine.policy import Tally, exit_code, resolve_policy
from hotato.model.results import Result
from hotato.model.status import ExitCode, Policy


class RunOutcome(msgspec.Struct):
    results: list[Result]  # every result, document order
    policy: Policy
    exit_code: ExitCode

    @property
    def deterministic(self) -> list[Result]:
        return [r for r in self.results if r.deterministic]

    @property
    def judge(self) -> list[Result]:
        return [r for r in self.results if not r.deterministic]

    @property
    def tally(self) -> Tally:
        return Tally.of(self.deterministic)


def run(assertions: AssertionSet, sources: Sources, policy_flag: str | None = None) -> RunOutcome:
    policy = resolve_policy(policy_flag, assertions.policy)
    try:
        results = evaluate(assertions.specs, sources, order=assertions.order)
    finally:
        sources.close()
    code = exit_code([r for r in results if r.deterministic], policy)
    return RunOutcome(results, policy, code)
