"""hotato: did the task happen, or was it just claimed?

Deterministic say-do grading for voice and phone agents. The library (see docs/api.md):

    import hotato

    result = hotato.grade("assertions.yaml", trace="call.jsonl", state="orders.db")
    outcome = hotato.run_trials("refund.yaml", "recorded-calls/", k=3, out="artifacts/")
    hotato.verify_artifact("artifacts/call-1").ok

Names load on first use, so `import hotato` stays cheap for the CLI.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from hotato._version import __version__

if TYPE_CHECKING:
    from hotato.api import (
        AssertionSet,
        AssertionsResult,
        Call,
        ConversationOutcome,
        ConversationTest,
        Grader,
        InputError,
        NotPassed,
        Problem,
        UsageError,
        Verification,
        check_claims,
        extract_claims,
        fleet_summary,
        grade,
        grade_fleet,
        ingest,
        load_assertions,
        load_test,
        load_trace,
        load_transcript,
        run_assertions,
        run_suite,
        run_test,
        run_trials,
        score_timing,
        sign_label,
        verify_artifact,
        verify_label,
    )

__all__ = [
    "AssertionSet",
    "AssertionsResult",
    "Call",
    "ConversationOutcome",
    "ConversationTest",
    "Grader",
    "InputError",
    "NotPassed",
    "Problem",
    "UsageError",
    "Verification",
    "__version__",
    "check_claims",
    "extract_claims",
    "fleet_summary",
    "grade",
    "grade_fleet",
    "ingest",
    "load_assertions",
    "load_test",
    "load_trace",
    "load_transcript",
    "run_assertions",
    "run_suite",
    "run_test",
    "run_trials",
    "score_timing",
    "sign_label",
    "verify_artifact",
    "verify_label",
]
_API = frozenset(__all__) - {"__version__"}


def __getattr__(name: str) -> Any:
    if name in _API:
        return getattr(importlib.import_module("hotato.api"), name)
    raise AttributeError(f"module 'hotato' has no attribute {name!r}")
