"""SQL systems of record: the three outcomes, type strictness, injection and writes refused.

Each test runs against SQLite, PostgreSQL and MariaDB (the `db` fixture) unless it is about
one database's own mechanism.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.adapters.conftest import Db

from hotato.adapters import open_state
from hotato.model.errors import InputError
from hotato.model.state import StateUnavailable


def adapter(tmp_path: Path, db: Db, resources: str) -> str:
    url = f"sqlite:///{Path(db.source).name}" if db.dialect == "sqlite" else db.source
    path = (
        Path(db.source).parent / "adapter.yaml"
        if db.dialect == "sqlite"
        else (tmp_path / "adapter.yaml")
    )
    # The test databases are reached as their superuser; configured queries run there only
    # with the explicit opt-in (the role check has its own tests in tests/security).
    opt_in = "" if db.dialect == "sqlite" else "allow_superuser: true\n"
    path.write_text(f"adapter: sql\nurl: {url}\nresources:\n{resources}{opt_in}", encoding="utf-8")
    return str(path)


def test_a_matching_record_is_returned_whole(db: Db) -> None:
    with open_state(db.source) as state:
        record = state.after.query(db.table, {"order_id": "A-1001"})
    assert record == {
        "id": 1,
        "order_id": "A-1001",
        "zip": "02139",
        "amount": 25.5,
        "refunded": True,
        "status": "refunded",
    }


def test_no_matching_row_is_none(db: Db) -> None:
    with open_state(db.source) as state:
        assert state.after.query(db.table, {"order_id": "A-9999"}) is None


def test_a_mismatch_returns_the_record_and_leaves_the_verdict_to_the_kind(db: Db) -> None:
    with open_state(db.source) as state:
        record = state.after.query(db.table, {"order_id": "A-1002"})
    assert record is not None and record["status"] == "none" and record["refunded"] is False


def test_comparison_is_type_strict(db: Db) -> None:
    with open_state(db.source) as state:
        q = state.after.query
        assert q(db.table, {"zip": "02139"}) is not None
        assert q(db.table, {"zip": 2139}) is None  # the number is not the string "02139"
        assert q(db.table, {"id": "1"}) is None
        assert q(db.table, {"id": 1}) is not None
        assert q(db.table, {"refunded": True}) is not None
        assert q(db.table, {"refunded": 1}) is None  # 1 is not True
        assert q(db.table, {"order_id": "a-1001"}) is None  # MariaDB's collation would say equal
        assert q(db.table, {"amount": 25.5}) is not None
        assert q(db.table, {"amount": 10}) is not None


def test_several_filters_all_apply(db: Db) -> None:
    with open_state(db.source) as state:
        assert state.after.query(db.table, {"order_id": "A-1001", "status": "none"}) is None
        assert state.after.query(db.table, {"order_id": "A-1002", "status": "none"}) is not None


def test_a_null_filter_matches_null(db: Db) -> None:
    db.execute(f"UPDATE {db.table} SET zip = NULL WHERE id = 2")
    with open_state(db.source) as state:
        record = state.after.query(db.table, {"zip": None})
    assert record is not None and record["id"] == 2


INJECTIONS = [
    "A-1001' OR '1'='1",
    "A-1001'; DELETE FROM {t}; --",
    "x'); DROP TABLE {t}; --",
    "' UNION SELECT 1,2,3,4,5,6 --",
    "A-1001\\'; DELETE FROM {t}; #",
]


@pytest.mark.parametrize("value", INJECTIONS)
def test_a_filter_value_carrying_sql_is_a_literal_that_matches_nothing(db: Db, value: str) -> None:
    before = db.count()
    with open_state(db.source) as state:
        assert state.after.query(db.table, {"order_id": value.format(t=db.table)}) is None
        assert state.after.query(db.table, {"zip": value.format(t=db.table)}) is None
    assert db.count() == before == 2


def test_names_come_from_the_schema_not_from_the_user(db: Db) -> None:
    with open_state(db.source) as state:
        with pytest.raises(StateUnavailable) as bad_table:
            state.after.query(f"{db.table}; DROP TABLE {db.table}", {})
        with pytest.raises(StateUnavailable) as bad_column:
            state.after.query(db.table, {"order_id = order_id OR 1": 1})
        with pytest.raises(StateUnavailable) as typo:
            state.after.query(db.table, {"order_ID": "A-1001"})
    assert bad_table.value.cause == "unknown_resource"
    assert bad_column.value.cause == "unknown_column"
    assert typo.value.cause == "unknown_column" and "did you mean 'order_id'" in typo.value.message
    assert db.count() == 2


def test_an_unknown_table_is_could_not_read(db: Db) -> None:
    with open_state(db.source) as state, pytest.raises(StateUnavailable) as exc:
        state.after.query("no_such_table", {"id": 1})
    assert exc.value.cause == "unknown_resource"


def test_one_connection_per_run_and_identical_queries_sent_once(db: Db) -> None:
    with open_state(db.source) as state:
        for i in range(50):
            state.after.query(db.table, {"order_id": f"A-{1001 + i % 5}"})
        cached = state.after
        assert cached.sent == 5  # type: ignore[attr-defined]
        assert cached.reader.connects == 1  # type: ignore[attr-defined]


def test_a_configured_select_with_named_parameters(db: Db, tmp_path: Path) -> None:
    path = adapter(
        tmp_path,
        db,
        f"""  refunds:
    query: "SELECT order_id, status AS state, amount FROM {db.table} WHERE order_id = :order"
  orders:
    table: {db.table}
""",
    )
    with open_state(path) as state:
        q = state.after.query
        assert q("refunds", {"order": "A-1001"}) == {
            "order_id": "A-1001",
            "state": "refunded",
            "amount": 25.5,
        }
        assert q("refunds", {"order": "A-1001", "state": "none"}) is None  # a returned column
        assert q("refunds", {"order": "A-1001'; DELETE FROM x; --"}) is None
        assert q("orders", {"id": 2})["status"] == "none"  # type: ignore[index]
        with pytest.raises(StateUnavailable) as absent:
            q("refunds", {"order_id": "A-1001"})
        with pytest.raises(StateUnavailable) as unmapped:
            q("not_mapped", {"id": 1})
        with pytest.raises(StateUnavailable) as stray:
            q("refunds", {"order": "A-1001", "nope": 1})
    assert absent.value.cause == "missing_parameter" and "order" in absent.value.message
    assert unmapped.value.cause == "unknown_resource" and "refunds" in unmapped.value.message
    assert stray.value.cause == "unknown_column"
    assert db.count() == 2


@pytest.mark.parametrize(
    "query",
    [
        "UPDATE {t} SET status = 'refunded'",
        "DELETE FROM {t}",
        "SELECT 1; DELETE FROM {t}",
        "SELECT * FROM {t}; UPDATE {t} SET status = 'x'",
        "WITH gone AS (DELETE FROM {t} RETURNING *) SELECT * FROM gone",
        "SELECT * INTO copy_of FROM {t}",
        "SELECT * FROM {t} FOR UPDATE",
        "INSERT INTO {t} (id, order_id) VALUES (9, 'x')",
    ],
)
def test_a_configured_query_that_is_not_one_select_is_refused(
    db: Db, tmp_path: Path, query: str
) -> None:
    path = adapter(tmp_path, db, f'  orders:\n    query: "{query.format(t=db.table)}"\n')
    with pytest.raises(InputError) as exc:
        open_state(path)
    assert "$.resources.orders.query" in str(exc.value) and ":5:" in str(exc.value)
    assert db.count() == 2


def test_postgresql_a_select_calling_a_writing_function_fails_read_only(
    pg: Db, tmp_path: Path
) -> None:
    fn = f"{pg.table}_w"
    pg.execute(
        f"CREATE FUNCTION {fn}(v text) RETURNS int LANGUAGE sql AS "
        f"'INSERT INTO {pg.table} (id, order_id) VALUES (99, v) RETURNING 1'"
    )
    try:
        path = adapter(
            tmp_path,
            pg,
            f"""  sneaky:
    query: "SELECT {fn}(:v) AS n"
  unlock:
    query: "SELECT set_config('default_transaction_read_only', 'off', false) AS s"
""",
        )
        with open_state(path) as state:
            state.after.query("unlock", {})  # a session setting cannot outlive its read
            with pytest.raises(StateUnavailable) as exc:
                state.after.query("sneaky", {"v": "A-9"})
        assert exc.value.cause == "write_refused"
        assert "read-only transaction" in exc.value.message
        assert pg.count() == 2
    finally:
        pg.execute(f"DROP FUNCTION IF EXISTS {fn}(text)")


def test_mariadb_a_select_calling_a_writing_function_fails_read_only(
    maria: Db, tmp_path: Path
) -> None:
    fn = f"{maria.table}_w"
    maria.execute(
        f"CREATE FUNCTION {fn}(v VARCHAR(20)) RETURNS INT MODIFIES SQL DATA "
        f"BEGIN INSERT INTO {maria.table} (id, order_id) VALUES (99, v); RETURN 1; END"
    )
    try:
        path = adapter(tmp_path, maria, f'  sneaky:\n    query: "SELECT {fn}(:v) AS n"\n')
        with open_state(path) as state, pytest.raises(StateUnavailable) as exc:
            state.after.query("sneaky", {"v": "A-9"})
        assert exc.value.cause == "write_refused"
        assert maria.count() == 2
    finally:
        maria.execute(f"DROP FUNCTION IF EXISTS {fn}")


@pytest.mark.parametrize("autocommit", [True, False], ids=["table-reads", "configured-reads"])
def test_every_connection_refuses_writes(db: Db, autocommit: bool) -> None:
    """Both connections a reader opens (autocommit for table reads, transactions for
    configured SELECTs) are read-only at the database: a write sent on them fails."""
    import sqlalchemy as sa

    from hotato.adapters.sql import SqlReader
    from hotato.adapters.sql_connect import sql_target, sqlite_target

    target = (
        sqlite_target(db.source)
        if db.dialect == "sqlite"
        else sql_target(db.source, allow_superuser=True)
    )  # the test role is a superuser
    reader = SqlReader(target)
    conn = reader._connection(autocommit)
    for write in (
        f"DELETE FROM {db.table}",
        f"UPDATE {db.table} SET status = 'x'",
        f"INSERT INTO {db.table} (id, order_id) VALUES (7, 'x')",
    ):
        with pytest.raises(sa.exc.DBAPIError, match=r"(?i)read.?only"):
            conn.execute(sa.text(write))
        reader._end(conn, autocommit)
    reader.close()
    assert db.count() == 2


def test_a_dotted_filter_reads_into_a_json_column(pg: Db) -> None:
    pg.execute(f"ALTER TABLE {pg.table} ADD COLUMN meta JSONB")
    pg.execute(f'UPDATE {pg.table} SET meta = \'{{"vip": true, "tier": 2}}\' WHERE id = 1')
    with open_state(pg.source) as state:
        assert state.after.query(pg.table, {"meta.vip": True})["id"] == 1  # type: ignore[index]
        assert state.after.query(pg.table, {"meta.tier": "2"}) is None


def test_dates_and_fixed_width_text_compare_as_their_text(pg: Db) -> None:
    pg.execute(f"ALTER TABLE {pg.table} ADD COLUMN due DATE, ADD COLUMN code CHAR(6)")
    pg.execute(f"UPDATE {pg.table} SET due = '2024-03-01', code = 'ab' WHERE id = 1")
    with open_state(pg.source) as state:
        record = state.after.query(pg.table, {"due": "2024-03-01", "code": "ab"})
    assert record is not None and record["due"] == "2024-03-01" and record["code"] == "ab"


def test_the_first_record_is_in_primary_key_order_past_loose_database_matches(maria: Db) -> None:
    # MariaDB's collation says 'a-7' = 'A-7'; 60 such rows come before the exact one.
    for i in range(60):
        maria.execute(f"INSERT INTO {maria.table} (id, order_id) VALUES (:id, 'a-7')", id=100 + i)
    maria.execute(f"INSERT INTO {maria.table} (id, order_id) VALUES (500, 'A-7')")
    with open_state(maria.source) as state:
        assert state.after.query(maria.table, {"order_id": "A-7"})["id"] == 500  # type: ignore[index]
        assert state.after.query(maria.table, {"order_id": "a-7"})["id"] == 100  # type: ignore[index]
