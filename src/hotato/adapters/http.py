"""The HTTP reader: one request per question to an API the adapter file maps, through httpx.

One client per run (connections kept alive). Credentials come from environment variables the
file names; their values go into request headers only and are scrubbed from every message.
Redirects are not followed, so a credential never travels to another host, and the process
environment (proxies, .netrc) is not consulted.
"""

from __future__ import annotations

import errno
import socket
import ssl
import time
import urllib.parse
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from hotato._net import Fetched, Overdue, TooLarge, fetch
from hotato.adapters._compare import field_of, row_matches
from hotato.adapters._redact import scrub
from hotato.adapters.config import HttpConfig, HttpResourceSpec, path_fields
from hotato.model.match import dotted, follow, missing
from hotato.model.state import StateUnavailable

if TYPE_CHECKING:
    import httpx

_ABSENT = object()
_BACKOFF_S = 0.1
_STICKY = ("dns", "connection_refused", "tls")  # connecting failed: the run stops asking


class HttpReader:
    def __init__(self, config: HttpConfig) -> None:
        self.config = config
        self.sent = 0  # requests that left this process, retries included
        self._headers = {**config.spec.headers, **config.credentials.headers}
        self._basic = config.credentials.basic
        self._secrets = config.credentials.secrets()
        self._client: httpx.Client | None = None
        self._down: StateUnavailable | None = None

    def query(self, resource: str, filters: Mapping[str, Any]) -> dict[str, Any] | None:
        spec = self.config.resources.get(resource)
        if spec is None:
            mapped = ", ".join(sorted(self.config.resources)) or "none"
            raise StateUnavailable(
                "unknown_resource",
                f"the adapter file maps no resource {resource!r} (it maps: {mapped})",
            )
        wanted = dict(filters)
        path, params, body, sent = _request_parts(resource, spec, wanted)
        if self._down is not None:
            raise self._down.with_traceback(None)
        shown = f"{spec.method} {self.config.spec.base_url.rstrip('/')}/{path}"
        response = self._send(spec.method, path, params, body, shown)
        if response is None:
            return None
        where = spec.record or "the response"
        found = _locate(response, spec.record)
        if found is _ABSENT:
            raise StateUnavailable("bad_response", f"{shown}: nothing at {where}")
        for candidate in found if isinstance(found, list) else [found]:
            if candidate is None:
                continue
            if not isinstance(candidate, dict):
                raise StateUnavailable(
                    "bad_response",
                    f"{shown}: {where} holds {type(candidate).__name__}, not a record (object)",
                )
            # A filter the request carried is checked when the record shows it; any other
            # filter must match the record.
            checks = {
                k: v
                for k, v in wanted.items()
                if k not in sent or not missing(field_of(candidate, k))
            }
            if row_matches(candidate, checks):
                return candidate
        return None

    def new_call(self) -> None:
        """A long-lived grader starts another call: an earlier call's unreachable verdict
        is forgotten, so the system of record is tried again."""
        self._down = None

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None

    def __enter__(self) -> HttpReader:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def _send(
        self,
        method: str,
        path: str,
        params: dict[str, str],
        body: dict[str, Any] | None,
        shown: str,
    ) -> Any:
        """The decoded JSON body; None for 404. Retries connection errors and 5xx."""
        import httpx

        spec = self.config.spec
        client = self._client_once()
        for attempt in range(spec.retries + 1):
            last = attempt == spec.retries
            try:
                self.sent += 1
                response = fetch(
                    client,
                    method,
                    path,
                    deadline_s=spec.timeout_s,
                    params=params or None,
                    json=body,
                )
            except TooLarge as exc:
                raise StateUnavailable("too_large", self._scrub(f"{shown}: {exc}")) from None
            except (httpx.TimeoutException, Overdue) as exc:
                failure = StateUnavailable(
                    "timeout",
                    self._scrub(
                        f"{shown}: no answer within {spec.timeout_s:g}s ({type(exc).__name__})"
                    ),
                )
                if isinstance(exc, httpx.ConnectTimeout):
                    self._down = failure
                raise failure from None
            except httpx.TransportError as exc:
                cause, retry = _transport_cause(exc)
                if retry and not last:
                    time.sleep(_BACKOFF_S * 2**attempt)
                    continue
                # The transport's own text can quote a header (and so a credential): never shown.
                failure = StateUnavailable(
                    cause, self._scrub(f"{shown}: {_CAUSE_TEXT[cause]} ({type(exc).__name__})")
                )
                if cause in _STICKY:
                    self._down = failure
                raise failure from None
            status = response.status_code
            if status >= 500 and not last:
                time.sleep(_BACKOFF_S * 2**attempt)
                continue
            return self._decode(response, shown)
        raise AssertionError("unreachable")  # pragma: no cover

    def _decode(self, response: Fetched, shown: str) -> Any:
        import msgspec

        status = response.status_code
        if status == 404:
            return None
        if status in (401, 403):
            raise StateUnavailable(
                "auth_failed",
                self._scrub(f"{shown} answered {status}: the credentials were refused"),
            )
        if status >= 500:
            raise StateUnavailable(
                "http_5xx",
                self._scrub(f"{shown} answered {status} after {self.config.spec.retries} retries"),
            )
        if not 200 <= status < 300:
            raise StateUnavailable("http_status", self._scrub(f"{shown} answered {status}"))
        try:
            return msgspec.json.decode(response.content)
        except msgspec.DecodeError:
            kind = response.headers.get("content-type", "no content type")
            raise StateUnavailable(
                "not_json",
                self._scrub(f"{shown} answered {status} with a body that is not JSON ({kind})"),
            ) from None

    def _client_once(self) -> httpx.Client:
        import httpx

        if self._client is None:
            spec = self.config.spec
            auth = httpx.BasicAuth(*self._basic) if self._basic else None
            self._client = httpx.Client(
                base_url=spec.base_url.rstrip("/") + "/",
                headers=self._headers,
                auth=auth,
                timeout=httpx.Timeout(spec.timeout_s),
                follow_redirects=False,
                trust_env=False,
            )
        return self._client

    def _scrub(self, message: str) -> str:
        return scrub(message, self._secrets)


def _request_parts(
    resource: str, spec: HttpResourceSpec, filters: dict[str, Any]
) -> tuple[str, dict[str, str], dict[str, Any] | None, set[str]]:
    """The path, query parameters and body; and which filters the request carried."""
    used = [*path_fields(spec.path), *spec.query.values(), *spec.body.values()]
    absent = sorted({name for name in used if name not in filters})
    if absent:
        raise StateUnavailable(
            "missing_parameter", f"the request for {resource!r} needs filter(s) {absent}"
        )
    path = spec.path.format_map({name: _segment(filters[name]) for name in path_fields(spec.path)})
    params = {api: _as_text(filters[name]) for api, name in spec.query.items()}
    body = None
    if spec.method == "POST":
        body = {api: filters[name] for api, name in spec.body.items()}
    return path.lstrip("/"), params, body, set(used)


def _segment(value: Any) -> str:
    """A filter value as one path segment: '/', '?', '..' and the like cannot leave it."""
    text = urllib.parse.quote(_as_text(value), safe="")
    return text.replace(".", "%2E") if text in (".", "..") else text


def _as_text(value: Any) -> str:
    """A filter value as it goes into a URL: JSON spelling for booleans and null."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    return str(value)


def _locate(document: Any, pointer: str) -> Any:
    if not pointer:
        return document
    if not pointer.startswith("/"):
        value = dotted(document, pointer)
        return _ABSENT if missing(value) else value
    parts = [raw.replace("~1", "/").replace("~0", "~") for raw in pointer[1:].split("/")]
    value = follow(document, parts)
    return _ABSENT if missing(value) else value


def _transport_cause(exc: BaseException) -> tuple[str, bool]:
    """The cause of a failed exchange, and whether another attempt may help."""
    for link in _chain(exc):
        if isinstance(link, socket.gaierror):
            return "dns", link.errno == socket.EAI_AGAIN
        if isinstance(link, ssl.SSLError):
            return "tls", False
        if getattr(link, "errno", None) == errno.ECONNREFUSED:
            return "connection_refused", True
    text = str(exc).lower()
    if "name or service not known" in text or "nodename nor servname" in text:
        return "dns", False
    if "temporary failure in name resolution" in text:
        return "dns", True
    if "connection refused" in text:
        return "connection_refused", True
    if "certificate" in text or "ssl" in text:
        return "tls", False
    return "connection_lost", True


def _chain(exc: BaseException) -> list[BaseException]:
    seen: list[BaseException] = []
    link: BaseException | None = exc
    while link is not None and link not in seen:
        seen.append(link)
        link = link.__cause__ or link.__context__
    return seen


_CAUSE_TEXT = {
    "dns": "the host name did not resolve",
    "tls": "the TLS handshake failed",
    "connection_refused": "the connection was refused",
    "connection_lost": "the connection failed or was lost",
}
