"""What a conversation-test run gives back: each graded call and the JSON document."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec

from hotato.conversation.runner import ConversationRun
from hotato.model.reports import TestRun, TestSuite


@dataclass
class Graded:
    """One graded (test, call): the name users see (`test-id`, or `test-id[trial]`), the run,
    and the test-run document it belongs to."""

    name: str
    run: ConversationRun
    document: TestRun


@dataclass
class ConversationOutcome:
    """The result of `run_test`, `run_trials` or `run_suite`.

    `document` is the typed document `hotato test run --format json` prints (a TestRun, or a
    TestSuite for a suite); `items` holds every graded (test, call); `notes` are remarks the CLI
    prints on standard error; `suite` is the folder a suite ran from."""

    document: TestRun | TestSuite
    items: list[Graded]
    notes: list[str] = field(default_factory=list)
    suite: Path | None = None

    def __repr__(self) -> str:
        failed = [g.name for g in self.items if not g.run.passed]
        shown = f"; FAILED: {', '.join(failed)}" if failed else ""
        return f"ConversationOutcome(exit {self.exit_code}; {len(self.items)} call(s){shown})"

    @property
    def exit_code(self) -> int:
        return self.document.exit_code

    @property
    def passed(self) -> bool:
        return all(g.run.passed for g in self.items)

    @property
    def run(self) -> ConversationRun:
        """The first graded call (the only one for a single run)."""
        return self.items[0].run

    def to_dict(self) -> dict[str, Any]:
        """The document as JSON data (what `to_json` encodes)."""
        out: dict[str, Any] = msgspec.to_builtins(self.document)
        return out

    def to_json(self) -> str:
        """The document as `--format json` prints it, byte for byte."""
        from hotato.report.json_out import dumps

        return dumps(self.document)
