"""Network facts shared by every layer that may reach out (state adapters, the judge)."""

from __future__ import annotations

import ipaddress
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import httpx


def is_loopback(host: str) -> bool:
    """True for localhost and loopback addresses: traffic that never leaves this machine."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


MAX_BODY_BYTES = 16 * 1024 * 1024  # a state record or a judge's answer is far smaller


class Overdue(Exception):
    """The request's one deadline passed (however slowly the server kept sending)."""


class TooLarge(Exception):
    """The response body is over the byte cap; reading stopped there."""


@dataclass(frozen=True)
class Fetched:
    status_code: int
    headers: Mapping[str, str]
    content: bytes


def fetch(
    client: httpx.Client,
    method: str,
    url: str,
    *,
    deadline_s: float,
    max_bytes: int = MAX_BODY_BYTES,
    **kwargs: Any,
) -> Fetched:
    """One request, streamed, under one deadline for the whole exchange (connect, headers and
    body) and a cap on the decoded body. The exchange runs on a worker thread so a server that
    sends a byte a second cannot hold the caller past the deadline; the worker stops reading at
    its next chunk. Transport errors are raised as httpx raised them."""
    box: dict[str, Any] = {}
    done = threading.Event()
    deadline = time.monotonic() + deadline_s

    def work() -> None:
        try:
            box["ok"] = _read(client, method, url, deadline, max_bytes, kwargs)
        except BaseException as exc:  # handed to the caller below
            box["err"] = exc
        finally:
            done.set()

    threading.Thread(target=work, daemon=True, name="hotato-fetch").start()
    if not done.wait(deadline_s):
        raise Overdue(f"no complete answer within {deadline_s:g}s")
    if "err" in box:
        raise box["err"]
    return box["ok"]


def _read(
    client: httpx.Client,
    method: str,
    url: str,
    deadline: float,
    max_bytes: int,
    kwargs: dict[str, Any],
) -> Fetched:
    with client.stream(method, url, **kwargs) as response:
        declared = response.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > max_bytes:
            raise TooLarge(f"the body is {int(declared)} bytes, over the cap of {max_bytes}")
        chunks: list[bytes] = []
        size = 0
        for chunk in response.iter_bytes():  # decoded: a compressed bomb counts at full size
            size += len(chunk)
            if size > max_bytes:
                raise TooLarge(f"the body is over the cap of {max_bytes} bytes")
            if time.monotonic() > deadline:
                raise Overdue("the deadline passed while reading the body")
            chunks.append(chunk)
        return Fetched(response.status_code, dict(response.headers), b"".join(chunks))
