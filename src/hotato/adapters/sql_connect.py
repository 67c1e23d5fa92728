"""Where a SQL system of record is and how to reach it read-only: URL checks and the engine.

Read-only by construction: SQLite opens with `mode=ro` (a missing file is never created),
PostgreSQL sessions are `READ ONLY` and every transaction starts `BEGIN READ ONLY`, MariaDB and
MySQL sessions are `TRANSACTION READ ONLY` and every configured read starts `START TRANSACTION
READ ONLY` (see `begin_read`). Each has a statement timeout. A password never sits in a URL:
it comes from an environment variable named in the adapter file (`password_env`), or the
driver's own (`PGPASSWORD` for PostgreSQL, `MYSQL_PWD` for MySQL/MariaDB).
"""

from __future__ import annotations

import math
import os
import sqlite3
import time
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hotato._secrets import credential_keys, value_problem
from hotato.model.errors import InputError

if TYPE_CHECKING:
    from sqlalchemy.engine import Engine

_DRIVERS = {
    "postgresql": "postgresql",
    "postgres": "postgresql",
    "postgresql+psycopg": "postgresql",
    "mysql": "mysql",
    "mariadb": "mysql",
    "mysql+pymysql": "mysql",
    "mariadb+pymysql": "mysql",
    "sqlite": "sqlite",
}
_SQLALCHEMY_DRIVER = {"postgresql": "postgresql+psycopg", "mysql": "mysql+pymysql"}
DEFAULT_TIMEOUT_S = 5.0


@dataclass(frozen=True)
class SqlTarget:
    dialect: str  # postgresql, mysql or sqlite
    label: str  # shown to users: never holds a password
    url: str = ""  # SQLAlchemy URL without a password (postgresql, mysql)
    path: str = ""  # the database file (sqlite)
    timeout_s: float = DEFAULT_TIMEOUT_S
    password: str | None = field(default=None, repr=False)
    allow_superuser: bool = False  # run configured queries even as a privileged role


def is_database_url(source: str) -> bool:
    scheme = source.split("://", 1)[0].lower() if "://" in source else ""
    return scheme in _DRIVERS


def sql_target(
    url: str,
    *,
    file: str | None = None,
    path: str | None = None,
    password_env: str | None = None,
    base_dir: Path | None = None,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    allow_superuser: bool = False,
) -> SqlTarget:
    """A checked target for `url` (`file`/`path` locate it in an adapter file, for errors)."""
    scheme = url.split("://", 1)[0].lower() if "://" in url else ""
    dialect = _DRIVERS.get(scheme)
    if dialect is None:
        supported = "postgresql://, mysql://, mariadb://, sqlite:///"
        raise InputError.one(
            f"unsupported database URL scheme {scheme!r}; use {supported}", file=file, path=path
        )
    if dialect == "sqlite":
        raw = urllib.parse.unquote(url.split("://", 1)[1])
        if not raw.startswith("/"):
            raise InputError.one(
                "a sqlite URL is sqlite:///relative/path or sqlite:////abs/path",
                file=file,
                path=path,
            )
        db = Path(raw[1:])
        if not db.is_absolute() and base_dir is not None:
            db = base_dir / db
        return sqlite_target(str(db), timeout_s=timeout_s)

    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    try:
        parsed = make_url(url)
    except (ArgumentError, ValueError):
        raise InputError.one("not a database URL", file=file, path=path) from None
    if parsed.password is not None:
        raise InputError.one(
            "a database URL must not carry a password (it would show in shell history and "
            "logs); name an environment variable instead: password_env in an adapter file, or "
            + ("PGPASSWORD" if dialect == "postgresql" else "MYSQL_PWD"),
            file=file,
            path=path,
        )
    secret_keys = [k for k in parsed.query if credential_keys(f"{k}=")]
    if secret_keys:
        raise InputError.one(
            f"a database URL must not carry a credential in its query ({', '.join(secret_keys)}); "
            "name an environment variable instead: password_env in an adapter file, or "
            + ("PGPASSWORD" if dialect == "postgresql" else "MYSQL_PWD"),
            file=file,
            path=path,
        )
    parsed = parsed.set(drivername=_SQLALCHEMY_DRIVER[dialect])
    password = None
    if password_env:
        password = os.environ.get(password_env)
        if password is None:
            raise InputError.one(
                f"environment variable {password_env} (password_env) is not set",
                file=file,
                path=path,
            )
        if why := value_problem(password_env, password):
            raise InputError.one(why + " (password_env)", file=file, path=path)
    elif dialect == "mysql":
        password = os.environ.get("MYSQL_PWD")
    label = parsed.set(drivername=dialect).render_as_string(hide_password=True)
    return SqlTarget(
        dialect,
        label,
        url=parsed.render_as_string(hide_password=False),
        timeout_s=timeout_s,
        password=password,
        allow_superuser=allow_superuser,
    )


def sqlite_target(path: str, timeout_s: float = DEFAULT_TIMEOUT_S) -> SqlTarget:
    db = Path(path)
    if not db.is_file():
        raise InputError.one(
            "SQLite database file does not exist (it is never created)", file=str(path)
        )
    return SqlTarget("sqlite", f"SQLite file {path}", path=str(db.resolve()), timeout_s=timeout_s)


def create_engine(target: SqlTarget) -> Engine:
    """An engine whose every connection is read-only; connections open lazily."""
    import sqlalchemy as sa
    from sqlalchemy.pool import NullPool

    if target.dialect == "sqlite":
        uri = "file:" + urllib.parse.quote(target.path) + "?mode=ro"

        deadlines: dict[int, float] = {}  # raw connection -> when its statement must end

        def creator() -> sqlite3.Connection:
            conn = sqlite3.connect(uri, uri=True, timeout=target.timeout_s, check_same_thread=False)
            conn.execute("PRAGMA query_only = ON")
            key = id(conn)
            # SQLite has no statement timeout: a progress handler interrupts one that runs past
            # timeout_s (sqlite3.OperationalError "interrupted", reported as a timeout).
            conn.set_progress_handler(
                lambda: int(time.monotonic() > deadlines.get(key, math.inf)), 1000
            )
            return conn

        engine = sa.create_engine("sqlite://", creator=creator, poolclass=NullPool)

        def start_clock(conn: Any, *_: Any) -> None:
            raw = conn.connection.dbapi_connection
            deadlines[id(raw)] = time.monotonic() + target.timeout_s

        sa.event.listen(engine, "before_cursor_execute", start_clock)
        return engine

    from sqlalchemy.engine import make_url

    url = make_url(target.url)
    if target.password is not None:
        url = url.set(password=target.password)
    seconds = max(2, math.ceil(target.timeout_s))
    if target.dialect == "postgresql":
        engine = sa.create_engine(
            url, poolclass=NullPool, connect_args={"connect_timeout": seconds}
        )
        sa.event.listen(engine, "connect", _postgresql_read_only(target.timeout_s))
    else:
        engine = sa.create_engine(
            url,
            poolclass=NullPool,
            connect_args={
                "connect_timeout": seconds,
                "read_timeout": seconds,
                "write_timeout": seconds,
            },
        )
        sa.event.listen(engine, "connect", _mysql_read_only(target.timeout_s))
    return engine


def _postgresql_read_only(timeout_s: float) -> Any:
    def on_connect(dbapi_conn: Any, _record: Any) -> None:
        with dbapi_conn.cursor() as cur:
            cur.execute("SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY")
            cur.execute(f"SET statement_timeout = {int(timeout_s * 1000)}")
        dbapi_conn.commit()
        # Every transaction psycopg opens is BEGIN READ ONLY, which no statement inside it can
        # undo; and every read ends in a rollback, so no session setting outlives a read.
        dbapi_conn.read_only = True

    return on_connect


def begin_read(conn: Any, target: SqlTarget) -> None:
    """Start one configured read: on MariaDB/MySQL an explicit `START TRANSACTION READ ONLY`
    with the statement timeout set again first. The session's own settings are not enough
    there: a stored function a query calls can lift them (`SET SESSION tx_read_only = 0`),
    and they would outlive the read's rollback. PostgreSQL needs nothing here: psycopg
    opens every transaction with `BEGIN READ ONLY`, and a setting changed inside one is
    undone by the rollback that ends it."""
    if target.dialect != "mysql":
        return
    conn.exec_driver_sql(_mysql_timeout(conn.dialect.is_mariadb, target.timeout_s))
    conn.exec_driver_sql("START TRANSACTION READ ONLY")


def _mysql_timeout(mariadb: bool, timeout_s: float) -> str:
    if mariadb:
        return f"SET SESSION max_statement_time = {float(timeout_s)}"
    return f"SET SESSION max_execution_time = {int(timeout_s * 1000)}"


def _mysql_read_only(timeout_s: float) -> Any:
    def on_connect(dbapi_conn: Any, _record: Any) -> None:
        mariadb = "mariadb" in str(dbapi_conn.get_server_info()).lower()
        with dbapi_conn.cursor() as cur:
            cur.execute("SET SESSION TRANSACTION READ ONLY")
            cur.execute(_mysql_timeout(mariadb, timeout_s))
        dbapi_conn.commit()

    return on_connect
