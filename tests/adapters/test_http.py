"""HTTP systems of record: an API on 127.0.0.1 with the three outcomes, egress rules, retries,
and credentials that never reach output."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from tests.adapters.conftest import Api, Seen, Silent, free_port

from hotato.adapters import open_state
from hotato.model.errors import InputError
from hotato.model.state import StateUnavailable

TOKEN = "tok-9Xk2-never-shown"
ORDER = {"order_id": "A-1001", "zip": "02139", "amount": 25.5, "status": "refunded"}


def http_adapter(tmp_path: Path, base_url: str, resources: dict[str, Any], **extra: Any) -> str:
    doc = {
        "adapter": "http",
        "base_url": base_url,
        "egress_opt_in": True,
        "allow_http": True,
        "timeout_s": 1,
        "resources": resources,
        **extra,
    }
    path = tmp_path / "api.json"
    path.write_text(json.dumps(doc, indent=2), encoding="utf-8")
    return str(path)


ORDERS = {"orders": {"path": "/orders/{order_id}", "record": "data.order"}}


def test_a_matching_record_is_returned(api: Api, tmp_path: Path) -> None:
    api.routes[("GET", "/orders/A-1001")] = (200, {"data": {"order": ORDER}})
    with open_state(http_adapter(tmp_path, api.url, ORDERS)) as state:
        assert state.after.query("orders", {"order_id": "A-1001"}) == ORDER
        assert state.after.query("orders", {"order_id": "A-1001", "status": "none"}) is None


def test_404_is_no_such_record(api: Api, tmp_path: Path) -> None:
    with open_state(http_adapter(tmp_path, api.url, ORDERS)) as state:
        assert state.after.query("orders", {"order_id": "A-9999"}) is None


def test_a_mismatch_returns_the_record(api: Api, tmp_path: Path) -> None:
    api.routes[("GET", "/orders/A-1002")] = (
        200,
        {"data": {"order": {**ORDER, "order_id": "A-1002", "status": "none"}}},
    )
    with open_state(http_adapter(tmp_path, api.url, ORDERS)) as state:
        assert state.after.query("orders", {"order_id": "A-1002"})["status"] == "none"  # type: ignore[index]


def test_comparison_is_type_strict(api: Api, tmp_path: Path) -> None:
    api.routes[("GET", "/orders/1001")] = (200, {"data": {"order": {**ORDER, "order_id": "1001"}}})
    with open_state(http_adapter(tmp_path, api.url, ORDERS)) as state:
        q = state.after.query
        assert q("orders", {"order_id": "1001"}) is not None
        assert q("orders", {"order_id": 1001}) is None  # same path; the record holds "1001"
        assert q("orders", {"order_id": "1001", "zip": 2139}) is None
        assert q("orders", {"order_id": "1001", "zip": "02139"}) is not None


def test_a_json_pointer_into_a_list_of_records(api: Api, tmp_path: Path) -> None:
    resources = {
        "refunds": {"path": "/refunds", "query": {"order": "order_id"}, "record": "/data/items"}
    }
    refunds = [{"order_id": "A-1", "state": "pending"}, {"order_id": "A-1", "state": "posted"}]
    api.routes[("GET", "/refunds")] = lambda seen: (
        200,
        {"data": {"items": refunds if "order=A-1" in seen.path else []}},
    )
    with open_state(http_adapter(tmp_path, api.url, resources)) as state:
        q = state.after.query
        assert q("refunds", {"order_id": "A-1"}) == refunds[0]
        assert q("refunds", {"order_id": "A-1", "state": "posted"}) == refunds[1]
        assert q("refunds", {"order_id": "A-2"}) is None  # an empty list: read, no record
    assert api.seen[0].path == "/refunds?order=A-1"


def test_a_body_mapping_posts_json(api: Api, tmp_path: Path) -> None:
    resources = {
        "lookup": {
            "path": "/search",
            "method": "POST",
            "body": {"customer": "customer_id", "limit": "n"},
            "record": "hit",
        }
    }
    api.routes[("POST", "/search")] = lambda seen: (200, {"hit": json.loads(seen.body)})
    with open_state(http_adapter(tmp_path, api.url, resources)) as state:
        got = state.after.query("lookup", {"customer_id": "C-7", "n": 1})
    assert got == {"customer": "C-7", "limit": 1}
    assert api.seen[0].headers["Content-Type"] == "application/json"


def test_a_null_record_is_no_such_record_and_a_missing_one_is_a_bad_response(
    api: Api, tmp_path: Path
) -> None:
    api.routes[("GET", "/orders/A-1")] = (200, {"data": {"order": None}})
    api.routes[("GET", "/orders/A-2")] = (200, {"data": {}})
    api.routes[("GET", "/orders/A-3")] = (200, {"data": {"order": "refunded"}})
    with open_state(http_adapter(tmp_path, api.url, ORDERS)) as state:
        assert state.after.query("orders", {"order_id": "A-1"}) is None
        for order, text in (("A-2", "nothing at data.order"), ("A-3", "not a record")):
            with pytest.raises(StateUnavailable) as exc:
                state.after.query("orders", {"order_id": order})
            assert exc.value.cause == "bad_response" and text in exc.value.message


def test_a_filter_value_stays_one_path_segment(api: Api, tmp_path: Path) -> None:
    with open_state(http_adapter(tmp_path, api.url, ORDERS)) as state:
        for value in ("../admin", "..", "a/b?c=d#e"):
            assert state.after.query("orders", {"order_id": value}) is None
    assert [s.path for s in api.seen] == [
        "/orders/..%2Fadmin",
        "/orders/%2E%2E",
        "/orders/a%2Fb%3Fc%3Dd%23e",
    ]


def test_5xx_is_retried_a_bounded_number_of_times(api: Api, tmp_path: Path) -> None:
    api.routes[("GET", "/orders/A-1001")] = [
        (503, {}),
        (502, {}),
        (200, {"data": {"order": ORDER}}),
    ]
    api.routes[("GET", "/orders/A-2")] = (500, {"error": "boom"})
    with open_state(http_adapter(tmp_path, api.url, ORDERS, retries=2)) as state:
        assert state.after.query("orders", {"order_id": "A-1001"}) == ORDER
        with pytest.raises(StateUnavailable) as exc:
            state.after.query("orders", {"order_id": "A-2"})
    assert exc.value.cause == "http_5xx" and "500" in exc.value.message
    assert [s.path for s in api.seen].count("/orders/A-2") == 3  # one try and two retries


@pytest.mark.parametrize(
    ("status", "body", "cause"),
    [
        (401, {"error": "no"}, "auth_failed"),
        (403, {"error": "no"}, "auth_failed"),
        (400, {"error": "bad"}, "http_status"),
        (302, {}, "http_status"),  # redirects are not followed
        (200, b"<html>maintenance</html>", "not_json"),
    ],
)
def test_answers_that_are_not_a_record(
    api: Api, tmp_path: Path, status: int, body: Any, cause: str
) -> None:
    api.routes[("GET", "/orders/A-1")] = (status, body)
    with (
        open_state(http_adapter(tmp_path, api.url, ORDERS)) as state,
        pytest.raises(StateUnavailable) as exc,
    ):
        state.after.query("orders", {"order_id": "A-1"})
    assert exc.value.cause == cause
    assert len(api.seen) == 1


@pytest.mark.parametrize(
    ("auth", "env", "header"),
    [
        (
            {"type": "bearer", "token_env": "HOTATO_TEST_TOKEN"},
            {"HOTATO_TEST_TOKEN": TOKEN},
            ("Authorization", f"Bearer {TOKEN}"),
        ),
        (
            {"type": "header", "name": "X-Api-Key", "value_env": "HOTATO_TEST_TOKEN"},
            {"HOTATO_TEST_TOKEN": TOKEN},
            ("X-Api-Key", TOKEN),
        ),
        (
            {"type": "basic", "username": "shop", "password_env": "HOTATO_TEST_TOKEN"},
            {"HOTATO_TEST_TOKEN": TOKEN},
            ("Authorization", "Basic c2hvcDp0b2stOVhrMi1uZXZlci1zaG93bg=="),
        ),
    ],
)
def test_credentials_come_from_the_environment_and_never_reach_output(
    api: Api,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    auth: dict[str, str],
    env: dict[str, str],
    header: tuple[str, str],
) -> None:
    for name, value in env.items():
        monkeypatch.setenv(name, value)

    def guarded(seen: Seen) -> tuple[int, Any]:
        if seen.headers.get(header[0]) != header[1]:
            return 401, {"error": "who are you"}
        # A careless API that echoes the credential back in an error.
        return 500, {"error": f"upstream failed for {seen.headers[header[0]]}"}

    api.routes[("GET", "/orders/A-1")] = guarded
    source = http_adapter(tmp_path, api.url, ORDERS, auth=auth, retries=0)
    with open_state(source) as state:
        with pytest.raises(StateUnavailable) as exc:
            state.after.query("orders", {"order_id": "A-1"})
        shown = [state.description, repr(state), exc.value.message, str(exc.value)]
    assert exc.value.cause == "http_5xx"  # the credential was accepted, then the server failed
    assert not any(TOKEN in text for text in shown)


def test_an_unset_credential_variable_is_refused_by_name(
    api: Api, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("HOTATO_TEST_UNSET", raising=False)
    source = http_adapter(
        tmp_path, api.url, ORDERS, auth={"type": "bearer", "token_env": "HOTATO_TEST_UNSET"}
    )
    with pytest.raises(InputError) as exc:
        open_state(source)
    assert "HOTATO_TEST_UNSET" in str(exc.value) and "$.auth.token_env" in str(exc.value)


def test_a_closed_port_is_connection_refused_after_bounded_retries(tmp_path: Path) -> None:
    source = http_adapter(tmp_path, f"http://127.0.0.1:{free_port()}", ORDERS, retries=2)
    start = time.monotonic()
    with open_state(source) as state:
        with pytest.raises(StateUnavailable) as exc:
            state.after.query("orders", {"order_id": "A-1"})
        with pytest.raises(StateUnavailable) as again:
            state.after.query("orders", {"order_id": "A-2"})  # not retried: the API is down
        sent = state.after.reader.sent  # type: ignore[attr-defined]
    assert exc.value.cause == again.value.cause == "connection_refused"
    assert sent == 3
    assert time.monotonic() - start < 2


def test_a_server_that_stops_mid_run(api: Api, tmp_path: Path) -> None:
    api.routes[("GET", "/orders/A-1001")] = (200, {"data": {"order": ORDER}})
    with open_state(http_adapter(tmp_path, api.url, ORDERS)) as state:
        assert state.after.query("orders", {"order_id": "A-1001"}) == ORDER
        api.stop()
        start = time.monotonic()
        with pytest.raises(StateUnavailable) as exc:
            state.after.query("orders", {"order_id": "A-2"})
        assert time.monotonic() - start < 2
        assert state.after.query("orders", {"order_id": "A-1001"}) == ORDER  # asked before
    assert exc.value.cause == "connection_refused"


def test_a_slow_api_is_a_timeout_within_the_timeout(api: Api, tmp_path: Path) -> None:
    api.routes[("GET", "/orders/A-1")] = (200, {"data": {"order": ORDER}})
    api.delay = 3
    start = time.monotonic()
    with (
        open_state(http_adapter(tmp_path, api.url, ORDERS, timeout_s=0.5)) as state,
        pytest.raises(StateUnavailable) as exc,
    ):
        state.after.query("orders", {"order_id": "A-1"})
    assert exc.value.cause == "timeout"
    assert time.monotonic() - start < 1.5


def test_a_hung_server_is_a_timeout(silent: Silent, tmp_path: Path) -> None:
    start = time.monotonic()
    source = http_adapter(tmp_path, f"http://127.0.0.1:{silent.port}", ORDERS, timeout_s=0.5)
    with open_state(source) as state, pytest.raises(StateUnavailable) as exc:
        state.after.query("orders", {"order_id": "A-1"})
    assert exc.value.cause == "timeout"
    assert time.monotonic() - start < 1.5


def test_an_unknown_host_is_dns(tmp_path: Path) -> None:
    source = http_adapter(tmp_path, "https://api.hotato-test.invalid/v1", ORDERS)
    with open_state(source) as state, pytest.raises(StateUnavailable) as exc:
        state.after.query("orders", {"order_id": "A-1"})
    assert exc.value.cause == "dns"


def test_one_connection_per_run_and_identical_queries_sent_once(api: Api, tmp_path: Path) -> None:
    for i in range(5):
        api.routes[("GET", f"/orders/A-{i}")] = (200, {"data": {"order": {"order_id": f"A-{i}"}}})
    with open_state(http_adapter(tmp_path, api.url, ORDERS)) as state:
        for i in range(50):
            state.after.query("orders", {"order_id": f"A-{i % 5}"})
    assert len(api.seen) == 5
    assert len({s.client_port for s in api.seen}) == 1


def test_unmapped_resources_and_missing_parameters(api: Api, tmp_path: Path) -> None:
    with open_state(http_adapter(tmp_path, api.url, ORDERS)) as state:
        with pytest.raises(StateUnavailable) as unmapped:
            state.after.query("customers", {"id": 1})
        with pytest.raises(StateUnavailable) as absent:
            state.after.query("orders", {"id": 1})
    assert unmapped.value.cause == "unknown_resource"
    assert absent.value.cause == "missing_parameter" and "order_id" in absent.value.message
    assert api.seen == []


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"egress_opt_in": False}, "egress_opt_in: true"),
        ({"allow_http": False}, "must be https://"),
        ({"base_url": "http://api.example.com"}, "loopback"),
        ({"base_url": "https://user:pw@api.example.com"}, "must not carry credentials"),
        ({"base_url": "ftp://api.example.com"}, "https://"),
        ({"headers": {"Authorization": "Bearer x"}}, "auth` with an environment variable"),
    ],
)
def test_egress_is_refused_unless_opted_in_and_safe(
    tmp_path: Path, changes: dict[str, Any], message: str
) -> None:
    settings = {"base_url": "http://127.0.0.1:9", **changes}
    source = http_adapter(tmp_path, settings.pop("base_url"), ORDERS, **settings)
    with pytest.raises(InputError) as exc:
        open_state(source)
    assert message in str(exc.value)


def test_loopback_names_may_use_plain_http(tmp_path: Path) -> None:
    for url in ("http://localhost:9", "http://127.0.0.1:9", "http://[::1]:9"):
        open_state(http_adapter(tmp_path, url, ORDERS)).close()
