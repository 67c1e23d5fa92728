"""`hotato fleet report`: what the HTML page shows, gathered from a results folder (a
hotato.model.fleet.FleetReport). The rates are the summary's own (one computation for both);
the page's filters regroup the per agent x day x assertion counts it carries."""

from __future__ import annotations

from hotato.fleet.summary import connect, scan, summarize
from hotato.model.fleet import FailingCall, FleetReport

FAILING_LIMIT = 1000  # failing call x assertion rows carried by the page


def report_data(results: str, limit: int = FAILING_LIMIT) -> FleetReport:
    con = connect()
    summary = summarize(results, None, con)
    src = scan(con, results, "results")
    day = "coalesce(strftime(started_at AT TIME ZONE 'UTC', '%Y-%m-%d'), '(none)')"
    cells = con.execute(
        f"""SELECT coalesce(agent, '(none)'), {day}, assertion_id,
                   count(*) FILTER (WHERE status = 'PASS'),
                   count(*) FILTER (WHERE status = 'FAIL'),
                   count(*) FILTER (WHERE status = 'INCONCLUSIVE')
            FROM {src} WHERE deterministic GROUP BY ALL ORDER BY ALL"""
    ).fetchall()
    failing_total = con.execute(
        f"SELECT count(*) FROM {src} WHERE deterministic AND status = 'FAIL'"
    ).fetchone()[0]
    failing = con.execute(
        f"""SELECT call_id, coalesce(agent, '(none)'), {day}, assertion_id, reason
            FROM {src} WHERE deterministic AND status = 'FAIL'
            ORDER BY started_at DESC NULLS LAST, call_id, assertion_id LIMIT {int(limit)}"""
    ).fetchall()
    return FleetReport(
        summary,
        [list(c) for c in cells],
        [FailingCall(*f) for f in failing],
        failing_total,
    )
