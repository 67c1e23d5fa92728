"""Verdict statuses, sources of evidence and exit codes: one meaning each."""

from __future__ import annotations

from enum import IntEnum, StrEnum


class Status(StrEnum):
    PASS = "PASS"
    FAIL = "FAIL"
    INCONCLUSIVE = "INCONCLUSIVE"


class Source(StrEnum):
    """The evidence a kind may read. A kind declares its sources; the engine supplies only those."""

    TRACE = "trace"
    TRANSCRIPT = "transcript"
    STATE = "state"
    TIMING = "timing"  # measured timing of the call: a JSON object, or a list of event objects
    RESULTS = "results"  # other assertions' results (formula, outcome parts)


class ExitCode(IntEnum):
    OK = 0
    FAILED = 1  # a FAIL, or an INCONCLUSIVE under the `fail` policy
    REFUSED = 2  # bad usage, malformed input, `refuse` policy, a tampered artifact
    INTERNAL = 3  # a bug in hotato: never reads as a FAIL


class Policy(StrEnum):
    REPORT = "report"
    FAIL = "fail"
    REFUSE = "refuse"


DIMENSIONS = ("outcome", "policy", "conversation", "speech", "reliability")
