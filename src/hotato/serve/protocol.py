"""Slow clients: a connection must send a request's headers within `--header-timeout`.

uvicorn bounds an idle keep-alive connection and hotato bounds a body's arrival
(`--body-timeout`), but a client that opens a connection and sends nothing, or dribbles a
header a byte at a time (slowloris), would hold a connection, and a place under
`limit_concurrency`, for as long as it likes. The protocol here is uvicorn's httptools protocol
with one more timer: armed when a connection opens and when a request's first byte arrives,
cancelled when its headers are complete, closing the connection when it fires."""

from __future__ import annotations

import asyncio
from typing import Any


def bounded_protocol(header_timeout: float) -> type[asyncio.Protocol]:
    """uvicorn's httptools HTTP protocol, with the header deadline."""
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

    class HeaderDeadline(HttpToolsProtocol):
        _header_timer: asyncio.TimerHandle | None = None

        def _arm(self) -> None:
            self._disarm()
            self._header_timer = self.loop.call_later(header_timeout, self._headers_late)

        def _disarm(self) -> None:
            if self._header_timer is not None:
                self._header_timer.cancel()
                self._header_timer = None

        def _headers_late(self) -> None:
            self._header_timer = None
            if not self.transport.is_closing():
                self.transport.close()

        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            self._arm()

        def on_message_begin(self) -> None:
            super().on_message_begin()
            self._arm()

        def on_headers_complete(self) -> None:
            self._disarm()
            super().on_headers_complete()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

    return HeaderDeadline
