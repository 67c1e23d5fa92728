"""The SQL reader: a table with column-equality filters, or a configured SELECT per resource.

Connections open at the first read and are kept for the run (see SqlReader). Values are always
bound parameters; table and column names come from the database's schema. Rows are compared
with the filters type-strictly after the database answers, so a database's own coercions
('02139' = 2139 in MySQL, case-insensitive collations) never make a record match.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from hotato.adapters import sql_select
from hotato.adapters._compare import row_matches
from hotato.adapters._values import to_json_value
from hotato.adapters.config import SqlResourceSpec
from hotato.adapters.sql_connect import SqlTarget, begin_read, create_engine
from hotato.adapters.sql_errors import unavailable
from hotato.adapters.sql_guard import parameters
from hotato.adapters.sql_role import privilege_problem
from hotato.adapters.sql_schema import TableShape, check_filters, reflect_table
from hotato.model.errors import InputError
from hotato.model.state import StateUnavailable

if TYPE_CHECKING:
    from sqlalchemy.engine import Connection, Engine


class SqlReader:
    """Reads a SQL system of record for one run.

    Table reads (statements hotato builds from the schema) run in autocommit on a session whose
    every transaction is READ ONLY: one round trip each. A configured SELECT, whose text the
    adapter file gives, runs on its own connection inside an explicit read-only transaction
    with a statement timeout (`BEGIN READ ONLY`, `START TRANSACTION READ ONLY`: see
    sql_connect.begin_read) that is rolled back, so the database refuses any write it makes,
    whatever its text spells, and nothing it calls can leave the next read writable.
    """

    def __init__(
        self, target: SqlTarget, resources: Mapping[str, SqlResourceSpec] | None = None
    ) -> None:
        self.target = target
        self.resources = resources
        self.connects = 0  # connections opened: at most two per run, unless one is lost
        self._engine: Engine | None = None
        self._conns: dict[bool, Connection] = {}  # autocommit? -> connection
        self._shapes: dict[str, TableShape] = {}
        self._statements: dict[tuple[str, sql_select.Plan], Any] = {}
        self._down: StateUnavailable | None = None
        self._secrets = [target.password] if target.password else []

    def query(self, resource: str, filters: Mapping[str, Any]) -> dict[str, Any] | None:
        from sqlalchemy.exc import SQLAlchemyError

        wanted = dict(filters)
        spec = self._spec(resource)
        autocommit = spec.query is None
        conn = self._connection(autocommit)
        try:
            if spec.query is not None:
                return self._configured(conn, resource, spec.query, wanted)
            return self._table(conn, spec.table or resource, wanted)
        except (SQLAlchemyError, OSError) as exc:
            raise unavailable(exc, f"read {resource!r}", self._secrets) from None
        finally:
            self._end(conn, autocommit)

    def new_call(self) -> None:
        """A long-lived grader starts another call: an earlier call's unreachable verdict
        is forgotten, so the system of record is tried again."""
        self._down = None

    def close(self) -> None:
        for conn in self._conns.values():
            with contextlib.suppress(Exception):
                conn.close()
        self._conns.clear()
        if self._engine is not None:
            self._engine.dispose()
            self._engine = None

    def __enter__(self) -> SqlReader:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    # -- connections --------------------------------------------------------------------------

    def _connection(self, autocommit: bool) -> Connection:
        from sqlalchemy.exc import SQLAlchemyError

        if self._down is not None:  # the system of record was unreachable: do not wait again
            raise self._down.with_traceback(None)
        conn = self._conns.get(autocommit)
        if conn is not None and not conn.invalidated:
            return conn
        if self._engine is None:
            self._engine = create_engine(self.target)
        try:
            conn = self._engine.connect()
            if autocommit and self.target.dialect != "sqlite":
                conn = conn.execution_options(isolation_level="AUTOCOMMIT")
        except (SQLAlchemyError, OSError) as exc:
            self._down = unavailable(exc, f"connect to {self.target.label}", self._secrets)
            raise self._down from None
        self.connects += 1
        self._conns[autocommit] = conn
        if not autocommit:
            self._check_role(conn)
        return conn

    def _check_role(self, conn: Connection) -> None:
        """Configured queries run only as a role that cannot reach past a read-only
        transaction (unless the adapter file allows it): refused, exit 2."""
        problem = privilege_problem(conn, self.target)
        conn.rollback()
        if problem is not None:
            self.close()
            raise InputError.one(problem)

    def _end(self, conn: Connection, autocommit: bool) -> None:
        """End the read's transaction; a connection that cannot is dropped (and reopened by
        the next read)."""
        from sqlalchemy.exc import SQLAlchemyError

        if not conn.invalidated and autocommit and self.target.dialect != "sqlite":
            return  # no transaction to end (a ROLLBACK would cost MySQL a round trip)
        try:
            if not conn.invalidated:
                conn.rollback()
                return
        except (SQLAlchemyError, OSError):
            pass
        self._conns.pop(autocommit, None)
        with contextlib.suppress(SQLAlchemyError, OSError):
            conn.close()

    # -- reads --------------------------------------------------------------------------------

    def _spec(self, resource: str) -> SqlResourceSpec:
        if self.resources is None:
            return SqlResourceSpec(table=resource)
        spec = self.resources.get(resource)
        if spec is None:
            mapped = ", ".join(sorted(self.resources)) or "none"
            raise StateUnavailable(
                "unknown_resource",
                f"the adapter file maps no resource {resource!r} (it maps: {mapped})",
            )
        return spec

    def _table(
        self, conn: Connection, table: str, filters: dict[str, Any]
    ) -> dict[str, Any] | None:
        shape = self._shapes.get(table)
        if shape is None:
            shape = self._shapes[table] = reflect_table(conn, table)
        check_filters(shape, filters)
        how = sql_select.plan(shape, filters, self.target.dialect)
        if how is None:
            return None
        key = (table, how)
        stmt = self._statements.get(key)
        if stmt is None:
            stmt = self._statements[key] = sql_select.build(shape, how)
        params = how.params(filters)
        offset = 0
        while True:  # first in primary-key order; pages only when the database's match was loose
            rows = conn.execute(stmt, params).mappings().fetchall()
            record = _first(rows, shape.columns, filters)
            if record is not None or not shape.primary_key or len(rows) < sql_select.PAGE:
                return record
            offset += sql_select.PAGE
            stmt = sql_select.build(shape, how, offset)

    def _configured(
        self, conn: Connection, resource: str, sql: str, filters: dict[str, Any]
    ) -> dict[str, Any] | None:
        import sqlalchemy as sa

        names = parameters(sql)
        absent = [n for n in names if n not in filters]
        if absent:
            raise StateUnavailable(
                "missing_parameter", f"the query for {resource!r} needs filter(s) {absent}"
            )
        begin_read(conn, self.target)
        result = conn.execute(sa.text(sql), {n: filters[n] for n in names})
        columns = list(result.keys())
        unknown = [k for k in filters if k not in names and k.split(".", 1)[0] not in columns]
        if unknown:
            raise StateUnavailable(
                "unknown_column",
                f"filter(s) {unknown} are neither parameters of the query for "
                f"{resource!r} nor columns it returns ({columns})",
            )
        checked = {k: v for k, v in filters.items() if k.split(".", 1)[0] in columns}
        return _first(result.mappings(), {}, checked)


def _first(
    rows: Iterable[Mapping[Any, Any]], kinds: dict[str, str], filters: dict[str, Any]
) -> dict[str, Any] | None:
    """The first row, as a JSON record, that matches every filter type-strictly."""
    for row in rows:
        record = {k: to_json_value(v, kinds.get(k, "other")) for k, v in row.items()}
        if row_matches(record, filters):
            return record
    return None
