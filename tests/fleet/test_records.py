"""The fleet's typed rows (hotato.model.fleet) say each column's type once; the Parquet
schemas derived from them are the ones every results folder on disk was written with."""

from __future__ import annotations

from datetime import UTC, datetime

import pyarrow as pa

from hotato.fleet.store import call_schema, result_schema, table
from hotato.model.fleet import CallRecord, ResultRecord, columns, row

TEXT_MAP = pa.map_(pa.string(), pa.string())
STAMP = pa.timestamp("us", tz="UTC")

# The columns as hotato 2.0 wrote them: a folder it wrote must keep reading.
CALLS_ON_DISK = pa.schema(
    [
        ("run_id", pa.string()),
        ("call_id", pa.string()),
        ("input_digest", pa.string()),
        ("status", pa.string()),
        ("message", pa.string()),
        ("exit_code", pa.int8()),
        ("pass", pa.int32()),
        ("fail", pa.int32()),
        ("inconclusive", pa.int32()),
        ("agent", pa.string()),
        ("started_at", STAMP),
        ("variables", TEXT_MAP),
    ]
)
RESULTS_ON_DISK = pa.schema(
    [
        ("run_id", pa.string()),
        ("call_id", pa.string()),
        ("input_digest", pa.string()),
        ("assertion_id", pa.string()),
        ("kind", pa.string()),
        ("dimension", pa.string()),
        ("deterministic", pa.bool_()),
        ("status", pa.string()),
        ("reason", pa.string()),
        ("skipped", pa.bool_()),
        ("observed", pa.string()),
        ("evidence", pa.list_(pa.string())),
        ("agent", pa.string()),
        ("started_at", STAMP),
        ("variables", TEXT_MAP),
    ]
)


def test_the_derived_schemas_are_the_ones_on_disk() -> None:
    assert call_schema() == CALLS_ON_DISK
    assert result_schema() == RESULTS_ON_DISK


def test_a_typed_variables_column_replaces_the_text_map() -> None:
    typed = pa.struct([("order_id", pa.int64())])
    assert call_schema(typed).field("variables").type == typed
    assert result_schema(typed).field("variables").type == typed


def test_columns_name_each_field_as_stored() -> None:
    names = [name for name, _ in columns(CallRecord)]
    assert names == CALLS_ON_DISK.names
    assert ("pass", "int32") in columns(CallRecord)


def test_a_record_becomes_its_row_and_its_table() -> None:
    stamp = datetime(2026, 1, 2, tzinfo=UTC)
    call = CallRecord(
        run_id="r",
        call_id="c1",
        input_digest="d",
        status="graded",
        message="",
        exit_code=1,
        passed=2,
        failed=1,
        inconclusive=0,
        agent=None,
        started_at=stamp,
        variables={"order_id": "42"},
    )
    assert row(call)["pass"] == 2 and row(call)["fail"] == 1
    out = table([call], call_schema())
    assert out.schema == CALLS_ON_DISK
    assert out.to_pylist()[0]["variables"] == [("order_id", "42")]
    result = ResultRecord(
        run_id="r",
        call_id="c1",
        input_digest="d",
        assertion_id="a",
        kind="phrase",
        dimension=None,
        deterministic=True,
        status="FAIL",
        reason="not said",
        skipped=False,
        observed=None,
        evidence=["t_1"],
        agent="support",
        started_at=None,
        variables={},
    )
    assert table([result], result_schema()).to_pylist()[0]["evidence"] == ["t_1"]


def test_the_diff_text_names_its_alpha() -> None:
    from hotato.model.fleet import Diff
    from hotato.report.fleet_text import diff_text

    diff = Diff(before="a", after="b", alpha=0.05, assertions=[], changed_calls=0, calls=[])
    assert "two-proportion z-test (alpha 0.05)" in diff_text(diff)
