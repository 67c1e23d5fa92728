"""The same fleet on the local process pool and on a two-worker Dask LocalCluster gives the
same rows; a run killed with SIGKILL and started again ends with one row per call x assertion."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from tests.fleet.conftest import make_fleet, table_rows

pytestmark = pytest.mark.slow  # a Dask cluster, and a run killed and resumed in processes


def rows(out: Path, table: str = "results") -> list[dict[str, object]]:
    return sorted(
        table_rows(out, table),
        key=lambda r: (r["call_id"], r.get("assertion_id") or ""),
    )


def test_dask_local_cluster_gives_the_local_pool_s_rows(tmp_path: Path) -> None:
    from distributed import LocalCluster

    from hotato.fleet.grade import FleetRequest, grade_fleet

    fleet = make_fleet(tmp_path / "fleet", calls=12)
    common = dict(
        calls=str(fleet.manifest),
        assertions=str(fleet.assertions),
        state=str(fleet.state),
        batch_size=4,
    )
    grade_fleet(FleetRequest(out=str(tmp_path / "local"), workers=2, **common))
    with LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        host="127.0.0.1",
        dashboard_address=None,
        processes=True,
    ) as cluster:
        done = grade_fleet(
            FleetRequest(out=str(tmp_path / "dask"), scheduler=cluster.scheduler_address, **common)
        )
    assert done.totals is not None and done.totals.graded == 12
    assert rows(tmp_path / "dask") == rows(tmp_path / "local")
    assert rows(tmp_path / "dask", "calls") == rows(tmp_path / "local", "calls")


def test_killed_with_sigkill_and_resumed_one_row_per_call_and_assertion(tmp_path: Path) -> None:
    fleet = make_fleet(tmp_path / "fleet", calls=60)
    out = tmp_path / "r"
    argv = [
        sys.executable,
        "-m",
        "hotato",
        "fleet",
        "grade",
        str(fleet.manifest),
        "--assertions",
        str(fleet.assertions),
        "--state",
        str(fleet.state),
        "--out",
        str(out),
        "--workers",
        "2",
        "--batch-size",
        "1",
        "--quiet",
    ]
    proc = subprocess.Popen(argv, start_new_session=True, stdout=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        committed = list((out / "calls").glob("part-*.parquet")) if out.exists() else []
        if len(committed) >= 5:
            break
        time.sleep(0.02)
    os.killpg(proc.pid, signal.SIGKILL)  # the run and its workers, mid-write or not
    proc.wait()
    partial = len(list((out / "calls").glob("part-*.parquet")))
    assert 5 <= partial < 60, "the run was not killed part-way"
    again = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    assert again.returncode == 1, again.stderr
    results = rows(out)
    keys = [(r["call_id"], r["assertion_id"]) for r in results]
    assert len(keys) == len(set(keys)) == 60 * 3
    assert len(rows(out, "calls")) == 60
    assert not [p for p in out.rglob("*.tmp")]


def test_a_relative_state_is_read_where_the_driver_runs_not_in_each_worker(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import shutil

    from distributed import LocalCluster

    from hotato.fleet.execute import DaskCluster
    from hotato.fleet.grade import FleetRequest, grade_fleet
    from hotato.model.errors import InputError

    fleet = make_fleet(tmp_path / "fleet", calls=4)
    shutil.copy(fleet.state, fleet.root / "orders.sqlite")
    with LocalCluster(
        n_workers=1,
        threads_per_worker=1,
        host="127.0.0.1",
        dashboard_address=None,
        processes=True,
    ) as cluster:  # its worker started in the test's folder, not the fleet's
        monkeypatch.chdir(fleet.root)
        done = grade_fleet(
            FleetRequest(
                calls="calls.jsonl",
                assertions="assertions.yaml",
                state="orders.sqlite",
                out=str(tmp_path / "dask"),
                scheduler=cluster.scheduler_address,
            )
        )
        assert done.totals is not None and (done.totals.graded, done.totals.refused) == (4, 0)
        engine = DaskCluster(cluster.scheduler_address)
        try:
            with pytest.raises(InputError) as refused:
                engine.check_paths({"--state": str(tmp_path / "nowhere.sqlite")})
        finally:
            engine.close()
    message = str(refused.value)
    assert "the Dask worker tcp://127.0.0.1:" in message
    assert f"cannot read --state {tmp_path / 'nowhere.sqlite'}: it does not exist there" in message


def _graders_held() -> int:
    from hotato.fleet import worker

    return len(worker._GRADERS)


def test_a_long_lived_dask_worker_closes_each_run_s_graders(tmp_path: Path) -> None:
    from distributed import Client, LocalCluster

    from hotato.fleet.grade import FleetRequest, grade_fleet

    fleet = make_fleet(tmp_path / "fleet", calls=4)
    with (
        LocalCluster(
            n_workers=1,
            threads_per_worker=1,
            host="127.0.0.1",
            dashboard_address=None,
            processes=True,
        ) as cluster,
        Client(cluster.scheduler_address) as client,
    ):
        for n in range(3):  # three runs: three assertions files, three state connections
            assertions = fleet.root / f"a{n}.yaml"
            assertions.write_text(
                fleet.assertions.read_text().replace("claimed-refund", f"claimed-{n}")
            )
            done = grade_fleet(
                FleetRequest(
                    calls=str(fleet.manifest),
                    assertions=str(assertions),
                    state=str(fleet.state),
                    out=str(tmp_path / f"r{n}"),
                    scheduler=cluster.scheduler_address,
                )
            )
            assert done.totals is not None and done.totals.graded == 4
        # a lambda travels by value (this test module is not importable on the worker)
        held = client.run(lambda: len(__import__("hotato.fleet.worker").fleet.worker._GRADERS))
    assert list(held.values()) == [0]


def test_in_process_runs_close_their_graders(tmp_path: Path) -> None:
    from hotato.fleet.grade import FleetRequest, grade_fleet

    fleet = make_fleet(tmp_path / "fleet", calls=2)
    grade_fleet(
        FleetRequest(
            calls=str(fleet.manifest),
            assertions=str(fleet.assertions),
            state=str(fleet.state),
            out=str(tmp_path / "r"),
            workers=1,
        )
    )
    assert _graders_held() == 0


def test_a_listener_that_is_not_a_dask_scheduler_is_refused_not_waited_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    from tests.conftest import hotato

    monkeypatch.setattr("hotato.fleet.execute.SCHEDULER_ANSWER_S", 2.0)
    fleet = make_fleet(tmp_path / "fleet", calls=2)

    class Quiet(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Quiet)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        started = time.monotonic()
        ran = hotato(
            "fleet", "grade", str(fleet.manifest), "--assertions", str(fleet.assertions),
            "--out", str(tmp_path / "r"), "--quiet",
            "--scheduler", f"tcp://127.0.0.1:{server.server_address[1]}",
        )  # fmt: skip
    finally:
        server.shutdown()
        server.server_close()
    assert ran.code == 2, ran.out + ran.err
    assert "no Dask scheduler answered at tcp://127.0.0.1:" in ran.err
    assert time.monotonic() - started < 10
    assert not (tmp_path / "r").exists()  # refused before anything was written


def _descendants(pid: int) -> set[int]:
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    found, todo = set(), [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.add(child)
            todo.append(child)
    return found


def test_the_local_pool_ends_with_a_driver_killed_by_sigkill(tmp_path: Path) -> None:
    fleet = make_fleet(tmp_path / "fleet", calls=200)
    out = tmp_path / "r"
    argv = [
        sys.executable, "-m", "hotato", "fleet", "grade", str(fleet.manifest),
        "--assertions", str(fleet.assertions), "--state", str(fleet.state),
        "--out", str(out), "--workers", "2", "--batch-size", "1", "--quiet",
    ]  # fmt: skip
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        if out.exists() and len(list((out / "calls").glob("part-*.parquet"))) >= 3:
            break
        time.sleep(0.02)
    helpers = _descendants(proc.pid)
    assert helpers, "the pool had not started"
    proc.kill()  # the driver alone: its pool and forkserver are not signalled
    proc.wait()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(Path(f"/proc/{p}").exists() for p in helpers):
        time.sleep(0.1)
    alive = [p for p in helpers if Path(f"/proc/{p}").exists()]
    for p in alive:
        os.kill(p, signal.SIGKILL)
    assert not alive, "pool processes outlived the driver"
