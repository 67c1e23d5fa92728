"""Could not read: every way a database can fail to answer is StateUnavailable with a typed
cause, within the timeout, and never shows a credential."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from tests.adapters.conftest import Db, Proxy, Silent, free_port

from hotato.adapters import open_state
from hotato.model.errors import InputError
from hotato.model.state import StateUnavailable

SECRET = "pw-Zq81-never-shown"


def sql_adapter(
    tmp_path: Path, url: str, *, timeout_s: float = 2, password_env: str | None = None
) -> str:
    path = tmp_path / "db.yaml"
    lines = ["adapter: sql", f"url: {url}", f"timeout_s: {timeout_s}"]
    if password_env:
        lines.append(f"password_env: {password_env}")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(path)


def unavailable(source: str, resource: str = "orders") -> tuple[StateUnavailable, float]:
    start = time.monotonic()
    with open_state(source) as state, pytest.raises(StateUnavailable) as exc:
        state.after.query(resource, {"id": 1})
    return exc.value, time.monotonic() - start


@pytest.mark.parametrize("scheme", ["postgresql", "mysql"])
def test_a_closed_port_is_connection_refused(scheme: str) -> None:
    err, took = unavailable(f"{scheme}://root@127.0.0.1:{free_port()}/test")
    assert err.cause == "connection_refused"
    assert took < 3


@pytest.mark.parametrize("scheme", ["postgresql", "mysql"])
def test_a_hung_server_is_a_timeout_not_a_hang(scheme: str, silent: Silent, tmp_path: Path) -> None:
    err, took = unavailable(sql_adapter(tmp_path, f"{scheme}://root@127.0.0.1:{silent.port}/test"))
    assert err.cause == "timeout", err.message
    assert took < 6


@pytest.mark.parametrize("scheme", ["postgresql", "mysql"])
def test_an_unknown_host_is_dns(scheme: str) -> None:
    err, took = unavailable(f"{scheme}://root@db.hotato-test.invalid/test")
    assert err.cause == "dns"
    assert took < 5


@pytest.mark.services("postgresql")
def test_postgresql_an_unknown_role_is_auth_failed() -> None:
    err, _ = unavailable("postgresql://no_such_role_hotato@127.0.0.1:5432/test")
    assert err.cause == "auth_failed"


@pytest.mark.services("mariadb")
def test_mariadb_a_wrong_password_is_auth_failed_and_never_shown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOTATO_TEST_DB_PASSWORD", SECRET)
    source = sql_adapter(
        tmp_path, "mysql://root@127.0.0.1:3306/test", password_env="HOTATO_TEST_DB_PASSWORD"
    )
    with open_state(source) as state:
        with pytest.raises(StateUnavailable) as exc:
            state.after.query("orders", {"id": 1})
        shown = [
            state.description,
            repr(state),
            repr(state.after),
            exc.value.message,
            str(exc.value),
        ]
    assert exc.value.cause == "auth_failed"
    assert "Access denied" in exc.value.message
    assert not any(SECRET in text for text in shown)


def test_an_unset_password_variable_is_refused_by_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("HOTATO_TEST_UNSET", raising=False)
    with pytest.raises(InputError) as exc:
        open_state(
            sql_adapter(
                tmp_path, "postgresql://postgres@127.0.0.1/test", password_env="HOTATO_TEST_UNSET"
            )
        )
    assert "HOTATO_TEST_UNSET" in str(exc.value) and "$.password_env" in str(exc.value)


@pytest.mark.parametrize(
    "url",
    [f"postgresql://postgres:{SECRET}@127.0.0.1/test", f"mysql://root:{SECRET}@127.0.0.1/test"],
)
def test_a_password_in_a_url_is_refused_without_echoing_it(url: str) -> None:
    with pytest.raises(InputError) as exc:
        open_state(url)
    assert "password" in str(exc.value) and SECRET not in str(exc.value)


@pytest.mark.parametrize(
    "scheme",
    [
        pytest.param("postgresql", marks=pytest.mark.services("postgresql")),
        pytest.param("mysql", marks=pytest.mark.services("mariadb")),
    ],
)
def test_an_unknown_database_is_its_own_cause(scheme: str) -> None:
    user = "postgres" if scheme == "postgresql" else "root"
    err, _ = unavailable(f"{scheme}://{user}@127.0.0.1/hotato_no_such_db")
    assert err.cause == "unknown_database"


@pytest.mark.parametrize("name", ["pg", "maria"])
def test_a_server_that_stops_mid_run(name: str, request: pytest.FixtureRequest) -> None:
    db: Db = request.getfixturevalue(name)
    port = 5432 if db.dialect == "postgresql" else 3306
    proxy = Proxy(port)
    source = db.source.replace(f":{port}/", f":{proxy.port}/")
    with open_state(source) as state:
        assert state.after.query(db.table, {"id": 1}) is not None
        proxy.stop()
        start = time.monotonic()
        with pytest.raises(StateUnavailable) as lost:
            state.after.query(db.table, {"id": 2})
        with pytest.raises(StateUnavailable) as gone:
            state.after.query(db.table, {"id": 3})
        assert time.monotonic() - start < 6
        assert state.after.query(db.table, {"id": 1}) is not None  # asked before: answered
    assert lost.value.cause == "connection_lost"
    assert gone.value.cause == "connection_refused"


def test_an_unreachable_server_is_not_asked_again_in_the_same_run(
    silent: Silent, tmp_path: Path
) -> None:
    source = sql_adapter(tmp_path, f"postgresql://root@127.0.0.1:{silent.port}/test")
    with open_state(source) as state:
        start = time.monotonic()
        causes = []
        for i in range(5):
            with pytest.raises(StateUnavailable) as exc:
                state.after.query("orders", {"id": i})
            causes.append(exc.value.cause)
        assert time.monotonic() - start < 6  # one timeout, not five
    assert causes == ["timeout"] * 5


def test_a_sql_error_in_a_configured_query_is_sql_error(pg: Db, tmp_path: Path) -> None:
    path = tmp_path / "q.yaml"
    path.write_text(
        f"adapter: sql\nurl: {pg.source}\nallow_superuser: true\n"
        "resources:\n  broken:\n"
        f"    query: SELECT no_such_column FROM {pg.table} WHERE id = :id\n",
        encoding="utf-8",
    )
    with open_state(str(path)) as state, pytest.raises(StateUnavailable) as exc:
        state.after.query("broken", {"id": 1})
    assert exc.value.cause == "unknown_column" and "no_such_column" in exc.value.message
    path.write_text(
        f"adapter: sql\nurl: {pg.source}\nallow_superuser: true\n"
        "resources:\n  broken:\n"
        "    query: SELECT 1 / (id - id) AS n FROM "
        f"{pg.table} WHERE id = :id\n",
        encoding="utf-8",
    )
    with open_state(str(path)) as state, pytest.raises(StateUnavailable) as exc:
        state.after.query("broken", {"id": 1})
    assert exc.value.cause == "sql_error" and "division by zero" in exc.value.message
