"""Evidence beside a call is data only. A call folder's `state.json` that is an adapter file
(an HTTP API naming an environment variable as its bearer token, or a database URL) is refused
on every route that reads call folders: `test run DIR`, a test's `call:` folder, `--trials`,
the pytest plugin, the GitHub Action and fleet grading. Nothing is sent, nothing leaks; a
sandbox or SQLite file there still grades, and `--state ADAPTER` on the command line still
reaches the API."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from tests.adapters.conftest import Api
from tests.conftest import REPO, hotato
from tests.conversation.conftest import RECORDED, REFUND_RAN, write_call, write_test

SECRET_ENV = "HOTATO_TEST_CI_SECRET"
SECRET = "AKIA-never-leaves-the-runner"
REFUSAL = "state beside a call is evidence, read as data only"


@pytest.fixture
def secret(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv(SECRET_ENV, SECRET)
    return SECRET


def steal(folder: Path, api: Api) -> Path:
    """Plant an HTTP adapter as the call's state.json: it names the secret as a bearer token
    and opts in to egress itself."""
    api.routes[("GET", "/orders/A-1001")] = (200, {"order_id": "A-1001", "refund_status": "x"})
    adapter = {
        "adapter": "http",
        "base_url": api.url,
        "egress_opt_in": True,
        "allow_http": True,
        "auth": {"type": "bearer", "token_env": SECRET_ENV},
        "resources": {"orders": {"path": "/orders/{order_id}"}},
    }
    (folder / "state.json").write_text(json.dumps(adapter))
    return folder


def assert_refused(code: int, out: str, api: Api, where: Path) -> None:
    assert code == 2, out
    assert REFUSAL in out
    assert str(where / "state.json") in out
    assert SECRET not in out
    assert api.seen == []  # not one request left the machine


def test_test_run_dir_refuses_an_adapter_beside_a_call(
    tmp_path: Path, api: Api, secret: str
) -> None:
    suite = tmp_path / "suite"
    write_test(suite / "refund.json", [RECORDED], test_id="refund")
    steal(write_call(suite / "refund"), api)
    ran = hotato("test", "run", str(suite), "--agent", "a")
    assert_refused(ran.code, ran.out + ran.err, api, suite / "refund")


def test_a_tests_call_folder_and_trials_refuse_an_adapter(
    tmp_path: Path, api: Api, secret: str
) -> None:
    test = write_test(tmp_path / "t.json", [RECORDED], call="call")
    steal(write_call(tmp_path / "call"), api)
    ran = hotato("test", "run", str(test), "--agent", "a")
    assert_refused(ran.code, ran.out + ran.err, api, tmp_path / "call")
    steal(write_call(tmp_path / "trials" / "t1"), api)
    ran = hotato("test", "run", str(test), "--agent", "a", "--trials", str(tmp_path / "trials"))
    assert_refused(ran.code, ran.out + ran.err, api, tmp_path / "trials" / "t1")


def test_a_database_url_adapter_beside_a_call_is_refused_too(tmp_path: Path) -> None:
    suite = tmp_path / "suite"
    write_test(suite / "refund.json", [RECORDED], test_id="refund")
    call = write_call(suite / "refund")
    (call / "state.json").write_text(
        json.dumps({"adapter": "sql", "url": "postgresql://nobody@127.0.0.1:1/none"})
    )
    ran = hotato("test", "run", str(suite), "--agent", "a")
    assert ran.code == 2 and REFUSAL in ran.err, ran.out + ran.err


def test_data_beside_a_call_still_grades(tmp_path: Path) -> None:
    """A JSON sandbox, and a SQLite file named state.json, are data: they grade as before."""
    suite = tmp_path / "suite"
    write_test(suite / "sandbox.json", [RECORDED], test_id="sandbox")
    write_call(suite / "sandbox")
    write_test(suite / "lite.json", [RECORDED], test_id="lite")
    call = write_call(suite / "lite", with_state=False)
    with sqlite3.connect(call / "state.json") as db:
        db.execute("CREATE TABLE orders (order_id TEXT, refund_status TEXT)")
        db.execute("INSERT INTO orders VALUES ('A-1001', 'refunded')")
    ran = hotato("test", "run", str(suite), "--agent", "a")
    assert ran.code == 0, ran.out + ran.err
    assert "suite: 2 passed, 0 failed; exit 0" in ran.out


def test_an_adapter_on_the_command_line_still_reaches_the_api(
    tmp_path: Path, api: Api, secret: str
) -> None:
    """The same adapter given with --state is the user's own configuration: it is used."""
    test = write_test(tmp_path / "t.json", [RECORDED])
    call = write_call(tmp_path / "call", with_state=False)
    (tmp_path / "config").mkdir()
    adapter = steal(tmp_path / "config", api) / "state.json"
    args = ["--trace", str(call / "trace.jsonl"), "--state", str(adapter)]
    ran = hotato("test", "run", str(test), "--agent", "a", *args)
    assert ran.code == 1, ran.out + ran.err  # the API says the refund is not recorded: FAIL
    assert len(api.seen) == 1
    assert api.seen[0].headers.get("Authorization") == f"Bearer {SECRET}"


pytest_plugins = ["pytester"]


def test_the_pytest_plugin_refuses_an_adapter_beside_a_call(
    pytester: pytest.Pytester, api: Api, secret: str
) -> None:
    root = pytester.path / "calls"
    write_test(root / "refund.json", [RECORDED], test_id="refund")
    steal(write_call(root / "refund"), api)
    (root / "suite.yaml").write_text(
        "version: 1\nassertions:\n  - {id: r, kind: state, resource: orders, "
        "filters: {order_id: A-1001}, expect: {refund_status: refunded}}\n"
    )
    steal(write_call(root / "suite" / "c1"), api)
    result = pytester.runpytest("--hotato", str(root), "-p", "no:cacheprovider")
    result.assert_outcomes(errors=2)
    text = "\n".join(result.outlines)
    assert "refund/state.json: " + REFUSAL in text and "c1/state.json: " + REFUSAL in text
    assert SECRET not in text
    assert api.seen == []


def test_the_github_action_refuses_an_adapter_beside_a_call(
    tmp_path: Path, api: Api, secret: str
) -> None:
    suite = tmp_path / "suite"
    write_test(suite / "refund.json", [REFUND_RAN, RECORDED], test_id="refund")
    steal(write_call(suite / "refund"), api)
    runner = tmp_path / "runner"
    runner.mkdir()
    env = {
        **os.environ,
        "HOTATO_SUITE": "suite",
        "HOTATO_AGENT": "a",
        "RUNNER_TEMP": str(runner),
        "GITHUB_STEP_SUMMARY": str(runner / "summary"),
        "GITHUB_OUTPUT": str(runner / "output"),
        "HOTATO_BIN": str(Path(sys.executable).parent / "hotato"),
    }
    script = REPO / "scripts" / "ci" / "github-action.sh"
    ran = subprocess.run(
        ["bash", str(script)], env=env, cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert "exit-code=2" in (runner / "output").read_text()
    summary = (runner / "summary").read_text()
    assert REFUSAL in summary and SECRET not in summary + ran.stdout + ran.stderr
    assert api.seen == []


def test_fleet_grading_never_opens_a_call_folders_state(
    tmp_path: Path, api: Api, secret: str
) -> None:
    pytest.importorskip("pyarrow")
    calls = tmp_path / "calls"
    steal(write_call(calls / "c1"), api)
    (tmp_path / "a.yaml").write_text(
        "version: 1\nassertions:\n  - {id: r, kind: state, resource: orders, "
        "filters: {order_id: A-1001}, expect: {refund_status: refunded}}\n"
    )
    ran = hotato(
        "fleet", "grade", str(calls), "--assertions", str(tmp_path / "a.yaml"),
        "--out", str(tmp_path / "out"), "--workers", "1",
    )  # fmt: skip
    assert ran.code == 0, ran.out + ran.err  # graded: the state check is INCONCLUSIVE, not read
    assert api.seen == []


def test_a_suite_and_trials_read_the_state_given_on_the_command_line(
    tmp_path: Path, api: Api, secret: str
) -> None:
    """--state names the system of record for every call: the configured adapter is used (its
    token sent to its host), and a planted state.json beside a call is never opened."""
    suite = tmp_path / "suite"
    write_test(suite / "refund.json", [RECORDED], test_id="refund")
    planted = Api()
    try:
        steal(write_call(suite / "refund"), planted)
        (tmp_path / "config").mkdir()
        adapter = steal(tmp_path / "config", api) / "state.json"
        ran = hotato("test", "run", str(suite), "--agent", "a", "--state", str(adapter))
        assert ran.code == 1, ran.out + ran.err  # the configured API: not refunded, FAIL
        trials = tmp_path / "trials"
        steal(write_call(trials / "t1"), planted)
        test = write_test(tmp_path / "t.json", [RECORDED])
        ran = hotato(
            "test", "run", str(test), "--agent", "a", "--trials", str(trials),
            "--state", str(adapter),
        )  # fmt: skip
        assert ran.code == 1, ran.out + ran.err
        assert planted.seen == []
        assert len(api.seen) == 2
        assert all(s.headers.get("Authorization") == f"Bearer {SECRET}" for s in api.seen)
    finally:
        planted.stop()


def test_the_pytest_plugin_reads_the_configured_state(
    pytester: pytest.Pytester, api: Api, secret: str
) -> None:
    root = pytester.path / "calls"
    write_test(root / "refund.json", [RECORDED], test_id="refund")
    write_call(root / "refund")
    (pytester.path / "config").mkdir()
    adapter = steal(pytester.path / "config", api) / "state.json"
    pytester.makeini(f"[pytest]\nhotato_state = {adapter.relative_to(pytester.path)}\n")
    result = pytester.runpytest("--hotato", str(root), "-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)  # the configured API says: not refunded
    assert len(api.seen) == 1
