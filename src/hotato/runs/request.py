"""What one conversation-test run was asked to do: the test, the evidence, and the options."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from hotato.conversation.calls import CallFiles
from hotato.conversation.testfile import ConversationTest


@dataclass(frozen=True)
class RunRequest:
    """Every input of `hotato test run`, as a library call takes them (paths as strings)."""

    test_path: str
    agent: str | None = None  # None: each test's own `agent`
    trace: str | None = None
    trace_format: str = "auto"
    transcript: str | None = None
    state: str | None = None
    state_before: str | None = None
    audio: str | None = None
    timing: str | None = None  # measured timing for latency `field` and outcome `field_present`
    policy: str | None = None
    out: str | None = None
    repetitions: int | None = None
    trials: str | None = None
    k: int | None = None
    created_at: str | None = None
    origin: str = "real"
    labels: str | None = None
    trust: tuple[str, ...] = ()
    judge: Any = None  # a hotato.conversation.judge.JudgeConfig, or None for no judge
    gate_judge: bool = False
    sign_key: str | None = None
    trace_keys: tuple[str, ...] = ()
    require_signed_trace: bool = False
    loaded: ConversationTest | None = None  # the test, already loaded (test_path is then unused)
    page: bool = False  # bind the report page into each artifact (report.html)

    def files(self) -> CallFiles:
        return CallFiles(".", self.transcript, self.trace, self.state, self.audio, self.timing)

    def for_test(self, test: ConversationTest) -> RunRequest:
        """This request with the agent settled: the one asked for, else the test's own."""
        return self if self.agent is not None else replace(self, agent=test.agent)

    @property
    def has_evidence(self) -> bool:
        return not self.files().empty
