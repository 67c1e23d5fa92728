"""Database values as JSON values, so a record compares type-strictly and serializes as evidence."""

from __future__ import annotations

import datetime as dt
import decimal
from typing import Any

import msgspec


def to_json_value(value: Any, kind: str = "other") -> Any:
    """One column value. `kind` is the column's kind when the schema is known (see sql_schema)."""
    if value is None or isinstance(value, str | bool | int | float):
        if kind == "bool" and type(value) is int and value in (0, 1):
            return bool(value)  # MySQL BOOLEAN is TINYINT(1); SQLite stores booleans as 0/1
        if kind == "char" and isinstance(value, str):
            return value.rstrip(" ")
        if kind == "json" and isinstance(value, str):
            try:
                return to_json_value(msgspec.json.decode(value))
            except msgspec.DecodeError:
                return value
        return value
    if isinstance(value, decimal.Decimal):
        if value.is_finite() and value == value.to_integral_value():
            return int(value)
        return float(value)
    if isinstance(value, dt.datetime | dt.date | dt.time):
        return value.isoformat()
    if isinstance(value, bytes | bytearray | memoryview):
        return bytes(value).hex()
    if isinstance(value, dict):
        return {str(k): to_json_value(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        items = sorted(value, key=str) if isinstance(value, set | frozenset) else value
        return [to_json_value(v) for v in items]
    return str(value)  # UUID, timedelta, IP addresses, enums: their text form
