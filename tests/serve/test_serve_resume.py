"""Restart: spooled calls not yet committed are graded; a call committed just before a kill (its
rows written, its done mark not) is marked, never graded twice."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from tests.serve.bodies import call_rows, vapi_body

pytestmark = [
    pytest.mark.slow,
    pytest.mark.filterwarnings("ignore:Using `httpx` with `starlette.testclient`"),
]


def test_restart_grades_the_spooled_and_marks_the_committed(
    tmp_path: Path, assertions: Path
) -> None:
    from starlette.testclient import TestClient

    from hotato.serve import ServeConfig, app, fleet_io, intake
    from hotato.serve.spool import Spool, key_of

    out = tmp_path / "results"
    job = fleet_io.make_job(str(assertions), "assertions")
    store = fleet_io.open_store(str(out), job)
    spool = Spool(out)
    paths = {}
    for call_id in ("committed", "spooled"):
        body = vapi_body(call_id)
        header = intake.vapi(body, {})
        assert isinstance(header, intake.Header)
        entry = spool.put(header, body)
        assert entry is not None
        paths[call_id] = str(entry.path)
    from hotato.fleet.worker import release

    graded = fleet_io.grade_files(job, [paths["committed"]])
    release(job.run_id)  # graded here, in the test's process: its grader goes
    assert graded.results is not None
    fleet_io.write(store, graded.results, graded.calls)  # killed before marking it done
    store.close()

    cfg = ServeConfig(out=str(out), assertions=str(assertions), workers=1)
    with TestClient(app(cfg)) as client:
        deadline = time.monotonic() + 60
        while client.get("/healthz").json()["pending"] and time.monotonic() < deadline:
            time.sleep(0.05)
        assert client.get("/healthz").json() == {"ok": True, "pending": 0}
    assert sorted(r["call_id"] for r in call_rows(out)) == ["committed", "spooled"]
    assert spool.is_done(key_of("committed")) and spool.is_done(key_of("spooled"))
