"""HTTP for the pull: HTTPS (or loopback), a bearer key from the environment that never appears
in a message, retries on 429 and 5xx honouring Retry-After, and a bounded number of attempts."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from hotato._net import is_loopback
from hotato.model.errors import InputError

ATTEMPTS = 5
MAX_WAIT = 60.0


class Http:
    def __init__(
        self,
        base_url: str,
        key_env: str,
        sleep: Callable[[float], None] = time.sleep,
        timeout: float = 30.0,
    ) -> None:
        import httpx

        parts = urlsplit(base_url)
        if parts.scheme != "https" and not (
            parts.scheme == "http" and is_loopback(parts.hostname or "")
        ):
            raise InputError.one(
                "--base-url must be https:// (plain http only to this machine)", file=base_url
            )
        key = os.environ.get(key_env, "")
        if not key:
            raise InputError.one(f"set the API key in the environment variable {key_env}")
        self.key_env = key_env
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

        for attempt in range(1, ATTEMPTS + 1):
            try:
                response = self._client.request(method, path, **kw)
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
                return response.json()
            except ValueError:
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
