"""`hotato fleet diff BEFORE/ AFTER/`: which assertions regressed or improved between two runs
(two agent versions, say), with a two-proportion z-test on the pass rates, and the calls
whose status changed (calls present in both runs).

Rates are pass / (pass + fail) as in the summary: INCONCLUSIVE is left out of both."""

from __future__ import annotations

from math import erfc, sqrt

from hotato.model.fleet import CallChange, Change, Diff

ALPHA = 0.05


def two_proportion(c1: int, n1: int, c2: int, n2: int) -> tuple[float | None, float | None]:
    """z (after minus before) and the two-sided p-value of the pooled two-proportion test;
    (None, None) when a side has nothing judged or the pooled rate is 0 or 1."""
    if n1 == 0 or n2 == 0:
        return None, None
    pooled = (c1 + c2) / (n1 + n2)
    se = sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2))
    if se == 0:
        return 0.0, 1.0
    z = (c2 / n2 - c1 / n1) / se
    return round(z, 6), round(erfc(abs(z) / sqrt(2)), 6)


def _verdict(before: tuple[int, int], after: tuple[int, int], p: float | None) -> str:
    if before[1] == 0 and after[1] == 0:
        return "untested"
    if p is None:
        return "new" if before[1] == 0 else "gone"
    if p >= ALPHA:
        return "unchanged"
    return "improved" if after[0] / after[1] > before[0] / before[1] else "regressed"


def diff_runs(before: str, after: str, limit: int = 50) -> Diff:
    from hotato.fleet.summary import connect, scan

    con = connect()
    per = """SELECT assertion_id, count(*) FILTER (WHERE status = 'PASS') AS p,
                    count(*) FILTER (WHERE status IN ('PASS', 'FAIL')) AS j
             FROM {src} WHERE deterministic GROUP BY assertion_id"""
    b = {
        a: (p, j)
        for a, p, j in con.execute(per.format(src=scan(con, before, "results"))).fetchall()
    }
    a = {
        a: (p, j) for a, p, j in con.execute(per.format(src=scan(con, after, "results"))).fetchall()
    }
    changes = []
    for aid in sorted(set(b) | set(a)):
        bp, bj = b.get(aid, (0, 0))
        ap, aj = a.get(aid, (0, 0))
        z, p = two_proportion(bp, bj, ap, aj)
        changes.append(
            Change(
                aid,
                bp,
                bj,
                ap,
                aj,
                round(bp / bj, 6) if bj else None,
                round(ap / aj, 6) if aj else None,
                z,
                p,
                _verdict((bp, bj), (ap, aj), p),
            )
        )
    calls_sql = f"""
        SELECT b.call_id, b.assertion_id, b.status, a.status, a.reason
        FROM {scan(con, before, "results")} b JOIN {scan(con, after, "results")} a
          ON a.call_id = b.call_id AND a.assertion_id = b.assertion_id
        WHERE a.status <> b.status AND a.deterministic
        ORDER BY b.assertion_id, b.call_id"""
    changed = [CallChange(*row) for row in con.execute(calls_sql).fetchall()]
    return Diff(before, after, ALPHA, changes, len(changed), changed[:limit])
