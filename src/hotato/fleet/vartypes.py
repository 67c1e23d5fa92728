"""The types of a manifest's variable columns, so a call's `variables` come back from the
results as they went in: an integer as an integer, a flag as a boolean.

The types are read from the manifest's values in the pass that checks it: a column whose
values are all integers is `int64`, integers and decimals `float64`, all booleans `bool`, and
anything else (text, a mix, a list or an object) `string`, non-text values written as JSON.
A CSV manifest holds text only, so its columns are `string`. The types are recorded in
`fleet.json` when a results folder is created; a resume writes the same ones, and a value
that does not fit its recorded type is stored as null (unknown, never a guess)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import msgspec

if TYPE_CHECKING:
    import pyarrow as pa

    from hotato.fleet.manifest import CallRow

INT64 = range(-(2**63), 2**63)


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int64" if value in INT64 else "string"
    if isinstance(value, float):
        return "float64"
    return "string"


class VariableTypes:
    """Collects, call by call, the kinds of value each variable column holds."""

    def __init__(self) -> None:
        self._seen: dict[str, set[str]] = {}

    def visit(self, call: CallRow) -> None:
        for name, value in call.variables.items():
            if value is not None:
                self._seen.setdefault(name, set()).add(_kind(value))

    def types(self) -> dict[str, str]:
        """Column name -> int64 | float64 | bool | string, by name."""
        out = {}
        for name, kinds in sorted(self._seen.items()):
            if kinds <= {"int64"}:
                out[name] = "int64"
            elif kinds <= {"int64", "float64"}:
                out[name] = "float64"
            elif kinds == {"bool"}:
                out[name] = "bool"
            else:
                out[name] = "string"
        return out


def arrow_type(types: dict[str, str] | None) -> pa.DataType:
    """A struct of the typed columns; with none (or for a folder hotato 2.0 wrote) the text
    map hotato 2.0 wrote (Parquet has no struct without fields)."""
    import pyarrow as pa

    if not types:
        return pa.map_(pa.string(), pa.string())
    arrow = {"int64": pa.int64(), "float64": pa.float64(), "bool": pa.bool_()}
    return pa.struct([(name, arrow.get(kind, pa.string())) for name, kind in types.items()])


def row_value(types: dict[str, str] | None, variables: dict[str, Any]) -> Any:
    """A call's variables as the `variables` column holds them."""
    if not types:
        return {k: _text(v) for k, v in sorted(variables.items())}
    return {name: _typed(variables.get(name), kind) for name, kind in types.items()}


def _typed(value: Any, kind: str) -> Any:
    if value is None:
        return None
    if kind == "string":
        return _text(value)
    if kind == "bool":
        return value if isinstance(value, bool) else None
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if kind == "int64":
        return value if isinstance(value, int) and value in INT64 else None
    return float(value)


def _text(value: Any) -> str:
    return value if isinstance(value, str) else msgspec.json.encode(value).decode()
