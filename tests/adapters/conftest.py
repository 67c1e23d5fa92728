"""Real systems of record for the adapter tests: PostgreSQL and MariaDB on 127.0.0.1 (started by
.ci/services; where one is down its tests skip with the reason, and fail under
HOTATO_REQUIRE_SERVICES=1, as in CI), SQLite files, and
loopback servers started inside the test."""

from __future__ import annotations

import contextlib
import json
import socket
import sqlite3
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import require_service

PG_URL = "postgresql://postgres@127.0.0.1:5432/test"
MARIADB_URL = "mysql://root@127.0.0.1:3306/test"

# One small orders table in each database; the SQL differs only where the dialects do.
_DDL = {
    "sqlite": "CREATE TABLE {t} (id INTEGER PRIMARY KEY, order_id TEXT NOT NULL, zip TEXT, "
    "amount NUMERIC, refunded BOOLEAN, status TEXT)",
    "postgresql": "CREATE TABLE {t} (id INTEGER PRIMARY KEY, order_id VARCHAR(20) NOT NULL, "
    "zip VARCHAR(10), amount NUMERIC(10,2), refunded BOOLEAN, status TEXT)",
    "mysql": "CREATE TABLE {t} (id INTEGER PRIMARY KEY, order_id VARCHAR(20) NOT NULL, "
    "zip VARCHAR(10), amount DECIMAL(10,2), refunded BOOLEAN, status TEXT)",
}
ROWS = [
    {
        "id": 1,
        "order_id": "A-1001",
        "zip": "02139",
        "amount": 25.5,
        "refunded": True,
        "status": "refunded",
    },
    {
        "id": 2,
        "order_id": "A-1002",
        "zip": "10001",
        "amount": 10,
        "refunded": False,
        "status": "none",
    },
]


@dataclass
class Db:
    """A database holding one fresh table, and a writable side door for the test itself."""

    dialect: str
    source: str  # what a user passes as --state
    table: str
    execute: Callable[..., Any]

    def count(self) -> int:
        return int(self.execute(f"SELECT COUNT(*) FROM {self.table}")[0][0])


def unique(prefix: str = "hotato_t") -> str:
    return f"{prefix}_{uuid.uuid4().hex[:10]}"


def _server_db(url: str, dialect: str) -> Iterator[Db]:
    import sqlalchemy as sa

    driver = "postgresql+psycopg" if dialect == "postgresql" else "mysql+pymysql"
    engine = sa.create_engine(url.replace(url.split("://")[0], driver, 1))
    table = unique()

    def execute(sql: str, **params: Any) -> Any:
        with engine.begin() as conn:
            result = conn.execute(sa.text(sql), params)
            return result.fetchall() if result.returns_rows else None

    execute(_DDL[dialect].format(t=table))
    for row in ROWS:
        execute(
            f"INSERT INTO {table} (id, order_id, zip, amount, refunded, status) "
            "VALUES (:id, :order_id, :zip, :amount, :refunded, :status)",
            **row,
        )
    try:
        yield Db(dialect, url, table, execute)
    finally:
        execute(f"DROP TABLE IF EXISTS {table}")
        engine.dispose()


@pytest.fixture
def pg() -> Iterator[Db]:
    require_service("postgresql")
    yield from _server_db(PG_URL, "postgresql")


@pytest.fixture
def maria() -> Iterator[Db]:
    require_service("mariadb")
    yield from _server_db(MARIADB_URL, "mysql")


@pytest.fixture
def lite(tmp_path: Path) -> Iterator[Db]:
    path = tmp_path / "shop.db"
    table = "orders"
    with sqlite3.connect(path) as conn:
        conn.execute(_DDL["sqlite"].format(t=table))
        conn.executemany(
            f"INSERT INTO {table} VALUES (:id, :order_id, :zip, :amount, :refunded, :status)", ROWS
        )

    def execute(sql: str, **params: Any) -> Any:
        with sqlite3.connect(path) as conn:
            return conn.execute(sql, params).fetchall()

    yield Db("sqlite", str(path), table, execute)


@pytest.fixture(params=["sqlite", "postgresql", "mysql"])
def db(request: pytest.FixtureRequest) -> Db:
    """Each database in turn: the same behaviour is required of all three."""
    name = {"sqlite": "lite", "postgresql": "pg", "mysql": "maria"}[request.param]
    return request.getfixturevalue(name)  # type: ignore[no-any-return]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Silent:
    """A TCP listener that accepts connections and never says a word: a hung server."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.port = int(self.sock.getsockname()[1])
        self.held: list[socket.socket] = []
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.held.append(conn)

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_RDWR)
        self.sock.close()
        for conn in self.held:
            conn.close()


@pytest.fixture
def silent() -> Iterator[Silent]:
    server = Silent()
    yield server
    server.close()


class Proxy:
    """A TCP forwarder to a real server, which the test can stop: the server going away."""

    def __init__(self, port: int) -> None:
        self.upstream = port
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.port = int(self.sock.getsockname()[1])
        self.open: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.sock.accept()
            except OSError:
                return
            server = socket.create_connection(("127.0.0.1", self.upstream))
            self.open += [client, server]
            for a, b in ((client, server), (server, client)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    @staticmethod
    def _pump(src: socket.socket, dst: socket.socket) -> None:
        try:
            while data := src.recv(65536):
                dst.sendall(data)
        except OSError:
            pass
        finally:
            for s in (src, dst):
                with contextlib.suppress(OSError):
                    s.shutdown(socket.SHUT_RDWR)

    def stop(self) -> None:
        # shutdown wakes the thread blocked in accept(); close() alone leaves the port listening
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_RDWR)
        self.sock.close()
        for s in self.open:
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)
            s.close()


@dataclass
class Seen:
    method: str
    path: str  # with the query string
    headers: dict[str, str]
    body: bytes
    client_port: int


Reply = tuple[int, Any]  # status, JSON value (bytes are sent as they are)


class Api:
    """A JSON API on 127.0.0.1 in a thread. `routes[(METHOD, path)]` is a reply, a list of
    replies served in turn, or a function of the request."""

    def __init__(self) -> None:
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        self.routes: dict[tuple[str, str], Any] = {}
        self.seen: list[Seen] = []
        self.connections: list[socket.socket] = []
        self.delay = 0.0
        api = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive, so connection reuse is visible

            def log_message(self, *_: Any) -> None:
                pass

            def setup(self) -> None:
                super().setup()
                api.connections.append(self.connection)

            def _serve(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                seen = Seen(
                    self.command,
                    self.path,
                    dict(self.headers.items()),
                    self.rfile.read(length),
                    self.client_address[1],
                )
                api.seen.append(seen)
                status, value = api.reply(seen)
                if api.delay:
                    time.sleep(api.delay)
                data = value if isinstance(value, bytes) else json.dumps(value).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                if status in (301, 302):
                    self.send_header("Location", "http://127.0.0.1:1/elsewhere")
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = _serve

        class Server(ThreadingHTTPServer):
            def handle_error(self, *_: Any) -> None:  # a client that gave up: expected here
                pass

        self.server = Server(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = int(self.server.server_address[1])
        self.url = f"http://127.0.0.1:{self.port}"
        # a short poll, so stop() (server.shutdown) returns at once rather than in half a second
        threading.Thread(target=self.server.serve_forever, args=(0.02,), daemon=True).start()

    def reply(self, seen: Seen) -> Reply:
        route = self.routes.get((seen.method, seen.path.split("?")[0]))
        if route is None:
            return 404, {"error": "not found"}
        if callable(route):
            return route(seen)  # type: ignore[no-any-return]
        if isinstance(route, list):
            return route.pop(0) if len(route) > 1 else route[0]  # type: ignore[no-any-return]
        return route  # type: ignore[no-any-return]

    def stop(self) -> None:
        """The server goes away: the listener and every kept-alive connection."""
        self.server.shutdown()
        self.server.server_close()
        for conn in self.connections:
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)


@pytest.fixture
def api() -> Iterator[Api]:
    server = Api()
    yield server
    server.stop()
