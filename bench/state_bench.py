"""The state-adapter benchmark: 10,000 state queries in one run against PostgreSQL.

    .ci/services && .venv/bin/python bench/state_bench.py [--queries 10000] [--url URL]

The run asks 10,000 questions through `open_state(URL)` exactly as the state kinds do: half of
them repeat an earlier question (the per-run cache answers those), a tenth of the distinct ones
find no row. It prints the total and per-query cost, how many connections were opened and how
many SELECTs reached the server (counted by SQLAlchemy's cursor events, and cross-checked with
PostgreSQL's own statistics), then the cost of the same questions with no reuse and no cache
(a fresh source per question) for comparison. The table it reads is created and dropped here.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
import uuid
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from hotato.adapters import open_state

URL = "postgresql://postgres@127.0.0.1:5432/test"
ROWS = 5_000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--queries", type=int, default=10_000)
    parser.add_argument("--url", default=URL)
    parser.add_argument(
        "--baseline",
        type=int,
        default=200,
        help="questions asked with a fresh source each (no reuse, no cache)",
    )
    args = parser.parse_args()

    import sqlalchemy as sa

    admin = sa.create_engine(args.url.replace("postgresql://", "postgresql+psycopg://", 1))
    table = f"hotato_bench_{uuid.uuid4().hex[:8]}"
    with admin.begin() as conn:
        conn.execute(
            sa.text(
                f"CREATE TABLE {table} (id INTEGER PRIMARY KEY, order_id TEXT "
                "NOT NULL UNIQUE, status TEXT, amount NUMERIC(10,2))"
            )
        )
        conn.execute(
            sa.text(
                f"INSERT INTO {table} SELECT g, 'A-' || g, "
                "CASE WHEN g % 3 = 0 THEN 'refunded' ELSE 'none' END, g * 1.25 "
                f"FROM generate_series(1, {ROWS}) g"
            )
        )
    try:
        questions = _questions(args.queries)
        _run(args.url, table, questions, admin)
        _baseline(args.url, table, questions[: args.baseline], args.queries)
    finally:
        with admin.begin() as conn:
            conn.execute(sa.text(f"DROP TABLE IF EXISTS {table}"))
        admin.dispose()


def _questions(n: int) -> list[dict[str, Any]]:
    """n questions: n/2 distinct ones (a tenth of them missing), each asked twice, shuffled."""
    rng = random.Random(7)
    half = n // 2
    hits = [f"A-{i}" for i in rng.sample(range(1, ROWS + 1), min(ROWS, half - half // 10))]
    misses = [f"A-9{i:06d}" for i in range(half - len(hits))]
    asked = [{"order_id": key} for key in hits + misses for _ in range(2)]
    rng.shuffle(asked)
    return asked


def _run(url: str, table: str, questions: list[dict[str, Any]], admin: Any) -> None:
    import sqlalchemy as sa

    selects = connects = 0

    def on_execute(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        nonlocal selects
        if statement.lstrip().upper().startswith("SELECT") and table in statement:
            selects += 1

    def on_connect(*_: Any) -> None:
        nonlocal connects
        connects += 1

    sa.event.listen(sa.engine.Engine, "before_cursor_execute", on_execute)
    sa.event.listen(sa.pool.Pool, "connect", on_connect)
    seq_before = _server_scans(admin, table)
    found = missing = 0
    first = 0.0
    start = time.perf_counter()
    with open_state(url) as state:
        for n, q in enumerate(questions):
            if state.after.query(table, q) is None:
                missing += 1
            else:
                found += 1
            if n == 0:
                first = time.perf_counter() - start  # connect, session set-up, reflection
        sent = state.after.sent  # type: ignore[attr-defined]
    total = time.perf_counter() - start
    sa.event.remove(sa.engine.Engine, "before_cursor_execute", on_execute)
    sa.event.remove(sa.pool.Pool, "connect", on_connect)
    server = _server_scans(admin, table) - seq_before
    n = len(questions)
    print(
        f"state_bench: {n:,} state queries against PostgreSQL ({url.split('@')[-1]}), "
        f"table of {ROWS:,} rows, one run"
    )
    print(f"  total                 {total:8.3f} s")
    print(f"  per query             {total / n * 1e6:8.1f} us   (all {n:,} questions)")
    print(
        f"  per query sent        {(total - first) / max(sent - 1, 1) * 1e6:8.1f} us   "
        "(after the first: one round trip, autocommit on a READ ONLY session)"
    )
    print(
        f"  first query           {first * 1e3:8.1f} ms   (connect, read-only session, "
        "schema reflection)"
    )
    print(f"  answers               {found:,} records, {missing:,} no such row")
    print(f"  connections opened    {connects:8d}")
    print(
        f"  questions sent        {sent:8,d}   ({n - sent:,} identical ones answered by the "
        "per-run cache)"
    )
    print(
        f"  SELECTs on the table  {selects:8,d}   (client side), {server:,} index scans "
        "(server side, pg_stat_user_tables)"
    )


def _baseline(url: str, table: str, questions: list[dict[str, Any]], n: int) -> None:
    times = []
    for q in questions:
        start = time.perf_counter()
        with open_state(url) as state:
            state.after.query(table, q)
        times.append(time.perf_counter() - start)
    each = statistics.mean(times)
    print(
        f"  without reuse/cache   {each * 1e3:8.2f} ms per query (fresh source per question, "
        f"mean of {len(questions)}); {n:,} queries would take ~{each * n:,.0f} s"
    )


def _server_scans(admin: Any, table: str) -> int:
    import sqlalchemy as sa

    with admin.connect() as conn:
        conn.execute(sa.text("SELECT pg_stat_clear_snapshot()"))
        row = conn.execute(
            sa.text(
                "SELECT coalesce(idx_scan, 0) + coalesce(seq_scan, 0) FROM pg_stat_user_tables "
                "WHERE relname = :t"
            ),
            {"t": table},
        ).one()
    return int(row[0])


if __name__ == "__main__":
    main()
