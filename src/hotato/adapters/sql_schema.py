"""The database's own schema: which tables and columns exist, and what kind each column holds.

Names in a query come from here, never from the user's text: a resource or filter that is not
in the schema is refused before any query is built.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Any

from hotato.model.state import StateUnavailable


@dataclass(frozen=True)
class TableShape:
    name: str
    schema: str | None
    columns: dict[str, str]  # column -> kind: string, char, number, bool, json, other
    primary_key: tuple[str, ...]


def reflect_table(conn: Any, resource: str) -> TableShape:
    """The shape of table (or view) `resource`, `schema.table` allowed. Raises StateUnavailable
    `unknown_resource` when the database has no such table."""
    from sqlalchemy import inspect

    inspector = inspect(conn)
    schema, _, name = resource.rpartition(".")
    schema_name = schema or None
    if schema_name is not None and schema_name not in inspector.get_schema_names():
        raise StateUnavailable("unknown_resource", f"the database has no schema {schema_name!r}")
    known = [
        *inspector.get_table_names(schema=schema_name),
        *inspector.get_view_names(schema=schema_name),
    ]
    if name not in known:
        raise StateUnavailable(
            "unknown_resource", f"the database has no table {resource!r}{_hint(name, known)}"
        )
    columns = {
        c["name"]: column_kind(c["type"]) for c in inspector.get_columns(name, schema=schema_name)
    }
    pk = inspector.get_pk_constraint(name, schema=schema_name) or {}
    return TableShape(name, schema_name, columns, tuple(pk.get("constrained_columns") or ()))


def check_filters(shape: TableShape, filters: dict[str, Any]) -> None:
    """Every filter names a column (or a dotted path into one). Raises `unknown_column`."""
    for key in filters:
        root = key.split(".", 1)[0]
        if key not in shape.columns and root not in shape.columns:
            raise StateUnavailable(
                "unknown_column",
                f"table {shape.name!r} has no column {key!r}{_hint(key, list(shape.columns))}",
            )


def column_kind(sql_type: Any) -> str:
    import sqlalchemy as sa

    if isinstance(sql_type, sa.Boolean):
        return "bool"
    if isinstance(sql_type, sa.Integer) and getattr(sql_type, "display_width", None) == 1:
        return "bool"  # MySQL/MariaDB BOOLEAN is TINYINT(1)
    if isinstance(sql_type, sa.Enum):
        return "other"
    if isinstance(sql_type, sa.CHAR | sa.NCHAR):
        return "char"  # fixed width: the padding is not part of the value
    if isinstance(sql_type, sa.String):
        return "string"
    if isinstance(sql_type, sa.Integer | sa.Numeric):
        return "number"
    if isinstance(sql_type, sa.JSON):
        return "json"
    return "other"


def value_kind(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "json"


def _hint(name: str, known: list[str]) -> str:
    close = difflib.get_close_matches(name, known, n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""
