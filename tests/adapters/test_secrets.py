"""Attacks on the "no secret in output" promise: credential values that could travel past the
scrubber, passwords that escape a URL mask, and credentials put in a URL query.

Each runs the real CLI (or opens the adapter as a run would) and checks that the secret's value
appears nowhere in what is printed, and that the refusal names the variable or key instead."""

from __future__ import annotations

import json
import os
import socket
import threading
from pathlib import Path
from typing import Any

import pytest
from tests.adapters.conftest import Api
from tests.conftest import hotato

from hotato._secrets import mask_url
from hotato.adapters import open_state
from hotato.model.errors import InputError
from hotato.model.state import StateUnavailable

SECRET = "s3cr3t-Zq9-never-shown"
ASSERTIONS = """\
version: 1
assertions:
  - {id: refunded, kind: state, resource: orders, filters: {order_id: A-1}, expect: {status: ok}}
"""


def _adapter(tmp_path: Path, base_url: str, **extra: Any) -> Path:
    doc = {
        "adapter": "http",
        "base_url": base_url,
        "egress_opt_in": True,
        "allow_http": True,
        "timeout_s": 1,
        "resources": {"orders": {"path": "/orders/{order_id}"}},
        **extra,
    }
    path = tmp_path / "api.json"
    path.write_text(json.dumps(doc))
    (tmp_path / "a.yaml").write_text(ASSERTIONS)
    return path


def _run(tmp_path: Path, state: str, env: dict[str, str] | None = None) -> Any:
    ran = hotato(
        "assert", "run", "--assertions", "a.yaml", "--state", state, "--format", "json",
        cwd=tmp_path, env={**os.environ, **(env or {})},
    )  # fmt: skip
    return ran


@pytest.mark.parametrize(
    ("value", "said"),
    [
        (SECRET + "\n", "ends in a line break"),  # a mounted secret file's trailing newline
        (SECRET + "\r\n", "ends in a line break"),
        ("Bearer\x1b" + SECRET, "holds a control character"),
        (SECRET + "é", "non-ASCII"),  # was an internal error (exit 3)
    ],
    ids=["newline", "crlf", "escape", "non-ascii"],
)
@pytest.mark.parametrize("auth", ["bearer", "header", "basic"])
def test_a_credential_that_cannot_travel_intact_is_refused_by_name(
    api: Api, tmp_path: Path, value: str, said: str, auth: str
) -> None:
    spec = {
        "bearer": {"type": "bearer", "token_env": "HOTATO_T_TOKEN"},
        "header": {"type": "header", "name": "X-Api-Key", "value_env": "HOTATO_T_TOKEN"},
        "basic": {"type": "basic", "username": "shop", "password_env": "HOTATO_T_TOKEN"},
    }[auth]
    _adapter(tmp_path, api.url, auth=spec)
    ran = _run(tmp_path, "api.json", {"HOTATO_T_TOKEN": value})
    assert ran.code == 2, ran.err
    assert "HOTATO_T_TOKEN" in ran.err and said in ran.err
    assert SECRET not in ran.out + ran.err
    assert api.seen == []  # refused before anything was sent


def test_a_transport_failure_never_echoes_the_transports_text(tmp_path: Path) -> None:
    """A server that answers garbage: the reason names the cause, never the library's message
    (which can quote a request header)."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(4)

    def serve() -> None:
        conn, _ = sock.accept()
        conn.recv(65536)
        conn.sendall(b"NOT-HTTP " + SECRET.encode() + b"\r\n\r\n")
        conn.close()

    threading.Thread(target=serve, daemon=True).start()
    url = f"http://127.0.0.1:{sock.getsockname()[1]}"
    path = _adapter(tmp_path, url, retries=0)
    with open_state(str(path)) as state, pytest.raises(StateUnavailable) as caught:
        state.after.query("orders", {"order_id": "A-1"})
    sock.close()
    assert SECRET not in caught.value.message
    assert caught.value.message == (
        f"GET {url}/orders/A-1: the connection failed or was lost (RemoteProtocolError)"
    )


@pytest.mark.parametrize(
    "query",
    ["?api_key=" + SECRET, "?token=" + SECRET, "?x=1", "?"],
    ids=["api_key", "token", "any-query", "empty-query"],
)
def test_an_http_base_url_with_a_query_is_refused(api: Api, tmp_path: Path, query: str) -> None:
    """A query on base_url would be sent with every request (and mangled request paths); a
    credential there would be printed in every reason."""
    _adapter(tmp_path, api.url + "/" + query)
    ran = _run(tmp_path, "api.json")
    assert ran.code == 2
    assert "$.base_url" in ran.err and "?query" in ran.err
    assert SECRET not in ran.out + ran.err
    assert api.seen == []


@pytest.mark.parametrize(
    "url",
    [
        "postgresql://postgres@127.0.0.1:5432/test?password=" + SECRET,
        "postgresql://postgres@127.0.0.1:5432/test?sslmode=disable&PassWord=" + SECRET,
        "mysql://root@127.0.0.1:3306/test?passwd=" + SECRET,
    ],
    ids=["pg-password", "pg-mixed-case", "mysql-passwd"],
)
def test_a_database_url_with_a_password_in_its_query_is_refused(tmp_path: Path, url: str) -> None:
    (tmp_path / "a.yaml").write_text(ASSERTIONS)
    ran = _run(tmp_path, url)
    assert ran.code == 2, ran.err
    assert "credential in its query" in ran.err
    assert SECRET not in ran.out + ran.err


@pytest.mark.parametrize(
    "password",
    ["se/cr@t-" + SECRET, "12/" + SECRET, "a?b@" + SECRET, "p#" + SECRET],
    ids=["slash-and-at", "digits-then-slash", "question-mark", "hash"],
)
def test_a_password_in_a_url_never_escapes_the_mask(tmp_path: Path, password: str) -> None:
    (tmp_path / "a.yaml").write_text(ASSERTIONS)
    url = f"postgresql://postgres:{password}@127.0.0.1:5432/test"
    ran = _run(tmp_path, url)
    assert ran.code == 2, ran.err
    assert SECRET not in ran.out + ran.err
    assert SECRET not in mask_url(url)


def test_a_database_password_env_with_a_newline_is_refused_by_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    doc = {"adapter": "sql", "url": "postgresql://postgres@127.0.0.1:5432/test",
           "password_env": "HOTATO_T_PW"}  # fmt: skip
    (tmp_path / "db.json").write_text(json.dumps(doc))
    monkeypatch.setenv("HOTATO_T_PW", SECRET + "\n")
    with pytest.raises(InputError) as caught:
        open_state(str(tmp_path / "db.json"))
    assert "HOTATO_T_PW" in str(caught.value) and SECRET not in str(caught.value)


def test_mask_url_keeps_the_place_and_hides_every_value() -> None:
    assert mask_url("postgresql://u:p@db.example:5432/shop?sslmode=require") == (
        "postgresql://u:***@db.example:5432/shop?sslmode=***"
    )
    assert mask_url("https://api.example/v1") == "https://api.example/v1"
