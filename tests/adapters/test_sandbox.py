"""The JSON sandbox and before snapshots: None means "read, no such row"; a question nobody
asked before the call is NoSnapshot, never "unchanged"."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hotato.adapters import open_state
from hotato.adapters._compare import row_matches
from hotato.adapters.sandbox import SandboxReader
from hotato.model.errors import InputError
from hotato.model.state import NoSnapshot, StateUnavailable


def sandbox(tmp_path: Path, doc: Any, name: str = "state.json") -> str:
    path = tmp_path / name
    path.write_text(json.dumps(doc), encoding="utf-8")
    return str(path)


def test_rows_one_record_and_snapshots(tmp_path: Path) -> None:
    source = sandbox(
        tmp_path,
        {
            "orders": [{"order_id": "A-1", "status": "refunded"}],
            "customer": {"id": 7, "tier": "gold"},
            "accounts": {
                "before": [{"id": 1, "balance": 100}],
                "after": [{"id": 1, "balance": 125}],
            },
        },
    )
    with open_state(source) as state:
        assert state.after.query("orders", {"order_id": "A-1"})["status"] == "refunded"  # type: ignore[index]
        assert state.after.query("orders", {"order_id": "A-2"}) is None
        assert state.after.query("customer", {"id": 7}) is not None
        assert state.after.query("customer", {"id": "7"}) is None  # type-strict
        assert state.before is not None
        assert state.before.query("accounts", {"id": 1}) == {"id": 1, "balance": 100}
        assert state.after.query("accounts", {"id": 1}) == {"id": 1, "balance": 125}
        with pytest.raises(NoSnapshot):
            state.before.query("orders", {"order_id": "A-1"})  # no before side: never asked
        with pytest.raises(StateUnavailable) as unknown:
            state.after.query("refunds", {})
    assert unknown.value.cause == "unknown_resource"


def test_a_sandbox_without_before_sides_has_no_before_reader(tmp_path: Path) -> None:
    with open_state(sandbox(tmp_path, {"orders": []})) as state:
        assert state.before is None
        assert state.after.query("orders", {"id": 1}) is None


def test_state_before_replaces_the_sandbox_before_side(tmp_path: Path) -> None:
    source = sandbox(
        tmp_path,
        {"accounts": {"before": [{"id": 1, "balance": 1}], "after": [{"id": 1, "balance": 2}]}},
    )
    before = sandbox(
        tmp_path,
        {
            "accounts": [{"id": 1, "balance": 100}],
            "cards": {"before": [{"id": 3}], "after": [{"id": 4}]},
        },
        "before.json",
    )
    with open_state(source, before) as state:
        assert state.before is not None
        assert state.before.query("accounts", {"id": 1}) == {"id": 1, "balance": 100}
        assert state.before.query("cards", {"id": 3}) == {"id": 3}
        assert state.before.query("cards", {"id": 4}) is None


def test_a_snapshot_answers_only_the_questions_it_captured(tmp_path: Path) -> None:
    snapshot = sandbox(
        tmp_path,
        {
            "_meta": {
                "schema": "hotato.state-snapshot.v1",
                "source": "test",
                "captures": [
                    {"resource": "orders", "filters": {"order_id": "A-1"}, "found": True},
                    {"resource": "orders", "filters": {"order_id": "A-2"}, "found": False},
                    {
                        "resource": "refunds",
                        "filters": {"order_id": "A-1"},
                        "found": False,
                        "error": {"cause": "timeout", "message": "no answer within 5s"},
                    },
                ],
            },
            "orders": [{"order_id": "A-1", "status": "none"}],
            "refunds": [],
        },
        "before.json",
    )
    with open_state(sandbox(tmp_path, {"orders": []}), snapshot) as state:
        before = state.before
        assert before is not None
        assert before.query("orders", {"order_id": "A-1"}) == {"order_id": "A-1", "status": "none"}
        assert before.query("orders", {"order_id": "A-1", "status": "none"}) is not None
        assert before.query("orders", {"order_id": "A-2"}) is None  # asked: there was no row
        assert before.query("orders", {"order_id": "A-2", "status": "x"}) is None  # narrower
        with pytest.raises(NoSnapshot, match="did not capture"):
            before.query("orders", {"order_id": "A-3"})
        with pytest.raises(NoSnapshot):
            before.query("orders", {"order_id": "A-1", "status": "refunded"})  # maybe another row
        with pytest.raises(NoSnapshot):
            before.query("orders", {"order_id": 1})  # type-strict: 1 is not "A-1" nor "1"
        with pytest.raises(StateUnavailable) as failed:
            before.query("refunds", {"order_id": "A-1"})
        with pytest.raises(NoSnapshot, match="holds no resource"):
            before.query("customers", {"id": 1})
    assert failed.value.cause == "timeout" and "no answer within 5s" in failed.value.message


@pytest.mark.parametrize(
    ("doc", "message"),
    [
        ([1, 2], "must be a JSON object"),
        ({"orders": 5}, "$.orders: rows must be"),
        ({"orders": [1]}, "$.orders: rows must be"),
        ({"orders": {"before": 1}}, "$.orders.before: rows must be"),
        ({"_meta": {"schema": "x"}}, "$._meta: not a hotato state snapshot header"),
    ],
)
def test_malformed_sandboxes_are_refused(tmp_path: Path, doc: Any, message: str) -> None:
    with pytest.raises(InputError) as exc:
        open_state(sandbox(tmp_path, doc))
    assert message in str(exc.value)


def test_a_missing_before_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="does not exist"):
        open_state(sandbox(tmp_path, {"orders": []}), str(tmp_path / "nope.json"))


# --- the column index answers as the plain scan does --------------------------------------------

_values = st.one_of(
    st.sampled_from([1, 1.0, True, False, 0, "1", "a", None, float("nan")]),
    st.lists(st.sampled_from([1, "a"]), max_size=2),
    st.fixed_dictionaries({"x": st.sampled_from([1, "a"])}),
)
_columns = st.sampled_from(["id", "status", "meta.x"])


@settings(deadline=None)
@given(
    st.lists(st.dictionaries(st.sampled_from(["id", "status", "meta"]), _values), max_size=12),
    st.dictionaries(_columns, _values, min_size=1, max_size=2),
    st.dictionaries(_columns, _values, min_size=1, max_size=2),
)
def test_indexed_query_is_the_first_row_a_scan_finds(
    rows: list[dict[str, Any]], first: dict[str, Any], second: dict[str, Any]
) -> None:
    reader = SandboxReader({"orders": rows}, "sandbox")
    for filters in (first, second, first):  # the second question on a column reuses its index
        scan = next((r for r in rows if row_matches(r, filters)), None)
        assert reader.query("orders", filters) is scan
