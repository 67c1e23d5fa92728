"""The SELECT for a table read: which filters the database applies, and the statement itself.

Only names from the schema and bound parameters go into it. A filter goes to the database when
its value's type is the column's own (text to text, number to number, boolean to boolean);
a value of another type can match no row, so the read is answered without asking; columns
whose values are compared as text (dates, enums, JSON) are compared after the read, never cast.
Statements are built once per table and filter shape, and reused with new parameter values.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from hotato.adapters.sql_schema import TableShape, value_kind

PAGE = 50


@dataclass(frozen=True)
class Plan:
    """How each pushed-down filter appears in the WHERE clause: (column, bind type or "null")."""

    terms: tuple[tuple[str, str], ...]

    def params(self, filters: dict[str, Any]) -> dict[str, Any]:
        return {f"p{i}": filters[col] for i, (col, how) in enumerate(self.terms) if how != "null"}


def plan(shape: TableShape, filters: dict[str, Any], dialect: str) -> Plan | None:
    """The plan, or None when the types alone show that no row can match."""
    terms = []
    for key, value in filters.items():
        kind = shape.columns.get(key)
        if kind is None:  # a dotted path into a JSON column: compared after the read
            continue
        if value is None:
            terms.append((key, "null"))
            continue
        got = value_kind(value)
        if got == "json":
            continue
        if dialect != "sqlite":  # SQLite does not enforce declared types: always ask it
            declared = "string" if kind == "char" else kind
            if declared not in ("string", "number", "bool"):
                continue
            if declared != got:
                return None  # a text column never holds the number 2139: type-strict
        terms.append((key, _bind_type_name(value)))
    return Plan(tuple(terms))


def build(shape: TableShape, how: Plan, offset: int = 0) -> Any:
    """The statement for `how`, first in primary-key order, one page at `offset`."""
    import sqlalchemy as sa

    t = sa.table(shape.name, *(sa.column(c) for c in shape.columns), schema=shape.schema)
    conditions = [
        t.c[col].is_(None)
        if bind == "null"
        else t.c[col] == sa.bindparam(f"p{i}", type_=_bind_type(bind))
        for i, (col, bind) in enumerate(how.terms)
    ]
    stmt = sa.select(*t.c).where(*conditions)
    if shape.primary_key:
        stmt = stmt.order_by(*(t.c[k] for k in shape.primary_key)).limit(PAGE).offset(offset)
    return stmt


def _bind_type_name(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "bigint" if -(2**63) <= value < 2**63 else "numeric"
    if isinstance(value, float):
        return "float"
    return "string"


def _bind_type(name: str) -> Any:
    import sqlalchemy as sa

    types = {
        "bool": sa.Boolean,
        "bigint": sa.BigInteger,
        "numeric": sa.Numeric,
        "float": sa.Float,
        "string": sa.String,
    }
    return types[name]()
