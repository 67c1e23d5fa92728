"""Hostile servers on 127.0.0.1: one that dribbles, one that floods, one that records."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Iterator


class Hostile:
    """Accepts connections, reads the request, then misbehaves as `mode` says:

    - `dribble-body`: headers promise 100 kB, then one byte every `pace` seconds;
    - `dribble-headers`: the status line and headers, one byte every `pace` seconds;
    - `flood`: a chunked body with no declared size, `flood_bytes` of it;
    - `huge-declared`: headers declaring 512 MB, then a trickle.
    Every request's first line is kept in `seen`."""

    def __init__(self, mode: str, pace: float = 0.05, flood_bytes: int = 0) -> None:
        self.mode, self.pace, self.flood_bytes = mode, pace, flood_bytes
        self.seen: list[str] = []
        self.stop = threading.Event()
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while not self.stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        with contextlib.suppress(OSError), conn:
            request = _read_request(conn)
            self.seen.append(request.split(b"\r\n", 1)[0].decode("latin-1"))
            head = b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n"
            if self.mode == "dribble-body":
                conn.sendall(head + b"content-length: 100000\r\n\r\n")
                self._trickle(conn, b" " * 100000)
            elif self.mode == "dribble-headers":
                self._trickle(conn, head + b"x-slow: " + b"a" * 100000)
            elif self.mode == "huge-declared":
                conn.sendall(head + b"content-length: 536870912\r\n\r\n")
                self._trickle(conn, b" " * 100000)
            elif self.mode == "flood":
                conn.sendall(head + b"transfer-encoding: chunked\r\n\r\n")
                block = b" " * 65536
                sent = 0
                while sent < self.flood_bytes and not self.stop.is_set():
                    conn.sendall(b"%x\r\n" % len(block) + block + b"\r\n")
                    sent += len(block)
                conn.sendall(b"0\r\n\r\n")

    def _trickle(self, conn: socket.socket, data: bytes) -> None:
        for i in range(len(data)):
            if self.stop.is_set():
                return
            conn.sendall(data[i : i + 1])
            time.sleep(self.pace)

    def close(self) -> None:
        self.stop.set()
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_RDWR)
        self.sock.close()


@contextlib.contextmanager
def hostile(mode: str, **kw: float) -> Iterator[Hostile]:
    server = Hostile(mode, **kw)  # type: ignore[arg-type]
    try:
        yield server
    finally:
        server.close()


def _read_request(conn: socket.socket) -> bytes:
    """The whole request (headers and a Content-Length body), so closing never resets it."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            return data
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip() or 0)
    while len(body) < length:
        chunk = conn.recv(65536)
        if not chunk:
            break
        body += chunk
    return head + b"\r\n\r\n" + body
