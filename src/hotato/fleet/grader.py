"""The one seam between the fleet and the engine: a grader kept for the life of a worker,
holding the decoded assertions and one open connection to the system of record.

Each call gets fresh state evidence (its own answer cache and read log) over the pooled
reader; nothing of one call's reads is carried into the next call's results."""

from __future__ import annotations

from dataclasses import dataclass

from hotato.engine.evaluate import Sources, evaluate
from hotato.engine.loader import AssertionSet
from hotato.engine.policy import exit_code, resolve_policy
from hotato.engine.run import RunOutcome
from hotato.model.state import StateReader, StateSource


@dataclass
class _PooledState:
    after: StateReader
    before: StateReader | None
    description: str

    def for_call(self) -> StateSource:
        from hotato.adapters.cache import CachedReader

        before = CachedReader(self.before) if self.before is not None else None
        return StateSource(CachedReader(self.after), before, self.description)

    def close(self) -> None:
        for reader in (self.after, self.before):
            close = getattr(reader, "close", None)
            if close is not None:
                close()


class CallGrader:
    """Decoded assertions and a pooled state reader; `grade` grades one call."""

    def __init__(
        self,
        policy_flag: str | None = None,
        state: str | None = None,
        state_before: str | None = None,
    ) -> None:
        self.policy_flag = policy_flag
        self._state = _open_pool(state, state_before) if state is not None else None

    def grade(
        self,
        assertions: AssertionSet,
        trace: str | None,
        transcript: str | None,
    ) -> RunOutcome:
        from hotato.engine.sources import open_sources

        sources: Sources = open_sources(trace, transcript)
        if self._state is not None:
            sources.state = self._state.for_call()
        results = evaluate(assertions.specs, sources, assertions.origins)
        policy = resolve_policy(self.policy_flag, assertions.policy)
        return RunOutcome(
            results, policy, exit_code([r for r in results if r.deterministic], policy)
        )

    def close(self) -> None:
        if self._state is not None:
            self._state.close()


def _open_pool(state: str, state_before: str | None) -> _PooledState:
    from hotato.adapters.open import open_reader
    from hotato.adapters.sandbox import read_sandbox

    reader, sandbox_before, description = open_reader(state)
    before = read_sandbox(state_before).as_before() if state_before else sandbox_before
    return _PooledState(reader, before, description)
