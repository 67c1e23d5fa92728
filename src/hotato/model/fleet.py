"""The fleet's typed results: a call's row, an assertion's row, the summary over them and the
diff of two runs.

Each row's fields are the columns of its Parquet table, in their order; a field's `column`
metadata names the column's type (one place says it: hotato.fleet.store derives the Parquet
schemas from these). `variables` is the manifest's variable columns, typed per run
(hotato.fleet.vartypes)."""

from __future__ import annotations

from datetime import datetime
from functools import cache
from typing import Annotated, Any, get_type_hints

import msgspec


def _col(kind: str) -> msgspec.Meta:
    return msgspec.Meta(extra={"column": kind})


Text = Annotated[str, _col("string")]
MaybeText = Annotated[str | None, _col("string")]
Flag = Annotated[bool, _col("bool")]
Count = Annotated[int | None, _col("int32")]
Code = Annotated[int, _col("int8")]
Started = Annotated[datetime | None, _col("timestamp")]
Texts = Annotated[list[str], _col("list<string>")]
Variables = Annotated[Any, _col("variables")]


class CallRecord(msgspec.Struct, kw_only=True):
    """One call of a fleet run, graded (its tally) or refused (the reason; no tally)."""

    run_id: Text
    call_id: Text
    input_digest: Text
    status: Text  # graded | refused
    message: Text
    exit_code: Code
    passed: Count = msgspec.field(name="pass")
    failed: Count = msgspec.field(name="fail")
    inconclusive: Count
    agent: MaybeText
    started_at: Started
    variables: Variables


class ResultRecord(msgspec.Struct, kw_only=True):
    """One assertion's result for one call."""

    run_id: Text
    call_id: Text
    input_digest: Text
    assertion_id: Text
    kind: Text
    dimension: MaybeText
    deterministic: Flag
    status: Text
    reason: Text
    skipped: Flag
    observed: MaybeText  # JSON text
    evidence: Texts
    agent: MaybeText
    started_at: Started
    variables: Variables


def columns(record: type[msgspec.Struct]) -> list[tuple[str, str]]:
    """(column name, column type) of each field of a record, in order."""
    hints = get_type_hints(record, include_extras=True)
    out = []
    for f in msgspec.structs.fields(record):
        meta = next(m for m in hints[f.name].__metadata__ if isinstance(m, msgspec.Meta))
        assert meta.extra is not None
        out.append((f.encode_name, str(meta.extra["column"])))
    return out


@cache
def _names(record: type[msgspec.Struct]) -> tuple[tuple[str, str], ...]:
    return tuple((f.name, f.encode_name) for f in msgspec.structs.fields(record))


def row(record: msgspec.Struct) -> dict[str, Any]:
    """A record as its table's row: column name -> value, the values as they are."""
    return {column: getattr(record, name) for name, column in _names(type(record))}


class Rate(msgspec.Struct, frozen=True):
    """One summary row: an assertion (or a group) and its pass rate with a Wilson interval."""

    group: str | None
    assertion_id: str | None  # None when grouped by dimension or kind
    kind: str | None
    dimension: str | None
    deterministic: bool
    n: int
    passed: int
    failed: int
    inconclusive: int
    rate: float | None
    low: float | None
    high: float | None

    def as_dict(self) -> dict[str, Any]:
        return msgspec.structs.asdict(self)


class CallCounts(msgspec.Struct, frozen=True):
    calls: int
    graded: int
    refused: int


class Summary(msgspec.Struct, frozen=True):
    """`hotato fleet summary`: the run, its grouping, its calls and its rates."""

    run_id: str | None
    by: str | None
    calls: CallCounts
    rates: list[Rate]

    def as_dict(self) -> dict[str, Any]:
        return {
            "schema": "hotato.fleet-summary.v1",
            "run_id": self.run_id,
            "by": self.by,
            "calls": msgspec.structs.asdict(self.calls),
            "rates": [r.as_dict() for r in self.rates],
        }


class Change(msgspec.Struct, frozen=True):
    """One assertion's pass rate before and after, and the z-test's verdict."""

    assertion_id: str
    before_pass: int
    before_judged: int  # pass + fail
    after_pass: int
    after_judged: int
    before_rate: float | None
    after_rate: float | None
    z: float | None
    p_value: float | None
    verdict: str  # regressed | improved | unchanged | new | gone | untested


class CallChange(msgspec.Struct, frozen=True):
    """A call graded in both runs whose status for one assertion changed."""

    call_id: str
    assertion_id: str
    before: str
    after: str
    reason: str


class Diff(msgspec.Struct, frozen=True):
    """`hotato fleet diff`: the assertions compared and the calls that changed (the first
    `limit` of `changed_calls`)."""

    before: str
    after: str
    alpha: float
    assertions: list[Change]
    changed_calls: int
    calls: list[CallChange]

    @property
    def regressed(self) -> bool:
        return any(c.verdict == "regressed" for c in self.assertions)

    def as_dict(self) -> dict[str, Any]:
        return {
            "schema": "hotato.fleet-diff.v1",
            "before": self.before,
            "after": self.after,
            "alpha": self.alpha,
            "assertions": [msgspec.structs.asdict(c) for c in self.assertions],
            "changed_calls": self.changed_calls,
            "calls": [msgspec.structs.asdict(c) for c in self.calls],
        }


class FailingCall(msgspec.Struct, frozen=True):
    """A failing deterministic result, as the fleet report lists it."""

    call_id: str
    agent: str
    day: str
    assertion_id: str
    reason: str | None


class FleetReport(msgspec.Struct, frozen=True):
    """What `hotato fleet report`'s page shows: the summary, the per agent x day x assertion
    counts its filters regroup ([agent, day, assertion_id, pass, fail, inconclusive]), and the
    most recent failing results (`failing_total` of them in all)."""

    summary: Summary
    cells: list[list[Any]]
    failing: list[FailingCall]
    failing_total: int
