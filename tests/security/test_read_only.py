"""Read-only means read-only: a configured query may not call functions whose effect a READ ONLY
transaction does not stop, and configured queries do not run as a superuser unless the adapter
file says so. Against real PostgreSQL and MariaDB, with a real unprivileged role."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import sqlalchemy as sa
from tests.adapters.conftest import MARIADB_URL, PG_URL, Db
from tests.conftest import hotato

from hotato.adapters import open_state
from hotato.model.errors import InputError

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
def _reader_role(dialect: str, table: str) -> Iterator[str]:
    """A login role that may only SELECT `table`, unique to this test, dropped after."""
    name = f"hotato_r_{uuid.uuid4().hex[:10]}"
    if dialect == "postgresql":
        admin = sa.create_engine(PG_URL.replace("postgresql://", "postgresql+psycopg://"))
        setup = [f"CREATE ROLE {name} LOGIN", f"GRANT SELECT ON {table} TO {name}"]
        teardown = [f"DROP OWNED BY {name}", f"DROP ROLE {name}"]
        url = f"postgresql://{name}@127.0.0.1:5432/test"
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
