"""Safe by default: loopback unless told, secrets and a bearer token off loopback, each vendor's
own verification, a body size limit, slow clients cut off, backpressure, no secret shown."""

from __future__ import annotations

import gzip
import hashlib
import hmac
import json
import logging
import socket
from pathlib import Path
from typing import Any

import httpx
import pytest
from tests.conftest import hotato
from tests.serve.bodies import Server, retell_body, vapi_body

pytestmark = pytest.mark.filterwarnings("ignore:Using `httpx` with `starlette.testclient`")
SECRET = "vapi-s3cret-value"
KEY = "retell-api-key-value"
TOKEN = "bearer-token-value"


def _client(tmp_path: Path, assertions: Path, **options: Any) -> Any:
    """The app in this process, its grading not started: calls stay pending."""
    from starlette.testclient import TestClient

    from hotato.serve import ServeConfig, app

    return TestClient(
        app(ServeConfig(out=str(tmp_path / "results"), assertions=str(assertions), **options))
    )


@pytest.fixture
def secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("T_TOKEN", TOKEN)
    monkeypatch.setenv("T_VAPI", SECRET)
    monkeypatch.setenv("T_RETELL", KEY)


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (
            [],
            "without --token-env (the bearer token for /calls, /v1/traces and the pages) and "
            "--vapi-secret-env or --retell-key-env",
        ),
        (["--token-env", "T_TOKEN"], "without --vapi-secret-env or --retell-key-env"),
        (
            ["--token-env", "T_UNSET_HERE", "--vapi-secret-env", "T_VAPI"],
            "--token-env names the environment variable T_UNSET_HERE, which is not set",
        ),
    ],
)
def test_refuses_to_listen_off_loopback_without_secrets(
    tmp_path: Path, assertions: Path, secrets: None, flags: list[str], message: str
) -> None:
    ran = hotato(
        "serve",
        "--assertions",
        str(assertions),
        "--out",
        str(tmp_path / "r"),
        "--listen",
        "0.0.0.0:8799",
        *flags,
    )
    assert ran.code == 2
    assert message in ran.err
    assert not (tmp_path / "r").exists()


def test_bearer_token_guards_calls_pages_and_metrics(
    tmp_path: Path, assertions: Path, secrets: None
) -> None:
    client = _client(tmp_path, assertions, token_env="T_TOKEN")
    body = {"call_id": "n1", "transcript": [{"role": "agent", "text": "hi"}]}
    for method, path in (
        ("POST", "/calls"),
        ("GET", "/"),
        ("GET", "/metrics"),
        ("POST", "/v1/traces"),
        ("GET", "/calls/n1"),
    ):
        answer = client.request(method, path, json=body)
        assert (answer.status_code, answer.json()) == (401, {"error": "a bearer token is required"})
    wrong = client.post("/calls", json=body, headers={"authorization": "Bearer nope"})
    assert wrong.status_code == 401
    ok = client.post("/calls", json=body, headers={"authorization": f"Bearer {TOKEN}"})
    assert ok.json() == {"status": "accepted", "call_id": "n1"}
    assert client.get("/healthz").json() == {"ok": True, "pending": 1}


@pytest.mark.slow
def test_vapi_verification(tmp_path: Path, assertions: Path, secrets: None) -> None:
    client = _client(tmp_path, assertions, vapi_secret_env="T_VAPI")
    body = vapi_body("v1")
    assert client.post("/vapi", content=body).status_code == 401
    bad = client.post("/vapi", content=body, headers={"x-vapi-secret": "guess"})
    assert bad.json() == {"error": "the Vapi credential or signature does not verify"}
    signed = hmac.new(SECRET.encode(), body, hashlib.sha256).hexdigest()
    assert client.post("/vapi", content=body, headers={"x-vapi-signature": signed}).json() == {
        "status": "accepted",
        "call_id": "v1",
    }
    tampered = body.replace(b"A17", b"A18")
    assert (
        client.post("/vapi", content=tampered, headers={"x-vapi-signature": signed}).status_code
        == 401
    )
    other = vapi_body("v2")
    assert client.post("/vapi", content=other, headers={"x-vapi-secret": SECRET}).status_code == 200
    bearer = client.post(
        "/vapi", content=vapi_body("v3"), headers={"authorization": f"Bearer {SECRET}"}
    )
    assert bearer.status_code == 200
    assert sorted(p.name for p in (tmp_path / "results/spool/calls").iterdir()).__len__() == 3


@pytest.mark.slow  # imports the Retell SDK
def test_retell_verification_with_the_sdk_signature(
    tmp_path: Path, assertions: Path, secrets: None
) -> None:
    from retell.lib.webhook_auth import symmetric

    client = _client(tmp_path, assertions, retell_key_env="T_RETELL")
    body = retell_body("r1")
    signature = symmetric["sign"](body.decode(), KEY)
    assert client.post("/retell", content=body).json() == {
        "error": "x-retell-signature does not verify"
    }
    other_key = symmetric["sign"](body.decode(), "someone-else")
    assert (
        client.post("/retell", content=body, headers={"x-retell-signature": other_key}).status_code
        == 401
    )
    old = symmetric["sign"](body.decode(), KEY, 1_000_000)  # a replay from long ago
    assert (
        client.post("/retell", content=body, headers={"x-retell-signature": old}).status_code == 401
    )
    ok = client.post("/retell", content=body, headers={"x-retell-signature": signature})
    assert ok.json() == {"status": "accepted", "call_id": "r1"}


@pytest.mark.slow
def test_vendor_endpoints_without_a_secret_are_off_away_from_loopback(
    tmp_path: Path, assertions: Path, secrets: None
) -> None:
    client = _client(
        tmp_path, assertions, host="0.0.0.0", token_env="T_TOKEN", vapi_secret_env="T_VAPI"
    )
    answer = client.post("/retell", content=retell_body("r1"))
    assert (answer.status_code, answer.json()) == (
        403,
        {"error": "the Retell endpoint is off: start with --retell-key-env"},
    )


def test_body_size_limit_and_gzip_bomb(tmp_path: Path, assertions: Path) -> None:
    client = _client(tmp_path, assertions, max_body=4096)
    big = client.post("/calls", content=b"x" * 5000)
    assert (big.status_code, big.json()) == (413, {"error": "the body is larger than 4096 bytes"})
    bomb = gzip.compress(b"{" + b" " * 100_000 + b"}")
    answer = client.post("/calls", content=bomb, headers={"content-encoding": "gzip"})
    assert (answer.status_code, answer.json()) == (
        413,
        {"error": "the inflated body is larger than 4096 bytes"},
    )


def test_backpressure_is_503_with_retry_after(tmp_path: Path, assertions: Path) -> None:
    client = _client(tmp_path, assertions, max_pending=2)
    said = [{"role": "agent", "text": "hi"}]
    for n in range(2):
        assert (
            client.post("/calls", json={"call_id": f"c{n}", "transcript": said}).status_code == 200
        )
    busy = client.post("/calls", json={"call_id": "c2", "transcript": said})
    assert busy.status_code == 503
    assert busy.headers["retry-after"] == "5"
    assert busy.json() == {"error": "grading is behind; retry later"}
    assert not (tmp_path / "results/spool/calls" / "c2").exists()


@pytest.mark.slow
def test_metrics_parse_and_no_secret_in_pages_metrics_or_logs(
    tmp_path: Path, assertions: Path, secrets: None, caplog: pytest.LogCaptureFixture
) -> None:
    from prometheus_client.parser import text_string_to_metric_families

    caplog.set_level(logging.DEBUG)
    client = _client(
        tmp_path,
        assertions,
        token_env="T_TOKEN",
        vapi_secret_env="T_VAPI",
        alert_url="https://hooks.example.invalid/T000/B000/alert-secret-path",
    )
    auth = {"authorization": f"Bearer {TOKEN}"}
    client.post("/vapi", content=vapi_body("m1"), headers={"x-vapi-secret": SECRET})
    client.post("/vapi", content=vapi_body("m1"), headers={"x-vapi-secret": SECRET})
    client.post("/vapi", content=vapi_body("m2"), headers={"x-vapi-secret": "wrong"})
    text = client.get("/metrics", headers=auth).text
    samples = {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for fam in text_string_to_metric_families(text)
        for s in fam.samples
    }
    assert samples[("hotato_serve_calls_received_total", (("source", "vapi"),))] == 1
    assert samples[("hotato_serve_calls_duplicate_total", (("source", "vapi"),))] == 1
    assert samples[("hotato_serve_requests_rejected_total", (("reason", "unverified"),))] == 1
    assert samples[("hotato_serve_calls_pending", ())] == 1
    shown = text + client.get("/", headers=auth).text + caplog.text
    for secret in (SECRET, TOKEN, "alert-secret-path"):
        assert secret not in shown


@pytest.mark.parametrize(
    ("path", "body", "message"),
    [
        ("/vapi", b"{not json", "the body is not JSON"),
        ("/vapi", b"[]", "the body is not a JSON object"),
        ("/vapi", b'{"message": {"type": "end-of-call-report"}}', "$.message.call.id is missing"),
        ("/retell", b'{"event": "call_ended"}', "a Retell call event without a `call` object"),
        ("/calls", b'{"call_id": "x"}', "a call needs a `trace`, a `transcript` or both"),
        ("/v1/traces", b"\x0a\x05junk", "not an OTLP protobuf trace export"),
    ],
)
def test_malformed_bodies_are_400_and_kept_nowhere(
    tmp_path: Path, assertions: Path, path: str, body: bytes, message: str
) -> None:
    client = _client(tmp_path, assertions)
    ctype = "application/x-protobuf" if path == "/v1/traces" else "application/json"
    answer = client.post(path, content=body, headers={"content-type": ctype})
    assert answer.status_code == 400
    assert message in answer.json()["error"]
    assert list((tmp_path / "results/spool/calls").iterdir()) == []


@pytest.mark.slow
def test_a_slow_client_is_cut_off(tmp_path: Path, assertions: Path) -> None:
    srv = Server(tmp_path / "results", assertions, "--body-timeout", "0.5").start()
    try:
        with socket.create_connection(("127.0.0.1", srv.port)) as sock:
            sock.sendall(
                b"POST /calls HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                b'Content-Length: 100\r\n\r\n{"call'
            )
            sock.settimeout(30)
            received = b""
            while chunk := sock.recv(4096):  # the server closes the connection after it
                received += chunk
            answer = received.decode()
        assert answer.startswith("HTTP/1.1 408")
        assert json.loads(answer.split("\r\n\r\n", 1)[1]) == {
            "error": "the body took too long to arrive"
        }
    finally:
        srv.stop()


def _closed_while_dribbling(sock: socket.socket, lines: int) -> bool:
    """Send a header line at a time, a little while apart; True once the server closed."""
    import time

    sock.settimeout(0.5)
    for n in range(lines):
        try:
            sock.sendall(f"X-Slow-{n}: {n}\r\n".encode())
            if sock.recv(4096) == b"":
                return True
        except TimeoutError:
            continue  # still open, nothing said: dribble on
        except OSError:
            return True  # reset
        time.sleep(0.2)
    return False


@pytest.mark.slow
def test_a_client_dribbling_its_headers_is_cut_off(tmp_path: Path, assertions: Path) -> None:
    """slowloris: a header line every ~0.7 s keeps uvicorn's own timers at bay, not hotato's."""
    srv = Server(tmp_path / "results", assertions, "--header-timeout", "1").start()
    try:
        with socket.create_connection(("127.0.0.1", srv.port)) as sock:
            sock.sendall(b"POST /vapi HTTP/1.1\r\nHost: x\r\n")
            assert _closed_while_dribbling(sock, 200)
        with socket.create_connection(("127.0.0.1", srv.port)) as silent:
            silent.settimeout(60)
            assert silent.recv(4096) == b""  # connected and said nothing: closed too
        # a keep-alive connection is held to the same deadline on its next request
        body = vapi_body("slow-keep-alive")
        with socket.create_connection(("127.0.0.1", srv.port)) as sock:
            sock.sendall(
                b"POST /vapi HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n" % len(body) + body
            )
            sock.settimeout(30)
            answer = sock.recv(4096)
            assert answer.startswith(b"HTTP/1.1 200"), answer
            sock.sendall(b"POST /vapi HTTP/1.1\r\n")
            assert _closed_while_dribbling(sock, 200)
        assert httpx.get(srv.url + "/healthz").status_code == 200  # and the server serves on
    finally:
        srv.stop()
