"""The SQL reader: a table with column-equality filters, or a configured SELECT per resource.

One connection per run, opened at the first read and kept; every read is its own read-only
transaction, ended by a rollback. Values are always bound parameters; table and column names
come from the database's schema. Rows are compared with the filters type-strictly after the
database answers, so a database's own coercions ('02139' = 2139 in MySQL, case-insensitive
collations) never make a record match.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from hotato.adapters._compare import row_matches
from hotato.adapters._values import to_json_value
from hotato.adapters.config import SqlResourceSpec
from hotato.adapters.sql_connect import SqlTarget, create_engine
from hotato.adapters.sql_errors import unavailable
from hotato.adapters.sql_guard import parameters
from hotato.adapters.sql_schema import TableShape, check_filters, reflect_table, value_kind
from hotato.model.state import StateUnavailable

if TYPE_CHECKING:
    from sqlalchemy.engine import Connection, Engine

_PAGE = 50
_NO_MATCH = object()  # a filter no row can satisfy, known without asking


class SqlReader:
    def __init__(self, target: SqlTarget,
                 resources: Mapping[str, SqlResourceSpec] | None = None) -> None:
        self.target = target
        self.resources = resources
        self.connects = 0  # connections opened (1 for a whole run, unless one is lost)
        self._engine: Engine | None = None
        self._conn: Connection | None = None
        self._shapes: dict[str, TableShape] = {}
        self._down: StateUnavailable | None = None
        self._secrets = [target.password] if target.password else []

    def query(self, resource: str, filters: Mapping[str, Any]) -> dict[str, Any] | None:
        from sqlalchemy.exc import SQLAlchemyError

        wanted = dict(filters)
        conn = self._connection()
        try:
            spec = self._spec(resource)
            if spec.query is not None:
                return self._configured(conn, resource, spec.query, wanted)
            return self._table(conn, spec.table or resource, wanted)
        except (SQLAlchemyError, OSError) as exc:
            raise unavailable(exc, f"read {resource!r}", self._secrets) from None
        finally:
            self._end(conn)

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None
        if self._engine is not None:
            self._engine.dispose()
            self._engine = None

    def __enter__(self) -> SqlReader:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    # -- connection ---------------------------------------------------------------------------

    def _connection(self) -> Connection:
        from sqlalchemy.exc import SQLAlchemyError

        if self._down is not None:  # the system of record was unreachable: do not wait again
            raise self._down.with_traceback(None)
        if self._conn is not None and not self._conn.invalidated:
            return self._conn
        if self._engine is None:
            self._engine = create_engine(self.target)
        try:
            self._conn = self._engine.connect()
        except (SQLAlchemyError, OSError) as exc:
            self._down = unavailable(exc, f"connect to {self.target.label}", self._secrets)
            raise self._down from None
        self.connects += 1
        return self._conn

    def _end(self, conn: Connection) -> None:
        """End the read's transaction; a connection that cannot is dropped, and reopened next
        time."""
        from sqlalchemy.exc import SQLAlchemyError

        try:
            if not conn.invalidated:
                conn.rollback()
                return
        except (SQLAlchemyError, OSError):
            pass
        self._conn = None
        with contextlib.suppress(SQLAlchemyError, OSError):
            conn.close()

    # -- reads --------------------------------------------------------------------------------

    def _spec(self, resource: str) -> SqlResourceSpec:
        if self.resources is None:
            return SqlResourceSpec(table=resource)
        spec = self.resources.get(resource)
        if spec is None:
            mapped = ", ".join(sorted(self.resources)) or "none"
            raise StateUnavailable("unknown_resource",
                                   f"the adapter file maps no resource {resource!r} "
                                   f"(it maps: {mapped})")
        return spec

    def _table(self, conn: Connection, table: str, filters: dict[str, Any]
               ) -> dict[str, Any] | None:
        import sqlalchemy as sa

        shape = self._shapes.get(table)
        if shape is None:
            shape = self._shapes[table] = reflect_table(conn, table)
        check_filters(shape, filters)
        t = sa.table(shape.name, *(sa.column(c) for c in shape.columns), schema=shape.schema)
        conditions = []
        for key, value in filters.items():
            if key in shape.columns:
                condition = self._condition(t.c[key], shape.columns[key], value)
                if condition is _NO_MATCH:
                    return None
                if condition is not None:
                    conditions.append(condition)
        stmt = sa.select(*t.c).where(*conditions)
        if not shape.primary_key:  # no stable order to page by: one pass over the matches
            return _first(conn.execute(stmt).mappings(), shape.columns, filters)
        stmt = stmt.order_by(*(t.c[k] for k in shape.primary_key))
        offset = 0
        while True:  # first in primary-key order; pages only when the database's match was loose
            rows = conn.execute(stmt.limit(_PAGE).offset(offset)).mappings().fetchall()
            record = _first(rows, shape.columns, filters)
            if record is not None or len(rows) < _PAGE:
                return record
            offset += _PAGE

    def _condition(self, column: Any, kind: str, value: Any) -> Any:
        """The WHERE term for one filter; None when it is checked after the read only."""
        import sqlalchemy as sa

        if value is None:
            return column.is_(None)
        got = value_kind(value)
        if got == "json":
            return None
        if self.target.dialect != "sqlite":  # SQLite does not enforce declared types
            declared = "string" if kind == "char" else kind
            if declared in ("string", "number", "bool") and declared != got:
                return _NO_MATCH  # a text column never holds the number 2139: type-strict
            if declared not in ("string", "number", "bool"):
                return None  # dates, enums, JSON: compared after the read, never cast
        return column == sa.bindparam(None, value, type_=_bind_type(value))

    def _configured(self, conn: Connection, resource: str, sql: str, filters: dict[str, Any]
                    ) -> dict[str, Any] | None:
        import sqlalchemy as sa

        names = parameters(sql)
        absent = [n for n in names if n not in filters]
        if absent:
            raise StateUnavailable("missing_parameter",
                                   f"the query for {resource!r} needs filter(s) {absent}")
        result = conn.execute(sa.text(sql), {n: filters[n] for n in names})
        columns = list(result.keys())
        unknown = [k for k in filters
                   if k not in names and k.split(".", 1)[0] not in columns]
        if unknown:
            raise StateUnavailable("unknown_column",
                                   f"filter(s) {unknown} are neither parameters of the query for "
                                   f"{resource!r} nor columns it returns ({columns})")
        checked = {k: v for k, v in filters.items() if k.split(".", 1)[0] in columns}
        return _first(result.mappings(), {}, checked)


def _first(rows: Iterable[Mapping[Any, Any]], kinds: dict[str, str], filters: dict[str, Any]
           ) -> dict[str, Any] | None:
    """The first row, as a JSON record, that matches every filter type-strictly."""
    for row in rows:
        record = {k: to_json_value(v, kinds.get(k, "other")) for k, v in row.items()}
        if row_matches(record, filters):
            return record
    return None


def _bind_type(value: Any) -> Any:
    import sqlalchemy as sa

    if isinstance(value, bool):
        return sa.Boolean()
    if isinstance(value, int):
        return sa.BigInteger() if -(2**63) <= value < 2**63 else sa.Numeric()
    if isinstance(value, float):
        return sa.Float()
    return sa.String()
