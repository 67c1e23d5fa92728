"""A small suite and a trials folder for the page tests."""

from __future__ import annotations

from pathlib import Path

from tests.conversation.conftest import (
    DISCLOSED,
    LOOKUP,
    NEVER_CANCELLED,
    REFUND_RAN,
    write_call,
    write_test,
)


def make_suite(root: Path) -> Path:
    """Two tests, each with its call in a sibling folder; `cancel` fails."""
    write_test(root / "refund.json", [REFUND_RAN, DISCLOSED], test_id="refund")
    write_call(root / "refund")
    write_test(root / "cancel.json", [NEVER_CANCELLED], test_id="cancel")
    write_call(root / "cancel")
    return root


def make_trials(root: Path) -> tuple[Path, Path]:
    """A test and three recorded calls of it: t1 and t2 pass, t3 never issued the refund."""
    test = write_test(root / "t.json", [REFUND_RAN, DISCLOSED])
    trials = root / "trials"
    write_call(trials / "t1")
    write_call(trials / "t2")
    write_call(trials / "t3", spans=[LOOKUP])
    return test, trials
