"""`hotato state snapshot`: the real command, its file, and that a run can read it back."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from tests.adapters.conftest import Api
from tests.conftest import hotato

from hotato.adapters import open_state
from hotato.model.state import NoSnapshot, StateUnavailable

TOKEN = "tok-snapshot-never-shown"


@pytest.fixture
def shop(tmp_path: Path) -> str:
    path = tmp_path / "shop.db"
    with sqlite3.connect(path) as conn:
        conn.execute(
            "CREATE TABLE orders (id INTEGER PRIMARY KEY, order_id TEXT, zip TEXT, status TEXT)"
        )
        conn.execute("INSERT INTO orders VALUES (42, 'A-1', '02139', 'none')")
    return str(path)


def test_a_snapshot_is_a_sandbox_that_state_before_reads(shop: str, tmp_path: Path) -> None:
    out = tmp_path / "before.json"
    ran = hotato(
        "state",
        "snapshot",
        "--state",
        shop,
        "--resource",
        "orders",
        "--filter",
        "order_id=A-1",
        "--out",
        str(out),
    )
    assert ran.code == 0, ran.err
    assert "orders" in ran.out and "1 record" in ran.out
    doc = json.loads(out.read_text())
    assert doc["orders"] == [{"id": 42, "order_id": "A-1", "zip": "02139", "status": "none"}]
    assert doc["_meta"]["captures"] == [
        {"resource": "orders", "filters": {"order_id": "A-1"}, "found": True}
    ]
    first = out.read_bytes()
    assert (
        hotato(
            "state",
            "snapshot",
            "--state",
            shop,
            "--resource",
            "orders",
            "--filter",
            "order_id=A-1",
            "--out",
            str(out),
        ).code
        == 0
    )
    assert out.read_bytes() == first  # no clock, no ids: the same answers, the same bytes

    # The call happens; the run reads the snapshot as its before side.
    with sqlite3.connect(shop) as conn:
        conn.execute("UPDATE orders SET status = 'refunded'")
    with open_state(shop, str(out)) as state:
        assert state.before is not None
        assert state.before.query("orders", {"order_id": "A-1"})["status"] == "none"  # type: ignore[index]
        assert state.after.query("orders", {"order_id": "A-1"})["status"] == "refunded"  # type: ignore[index]
        with pytest.raises(NoSnapshot):
            state.before.query("orders", {"order_id": "A-2"})


def test_filter_values_read_as_json_scalars_or_text(shop: str, tmp_path: Path) -> None:
    out = tmp_path / "before.json"
    for filt in ("id=42", 'order_id="A-1"', "zip=02139", "status=none", "id=null"):
        ran = hotato(
            "state",
            "snapshot",
            "--state",
            shop,
            "--resource",
            "orders",
            "--filter",
            filt,
            "--out",
            str(out),
            "--append",
        )
        assert ran.code == 0, ran.err
    captures = json.loads(out.read_text())["_meta"]["captures"]
    assert [c["filters"] for c in captures] == [
        {"id": 42},
        {"order_id": "A-1"},
        {"zip": "02139"},
        {"status": "none"},
        {"id": None},
    ]
    assert [c["found"] for c in captures] == [True, True, True, True, False]


def test_a_system_that_cannot_be_read_is_recorded_and_warned(tmp_path: Path) -> None:
    out = tmp_path / "before.json"
    ran = hotato(
        "state",
        "snapshot",
        "--state",
        "postgresql://nobody@127.0.0.1:1/none",
        "--resource",
        "orders",
        "--filter",
        "id=1",
        "--out",
        str(out),
    )
    assert ran.code == 0
    assert "connection_refused" in ran.err and "INCONCLUSIVE" in ran.err
    with (
        open_state(str(tmp_path / "before.json"), str(out)) as state,
        pytest.raises(StateUnavailable) as exc,
    ):
        assert state.before is not None
        state.before.query("orders", {"id": 1})
    assert exc.value.cause == "connection_refused"


@pytest.mark.parametrize(
    "args",
    [
        ["--filter", "no-equals-sign"],
        ["--filter", "=value"],
    ],
)
def test_bad_filters_are_refused(shop: str, tmp_path: Path, args: list[str]) -> None:
    out = tmp_path / "before.json"
    ran = hotato(
        "state", "snapshot", "--state", shop, "--resource", "orders", *args, "--out", str(out)
    )
    assert ran.code == 2 and "KEY=VALUE" in ran.err
    assert not out.exists()


def test_refusals_write_nothing(shop: str, tmp_path: Path) -> None:
    out = tmp_path / "before.json"
    missing = hotato(
        "state",
        "snapshot",
        "--state",
        str(tmp_path / "nope.db"),
        "--resource",
        "orders",
        "--out",
        str(out),
    )
    assert missing.code == 2 and "does not exist" in missing.err
    nowhere = hotato(
        "state",
        "snapshot",
        "--state",
        shop,
        "--resource",
        "orders",
        "--out",
        str(tmp_path / "no" / "such" / "dir.json"),
    )
    assert nowhere.code == 2 and "cannot write" in nowhere.err
    other = tmp_path / "other.db"
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE orders (id INTEGER PRIMARY KEY)")
    assert (
        hotato("state", "snapshot", "--state", shop, "--resource", "orders", "--out", str(out)).code
        == 0
    )
    before = out.read_bytes()
    mixed = hotato(
        "state",
        "snapshot",
        "--state",
        str(other),
        "--resource",
        "orders",
        "--out",
        str(out),
        "--append",
    )
    assert mixed.code == 2 and "was taken from" in mixed.err
    assert out.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["before.json", "other.db", "shop.db"]


def test_a_credential_never_reaches_the_snapshot_or_the_terminal(api: Api, tmp_path: Path) -> None:
    api.routes[("GET", "/orders/A-1")] = lambda seen: (
        502,
        {"echo": seen.headers.get("Authorization")},
    )
    adapter = tmp_path / "api.yaml"
    adapter.write_text(
        f"""adapter: http
base_url: {api.url}
egress_opt_in: true
allow_http: true
retries: 0
auth: {{type: bearer, token_env: HOTATO_TEST_TOKEN}}
resources:
  orders: {{path: "/orders/{{order_id}}"}}
""",
        encoding="utf-8",
    )
    out = tmp_path / "before.json"
    import os

    ran = hotato(
        "state",
        "snapshot",
        "--state",
        str(adapter),
        "--resource",
        "orders",
        "--filter",
        "order_id=A-1",
        "--out",
        str(out),
        env={**os.environ, "HOTATO_TEST_TOKEN": TOKEN},
    )
    assert ran.code == 0 and "http_5xx" in ran.err
    assert api.seen[0].headers["Authorization"] == f"Bearer {TOKEN}"
    assert TOKEN not in ran.out + ran.err + out.read_text()
