"""`hotato fleet summary`: per assertion, n, pass, fail, inconclusive and the pass rate with a
Wilson 95% interval, computed by DuckDB over the results folder.

The rate is pass / (pass + fail): INCONCLUSIVE is counted on its own, never as a pass or a
fail. With no PASS and no FAIL the rate is None."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hotato.model.errors import InputError
from hotato.model.fleet import CallCounts, CallRecord, Rate, ResultRecord, Summary, columns

__all__ = ["GROUPS", "CallCounts", "Rate", "Summary", "summarize"]

GROUPS = ("agent", "day", "dimension", "kind")
# The SQL each grouping selects as `grp`; `day` is the UTC date the call started.
_GROUP_SQL = {
    None: "NULL",
    "agent": "coalesce(agent, '(none)')",
    "day": "coalesce(strftime(started_at AT TIME ZONE 'UTC', '%Y-%m-%d'), '(none)')",
    "dimension": "coalesce(dimension, '(none)')",
    "kind": "kind",
}


def parts(results: str, sub: str) -> str:
    folder = Path(results) / sub
    if not (Path(results) / "fleet.json").is_file() or not folder.is_dir():
        raise InputError.one("not a fleet results folder (no fleet.json)", file=results)
    return str(folder / "part-*.parquet")


def connect() -> Any:
    try:
        import duckdb
    except ImportError:
        raise InputError.one(
            "fleet summaries need the fleet extra: pip install 'hotato[fleet]'"
        ) from None
    con = duckdb.connect(":memory:")
    con.execute("SET TimeZone = 'UTC'")
    return _Guarded(con, duckdb.Error)


class _Guarded:
    """A DuckDB connection whose queries over a results folder refuse (exit 2) when a part is
    corrupt or not hotato's, instead of failing as an internal error."""

    def __init__(self, con: Any, error: type[Exception]) -> None:
        self._con, self._error = con, error

    def register(self, name: str, value: Any) -> None:
        self._con.register(name, value)

    def execute(self, sql: str) -> _Guarded:
        self._run(self._con.execute, sql)
        return self

    def fetchall(self) -> list[Any]:
        rows: list[Any] = self._run(self._con.fetchall)
        return rows

    def fetchone(self) -> Any:
        return self._run(self._con.fetchone)

    def _run(self, step: Any, *args: Any) -> Any:
        try:
            return step(*args)
        except self._error as exc:
            first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise InputError.one(
                f"the results folder cannot be read: a part is corrupt or not hotato's ({first})"
            ) from None


# What the summaries, the diff and the page read: every column of each table's record but
# `variables`, whose type is a run's own.
COLUMNS = {
    table: [name for name, _ in columns(record) if name != "variables"]
    for table, record in (("results", ResultRecord), ("calls", CallRecord))
}


def scan(con: Any, results: str, sub: str) -> str:
    """A FROM clause over one table of the folder, its per-batch parts (a live run's, or a
    folder hotato 2.0 wrote) and its compacted ones alike (empty when no batch has
    committed)."""
    from hotato.fleet.layout import FLAT, PARTITIONED, compacted_parts, flat_parts

    parts(results, sub)
    root = Path(results)
    wanted = ", ".join(f'"{c}"' for c in COLUMNS[sub])
    sources = []
    if flat_parts(root, sub):
        sources.append(f"read_parquet('{_quote(str(root / sub / FLAT))}', filename = true)")
    if compacted_parts(root, sub):
        sources.append(
            f"read_parquet('{_quote(str(root / sub / PARTITIONED))}', filename = true, "
            "hive_partitioning = true, union_by_name = true, "
            "hive_types = {'agent': VARCHAR, 'date': DATE})"
        )
    if not sources:
        from hotato.fleet.store import call_schema, result_schema

        schema = result_schema() if sub == "results" else call_schema()
        import pyarrow as pa

        con.register(f"empty_{sub}", pa.Table.from_pylist([], schema=schema))
        return f"empty_{sub}"
    union = " UNION ALL ".join(f"SELECT {wanted}, filename FROM {src}" for src in sources)
    if not _has_twice(con, results):
        return f"(SELECT {wanted} FROM ({union}))"
    # a call held twice (two runs at once wrote a folder before it was locked, or a
    # compaction cut short): one row per call (x assertion), the graded one before a
    # refusal, then the first part by name
    order = "status = 'refused', filename" if sub == "calls" else "filename"
    key = "call_id" if sub == "calls" else "call_id, assertion_id"
    return (
        f"(SELECT {wanted} FROM ({union}) "
        f"QUALIFY row_number() OVER (PARTITION BY {key} ORDER BY {order}) = 1)"
    )


def _has_twice(con: Any, results: str) -> bool:
    """Whether the folder's calls table holds a call more than once (cheap: one row a call)."""
    from hotato.fleet.layout import FLAT, PARTITIONED, compacted_parts, flat_parts

    root = Path(results)
    sources = [
        f"SELECT call_id FROM read_parquet('{_quote(str(root / 'calls' / pattern))}')"
        for pattern, found in (
            (FLAT, flat_parts(root, "calls")),
            (PARTITIONED, compacted_parts(root, "calls")),
        )
        if found
    ]
    if not sources:
        return False
    row = con.execute(
        f"SELECT count(*) <> count(DISTINCT call_id) FROM ({' UNION ALL '.join(sources)})"
    ).fetchone()
    return bool(row[0])


def _quote(text: str) -> str:
    return text.replace("'", "''")


def summarize(results: str, by: str | None = None, con: Any = None) -> Summary:
    from hotato.runs.fleet import wilson

    if by not in (None, *GROUPS):
        raise InputError.one(f"--by {by!r}: choose one of {', '.join(GROUPS)}")
    con = con or connect()
    per_assertion = by in (None, "agent", "day")
    keys = "grp, assertion_id, deterministic" if per_assertion else "grp, deterministic"
    ident = "assertion_id" if per_assertion else "NULL"
    rows = con.execute(
        f"""
        SELECT grp, {ident} AS aid,
               {"any_value(kind)" if by != "dimension" else "NULL"} AS kind,
               {"any_value(dimension)" if by != "kind" else "NULL"} AS dimension,
               deterministic, count(*) AS n,
               count(*) FILTER (WHERE status = 'PASS') AS p,
               count(*) FILTER (WHERE status = 'FAIL') AS f,
               count(*) FILTER (WHERE status = 'INCONCLUSIVE') AS i
        FROM (SELECT *, {_GROUP_SQL[by]} AS grp FROM {scan(con, results, "results")})
        GROUP BY {keys}
        ORDER BY grp NULLS FIRST, NOT deterministic, {"aid" if per_assertion else "grp"}
        """
    ).fetchall()
    rates = []
    for grp, aid, kind, dimension, det, n, p, f, i in rows:
        judged = p + f
        low, high = wilson(p, judged) if judged else (None, None)
        rates.append(
            Rate(
                grp,
                aid,
                kind,
                dimension,
                bool(det),
                n,
                p,
                f,
                i,
                round(p / judged, 6) if judged else None,
                low,
                high,
            )
        )
    calls = con.execute(
        f"""SELECT count(*), count(*) FILTER (WHERE status = 'graded'),
                   count(*) FILTER (WHERE status = 'refused'), any_value(run_id)
            FROM {scan(con, results, "calls")}"""
    ).fetchone()
    return Summary(calls[3], by, CallCounts(calls[0], calls[1], calls[2]), rates)
