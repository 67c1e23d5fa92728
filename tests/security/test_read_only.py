"""Read-only means read-only: a configured query may not call functions whose effect a READ ONLY
transaction does not stop, and configured queries do not run as a superuser unless the adapter
file says so. Against real PostgreSQL and MariaDB, with a real unprivileged role."""

from __future__ import annotations

import contextlib
import json
import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from tests.adapters.conftest import MARIADB_URL, PG_URL, Db
from tests.conftest import hotato

from hotato.adapters import open_state
from hotato.model.errors import InputError
from hotato.model.state import StateUnavailable

ATTACKS = [
    # PostgreSQL: another connection (which is not read-only), server files, large objects,
    # other sessions, session locks, SQL run from text.
    "SELECT dblink_exec('dbname=test', 'DROP TABLE orders') AS x",
    "SELECT * FROM dblink('dbname=test', 'COPY (SELECT 1) TO PROGRAM ''id''') AS t(x text)",
    "SELECT public.\"dblink_exec\"('dbname=test', 'DELETE FROM orders') AS x",
    "SELECT pg_file_write('/tmp/x', 'owned', false) AS x",
    "SELECT lo_export(16400, '/tmp/x') AS x",
    "SELECT pg_read_file('/etc/passwd') AS x",
    "SELECT pg_terminate_backend(pid) AS x FROM pg_stat_activity",
    "SELECT pg_advisory_lock(1) AS x",
    "SELECT query_to_xml('SELECT 1', true, true, '') AS x",
    # MySQL / MariaDB: server files and session locks.
    "SELECT LOAD_FILE('/etc/passwd') AS x",
    "SELECT `GET_LOCK`('held', 0) AS x",
]


@pytest.mark.parametrize("query", ATTACKS)
def test_a_side_effecting_function_is_refused_before_connecting(tmp_path: Path, query: str) -> None:
    path = tmp_path / "db.json"
    path.write_text(
        json.dumps(
            {"adapter": "sql", "url": "postgresql://nobody@127.0.0.1:1/none",
             "resources": {"r": {"query": query}}}
        )
    )  # fmt: skip
    with pytest.raises(InputError) as caught:
        open_state(str(path))
    assert "$.resources.r.query" in str(caught.value)
    assert "read-only transaction" in str(caught.value)


def test_a_function_named_only_inside_a_string_is_not_refused(tmp_path: Path) -> None:
    path = tmp_path / "db.json"
    path.write_text(
        '{"adapter": "sql", "url": "postgresql://nobody@127.0.0.1:1/none", "resources": '
        '{"r": {"query": "SELECT note FROM notes WHERE note = \'pg_read_file(1)\' AND id = :id"}}}'
    )
    open_state(str(path)).close()


@pytest.mark.parametrize("dialect", ["postgresql", "mysql"])
def test_configured_queries_refuse_a_superuser(
    tmp_path: Path, dialect: str, request: pytest.FixtureRequest
) -> None:
    """The test databases' own users (postgres, root) are superusers: a configured query over
    them is refused (exit 2) unless the adapter file opts in."""
    db: Db = request.getfixturevalue("pg" if dialect == "postgresql" else "maria")
    (tmp_path / "a.yaml").write_text(
        "version: 1\nassertions:\n  - {id: x, kind: state, resource: r, filters: {id: 1},"
        " expect: {order_id: A-1001}}\n"
    )
    query = f"SELECT id, order_id FROM {db.table} WHERE id = :id"
    _write(tmp_path / "db.yaml", db.source, query)
    ran = hotato("assert", "run", "--assertions", "a.yaml", "--state", "db.yaml", cwd=tmp_path)
    assert ran.code == 2, ran.out + ran.err
    assert "superuser" in ran.err and "allow_superuser" in ran.err
    _write(tmp_path / "db.yaml", db.source, query, "allow_superuser: true")
    ran = hotato("assert", "run", "--assertions", "a.yaml", "--state", "db.yaml", cwd=tmp_path)
    assert ran.code == 0, ran.out + ran.err


@pytest.mark.parametrize("dialect", ["postgresql", "mysql"])
def test_an_unprivileged_role_reads_with_configured_queries(
    tmp_path: Path, dialect: str, request: pytest.FixtureRequest
) -> None:
    db: Db = request.getfixturevalue("pg" if dialect == "postgresql" else "maria")
    with _reader_role(dialect, db.table) as url:
        _write(tmp_path / "db.yaml", url, f"SELECT id, status FROM {db.table} WHERE id = :id")
        with open_state(str(tmp_path / "db.yaml")) as state:
            assert state.after.query("r", {"id": 1}) == {"id": 1, "status": "refunded"}


def _write(path: Path, url: str, query: str, *extra: str) -> None:
    lines = ["adapter: sql", f"url: {url}", *extra, "resources:", "  r:", f'    query: "{query}"']
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


@contextmanager
def _reader_role(dialect: str, table: str, database: str = "test") -> Iterator[str]:
    """A login role that may only SELECT `table`, unique to this test, dropped after."""
    name = f"hotato_r_{uuid.uuid4().hex[:10]}"
    if dialect == "postgresql":
        admin = sa.create_engine(
            PG_URL.replace("postgresql://", "postgresql+psycopg://").rsplit("/", 1)[0]
            + f"/{database}"
        )
        setup = [f"CREATE ROLE {name} LOGIN", f"GRANT SELECT ON {table} TO {name}"]
        teardown = [f"DROP OWNED BY {name}", f"DROP ROLE {name}"]
        url = f"postgresql://{name}@127.0.0.1:5432/{database}"
    else:
        admin = sa.create_engine(MARIADB_URL.replace("mysql://", "mysql+pymysql://"))
        setup = [f"CREATE USER '{name}'@'%'", f"GRANT SELECT ON test.{table} TO '{name}'@'%'"]
        teardown = [f"DROP USER '{name}'@'%'"]
        url = f"mysql://{name}@127.0.0.1:3306/test"
    with admin.begin() as conn:
        for sql in setup:
            conn.execute(sa.text(sql))
    try:
        yield url
    finally:
        with admin.begin() as conn:
            for sql in teardown:
                conn.execute(sa.text(sql))
        admin.dispose()


# --- round 2: the database is the guarantee, not the spelling of a name -----------------------

DBLINK_DB = "hotato_dblink"  # a database of its own, so dblink is installed nowhere else


def _lit(text: str) -> str:
    """`text` as a SQL string literal."""
    return "'" + text.replace("'", "''") + "'"


def _issue_attacks(call: str) -> list[str]:
    """The two spellings from issue 25 that a name check does not see, each calling `call`:
    the call inside SQL text that ts_rewrite runs, and the function's name in Unicode escapes."""
    inner = f"SELECT {call}::text::tsquery, 'b'::tsquery"
    name, args = call.split("(", 1)
    escaped = "".join(c if c.isalnum() else f"!{ord(c):04x}" for c in name)
    return [
        f"SELECT ts_rewrite('a'::tsquery, {_lit(inner)}) AS x",
        f"SELECT U&\"{escaped}\" UESCAPE '!'({args} AS x",
    ]


@pytest.fixture
def dblink(pg: Db) -> Iterator[Db]:
    """A database with the dblink extension installed and an orders table in it."""
    admin = sa.create_engine(
        PG_URL.replace("postgresql://", "postgresql+psycopg://"), isolation_level="AUTOCOMMIT"
    )
    with admin.connect() as conn:
        if not conn.execute(
            sa.text(f"SELECT 1 FROM pg_database WHERE datname = '{DBLINK_DB}'")
        ).first():
            with contextlib.suppress(sa.exc.ProgrammingError, sa.exc.IntegrityError):
                conn.execute(sa.text(f"CREATE DATABASE {DBLINK_DB}"))  # another worker may win
    admin.dispose()
    url = PG_URL.rsplit("/", 1)[0] + f"/{DBLINK_DB}"
    engine = sa.create_engine(url.replace("postgresql://", "postgresql+psycopg://"))
    try:
        with engine.begin() as conn:
            conn.execute(sa.text("CREATE EXTENSION IF NOT EXISTS dblink"))
    except sa.exc.DBAPIError as exc:
        engine.dispose()
        _missing("the dblink extension (Debian: postgresql-contrib)", exc)
    table = f"hotato_t_{uuid.uuid4().hex[:10]}"

    def execute(sql: str) -> Any:
        with engine.begin() as conn:
            result = conn.execute(sa.text(sql))
            return result.fetchall() if result.returns_rows else None

    execute(f"CREATE TABLE {table} (id INTEGER PRIMARY KEY, order_id TEXT, status TEXT)")
    execute(f"INSERT INTO {table} VALUES (1, 'A-1001', 'refunded')")
    try:
        yield Db("postgresql", url, table, execute)
    finally:
        execute(f"DROP TABLE IF EXISTS {table}")
        engine.dispose()


def _missing(what: str, exc: Exception) -> None:
    if os.environ.get("HOTATO_REQUIRE_SERVICES", "") not in ("", "0"):
        pytest.fail(f"{what} is required (HOTATO_REQUIRE_SERVICES=1): {exc}", pytrace=False)
    pytest.skip(f"{what} is not available: {exc}")


def _statuses(db: Db) -> list[str]:
    return [row[0] for row in db.execute(f"SELECT status FROM {db.table} ORDER BY id")]


def _adapter(path: Path, url: str, query: str, **extra: Any) -> str:
    doc = {"adapter": "sql", "url": url, **extra, "resources": {"r": {"query": query}}}
    path.write_text(json.dumps(doc), encoding="utf-8")
    return str(path)


def _write_through_dblink(db: Db) -> str:
    remote = f"host=127.0.0.1 port=5432 dbname={DBLINK_DB} user=postgres"
    update = f"UPDATE {db.table} SET status = 'owned'"
    return f"dblink_exec({_lit(remote)}, {_lit(update)})"


@pytest.mark.parametrize("spelling", [0, 1], ids=["ts_rewrite", "unicode-escaped-name"])
def test_the_issues_dblink_attacks_commit_nothing_even_with_allow_superuser(
    tmp_path: Path, dblink: Db, spelling: int
) -> None:
    """As the superuser with `allow_superuser: true` (the only way in before), both spellings
    passed the name check and dblink committed the UPDATE in a session of its own. A superuser
    in a database where dblink is installed is now refused before any configured query."""
    query = _issue_attacks(_write_through_dblink(dblink))[spelling]
    (tmp_path / "a.yaml").write_text(
        "version: 1\nassertions:\n  - {id: x, kind: state, resource: r, filters: {}, "
        "expect: {x: y}}\n"
    )
    _adapter(tmp_path / "db.json", dblink.source, query, allow_superuser=True)
    ran = hotato("assert", "run", "--assertions", "a.yaml", "--state", "db.json", cwd=tmp_path)
    assert ran.code == 2, ran.out + ran.err
    assert "dblink" in ran.err and "read-only transaction" in ran.err
    assert _statuses(dblink) == ["refunded"]


@pytest.mark.parametrize("spelling", [0, 1], ids=["ts_rewrite", "unicode-escaped-name"])
def test_the_issues_dblink_attacks_commit_nothing_as_a_reader_role(
    dblink: Db, tmp_path: Path, spelling: int
) -> None:
    """As the recommended role (it may only SELECT), the same queries run and the database
    refuses them: dblink will not open a session for a role without a password."""
    query = _issue_attacks(_write_through_dblink(dblink))[spelling]
    with _reader_role("postgresql", dblink.table, DBLINK_DB) as url:
        path = _adapter(tmp_path / "db.json", url, query)
        with open_state(path) as state, pytest.raises(StateUnavailable):
            state.after.query("r", {})
    assert _statuses(dblink) == ["refunded"]


@pytest.mark.parametrize("spelling", [0, 1], ids=["ts_rewrite", "unicode-escaped-name"])
def test_a_write_no_name_check_sees_fails_in_the_read_only_transaction(
    dblink: Db, tmp_path: Path, spelling: int
) -> None:
    """A function that writes, called by either spelling: the read's transaction is read-only
    at the database, so the write fails whatever the text looks like."""
    fn = f"{dblink.table}_w"
    body = f"UPDATE {dblink.table} SET status = 'owned' RETURNING 'a'"
    dblink.execute(f"CREATE FUNCTION {fn}() RETURNS text LANGUAGE sql AS {_lit(body)}")
    query = _issue_attacks(f"{fn}()")[spelling]
    with _reader_role("postgresql", dblink.table, DBLINK_DB) as url:
        dblink.execute(f"GRANT EXECUTE ON FUNCTION {fn}() TO PUBLIC")
        path = _adapter(tmp_path / "db.json", url, query)
        with open_state(path) as state, pytest.raises(StateUnavailable) as exc:
            state.after.query("r", {})
    assert exc.value.cause == "write_refused", exc.value.message
    assert _statuses(dblink) == ["refunded"]


def test_mariadb_a_function_cannot_make_the_next_read_writable_or_unbounded(
    maria: Db, tmp_path: Path
) -> None:
    """A stored function can lift the session's READ ONLY and its statement timeout (MariaDB
    keeps such a change past a rollback). Every configured read starts its own
    `START TRANSACTION READ ONLY` with the timeout set again, so the next read still refuses a
    write (to a MyISAM table too, which no rollback would undo) and is still bounded."""
    lift, write, log = (f"{maria.table}_{x}" for x in ("lift", "w", "log"))
    maria.execute(f"CREATE TABLE {log} (x INT) ENGINE=MyISAM")
    maria.execute(
        f"CREATE FUNCTION {lift}() RETURNS INT NO SQL BEGIN SET SESSION tx_read_only = 0; "
        "SET SESSION max_statement_time = 0; RETURN 1; END"
    )
    maria.execute(
        f"CREATE FUNCTION {write}() RETURNS INT MODIFIES SQL DATA BEGIN "
        f"INSERT INTO {log} VALUES (1); RETURN 1; END"
    )
    try:
        path = tmp_path / "db.yaml"
        path.write_text(
            f"adapter: sql\nurl: {maria.source}\nallow_superuser: true\ntimeout_s: 3\n"
            f'resources:\n  lift:\n    query: "SELECT {lift}() AS n"\n'
            f'  write:\n    query: "SELECT {write}() AS n"\n'
            '  bound:\n    query: "SELECT @@max_statement_time AS t"\n',
            encoding="utf-8",
        )
        with open_state(str(path)) as state:
            state.after.query("lift", {})
            with pytest.raises(StateUnavailable) as exc:
                state.after.query("write", {})
            assert state.after.query("bound", {}) == {"t": 3}
        assert exc.value.cause == "write_refused"
        assert maria.execute(f"SELECT COUNT(*) FROM {log}")[0][0] == 0
    finally:
        for sql in (f"DROP FUNCTION IF EXISTS {lift}", f"DROP FUNCTION IF EXISTS {write}",
                    f"DROP TABLE IF EXISTS {log}"):  # fmt: skip
            maria.execute(sql)
