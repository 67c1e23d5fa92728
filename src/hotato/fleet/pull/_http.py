"""HTTP for the pull: HTTPS (or loopback), a bearer key from the environment that never appears
in a message (checked when read: one line of ASCII), retries on 429 and 5xx honouring
Retry-After, a bounded number of attempts, and each answer read under one deadline and a size
cap (hotato._net.fetch), so a server that dribbles or floods cannot hold or fill the pull."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from hotato._net import is_loopback
from hotato._secrets import mask_url, value_problem
from hotato.model.errors import InputError

ATTEMPTS = 5
MAX_WAIT = 60.0
ANSWER_DEADLINE_S = 120.0  # one page of calls, headers and body, however slowly it is sent
MAX_ANSWER_BYTES = 64 * 1024 * 1024  # a page of 1,000 calls with their artifacts fits


class Http:
    def __init__(
        self,
        base_url: str,
        key_env: str,
        sleep: Callable[[float], None] = time.sleep,
        timeout: float = 30.0,
    ) -> None:
        import httpx

        _check_base_url(base_url)
        key = os.environ.get(key_env, "")
        if not key:
            raise InputError.one(f"set the API key in the environment variable {key_env}")
        if why := value_problem(key_env, key):
            raise InputError.one(why)
        self.key_env = key_env
        self.deadline_s = ANSWER_DEADLINE_S
        self.sleep = sleep
        self.pages = 0
        self.retries = 0
        self._client = httpx.Client(
            base_url=base_url.rstrip("/"),
            headers={"Authorization": f"Bearer {key}", "Accept": "application/json"},
            timeout=timeout,
            follow_redirects=False,
        )

    def call(self, method: str, path: str, **kw: Any) -> Any:
        """The decoded JSON answer; refusals name the status, never the key."""
        import httpx

        from hotato._net import Overdue, TooLarge, fetch

        for attempt in range(1, ATTEMPTS + 1):
            try:
                response = fetch(
                    self._client,
                    method,
                    path,
                    deadline_s=self.deadline_s,
                    max_bytes=MAX_ANSWER_BYTES,
                    **kw,
                )
            except Overdue:
                raise InputError.one(
                    f"{method} {path}: no complete answer within {self.deadline_s:g}s; "
                    "run the pull again later to resume"
                ) from None
            except TooLarge:
                raise InputError.one(
                    f"{method} {path}: the answer is over {MAX_ANSWER_BYTES // (1 << 20)} MiB; "
                    "ask for fewer calls a page (--page-size)"
                ) from None
            except httpx.TransportError as exc:
                if attempt == ATTEMPTS:
                    raise InputError.one(
                        f"{method} {path}: the API could not be reached after {ATTEMPTS} "
                        f"attempts ({type(exc).__name__})"
                    ) from None
                self._wait(attempt, None)
                continue
            status = response.status_code
            if status in (401, 403):
                raise InputError.one(
                    f"{method} {path}: the API refused the key in ${self.key_env} (HTTP {status})"
                )
            if status == 429 or status >= 500:
                if attempt == ATTEMPTS:
                    raise InputError.one(
                        f"{method} {path}: HTTP {status} after {ATTEMPTS} attempts; run the "
                        "pull again later to resume"
                    )
                self._wait(attempt, response.headers.get("retry-after"))
                continue
            if status >= 400:
                raise InputError.one(f"{method} {path}: HTTP {status}")
            self.pages += 1
            try:
                return json.loads(response.content)
            except (ValueError, RecursionError):
                raise InputError.one(f"{method} {path}: the answer is not JSON") from None
        raise AssertionError("unreachable")

    def _wait(self, attempt: int, retry_after: str | None) -> None:
        self.retries += 1
        try:
            wait = float(retry_after) if retry_after is not None else 0.5 * 2 ** (attempt - 1)
        except ValueError:
            wait = 0.5 * 2 ** (attempt - 1)
        self.sleep(min(max(wait, 0.0), MAX_WAIT))

    def close(self) -> None:
        self._client.close()


def _check_base_url(base_url: str) -> None:
    """HTTPS (plain http only to loopback), and no credentials in the URL: the key comes from
    the environment. Messages show the URL masked."""
    try:
        parts = urlsplit(base_url)
        host = parts.hostname or ""
        _ = parts.port  # a port that is not a number is refused here, not by the transport
    except ValueError:
        raise InputError.one("--base-url is not a URL", file=mask_url(base_url)) from None
    if parts.username is not None or parts.password is not None:
        raise InputError.one(
            "--base-url must not carry a user or password (they would show in shell history "
            "and logs); the key comes from --api-key-env",
            file=mask_url(base_url),
        )
    if parts.scheme != "https" and not (parts.scheme == "http" and is_loopback(host)):
        raise InputError.one(
            "--base-url must be https:// (plain http only to this machine)",
            file=mask_url(base_url),
        )
