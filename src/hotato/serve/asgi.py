"""The ASGI application: `hotato.serve.app(config)` under uvicorn or any ASGI server."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import zlib
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

import msgspec

from hotato.serve import intake, otlp, pages, verify
from hotato.serve.config import ServeConfig
from hotato.serve.service import Busy, Service

log = logging.getLogger("hotato.serve")
RETRY_AFTER = "5"


class Reject(Exception):
    def __init__(self, status: int, message: str, reason: str) -> None:
        super().__init__(message)
        self.status, self.message, self.reason = status, message, reason


@dataclass(frozen=True)
class Answer:
    status: int
    body: bytes
    media_type: str = "application/json"
    headers: tuple[tuple[bytes, bytes], ...] = ()


def _json(doc: dict[str, Any], status: int = 200, **headers: str) -> Answer:
    extra = tuple((k.lower().replace("_", "-").encode(), v.encode()) for k, v in headers.items())
    return Answer(status, msgspec.json.encode(doc), "application/json", extra)


def app(config: ServeConfig) -> Any:
    """The receiver as an ASGI application. Refuses (InputError) a configuration that is not
    safe or not valid, before anything listens.

    The POST endpoints (the acknowledgement path) are answered by a plain ASGI handler: the
    body read under a deadline, its envelope read, the call spooled by group commit, a small
    JSON answer. The pages, /metrics and /healthz are a Starlette application behind it."""
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import HTMLResponse, JSONResponse, Response
    from starlette.routing import Route

    svc = Service(config)
    # --var COLUMN=PATH reads a JSON body; COLUMN=attr:NAME is an OTLP call's (service.py)
    mapping = {c: p for c, p in config.variables.items() if not p.startswith("attr:")}

    async def body_of(receive: Any, headers: dict[str, str]) -> bytes:
        limit = config.max_body
        declared = headers.get("content-length")
        if declared is not None and declared.isdigit() and int(declared) > limit:
            raise Reject(413, f"the body is larger than {limit} bytes", "too_large")
        chunks, size = [], 0
        try:
            async with asyncio.timeout(config.body_timeout):
                while True:
                    message = await receive()
                    if message["type"] == "http.disconnect":
                        raise Gone()
                    chunk = message.get("body", b"")
                    size += len(chunk)
                    if size > limit:
                        raise Reject(413, f"the body is larger than {limit} bytes", "too_large")
                    chunks.append(chunk)
                    if not message.get("more_body", False):
                        break
        except TimeoutError:
            raise Reject(408, "the body took too long to arrive", "slow") from None
        body = chunks[0] if len(chunks) == 1 else b"".join(chunks)
        encoding = headers.get("content-encoding", "identity").lower()
        if encoding == "gzip":
            body = _gunzip(body, limit)
        elif encoding not in ("identity", ""):
            raise Reject(415, f"Content-Encoding {encoding} is not supported", "encoding")
        return body

    def refused(exc: intake.Refused) -> Reject:
        return Reject(400, str(exc), "malformed")

    async def ack(header: intake.Header, body: bytes) -> Answer:
        status = await svc.accept(header, body)
        return _json({"status": status, "call_id": header.call_id})

    async def vendor(
        headers: dict[str, str],
        body: bytes,
        source: str,
        secret: str | None,
        verified: Any,
        read: Any,
        off: str,
        unverified: str,
        what: str,
    ) -> Answer:
        """A vendor's webhook: off away from loopback without its secret, verified when it has
        one, then read into a call to grade (or an event acknowledged and ignored)."""
        if secret is None and not svc.loopback:
            raise Reject(403, off, "off")
        if secret is not None and not verified(headers, body, secret):
            raise Reject(401, unverified, "unverified")
        try:
            parsed = read(body, mapping)
        except intake.Refused as exc:
            raise refused(exc) from None
        if isinstance(parsed, intake.Ignored):
            svc.metrics.ignored.labels(source).inc()
            return _json({"status": "ignored", what: parsed.what})
        return await ack(parsed, body)

    async def vapi(headers: dict[str, str], body: bytes) -> Answer:
        return await vendor(
            headers,
            body,
            "vapi",
            svc.secrets.vapi,
            verify.vapi_ok,
            intake.vapi,
            "the Vapi endpoint is off: start with --vapi-secret-env",
            "the Vapi credential or signature does not verify",
            "type",
        )

    async def retell(headers: dict[str, str], body: bytes) -> Answer:
        return await vendor(
            headers,
            body,
            "retell",
            svc.secrets.retell,
            verify.retell_ok,
            intake.retell,
            "the Retell endpoint is off: start with --retell-key-env",
            "x-retell-signature does not verify",
            "event",
        )

    async def calls(headers: dict[str, str], body: bytes) -> Answer:
        try:
            header, _ = intake.native(body, mapping)
        except intake.Refused as exc:
            raise refused(exc) from None
        return await ack(header, body)

    async def traces(headers: dict[str, str], body: bytes) -> Answer:
        ctype = headers.get("content-type", "").lower()
        try:  # off the event loop: a large export costs milliseconds to decode and split
            parts = await asyncio.to_thread(_otlp_parts, body, ctype)
        except intake.Refused as exc:
            raise refused(exc) from None
        await svc.gather(parts)
        if "json" in ctype:
            return _json({})
        return Answer(200, b"", "application/x-protobuf")

    # path -> (handler, whether the bearer token guards it)
    posts = {
        "/vapi": (vapi, False),
        "/retell": (retell, False),
        "/calls": (calls, True),
        "/v1/traces": (traces, True),
    }

    async def post(scope: Any, receive: Any, send: Any) -> None:
        handler, guarded = posts[scope["path"]]
        headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]}
        try:
            if guarded and not verify.token_ok(headers, svc.secrets.token):
                raise Reject(401, "a bearer token is required", "unauthorized")
            answer = await handler(headers, await body_of(receive, headers))
        except Reject as r:
            svc.metrics.rejected.labels(r.reason).inc()
            answer = _json({"error": r.message}, r.status)
        except Busy:
            answer = _json(
                {"error": "grading is behind; retry later"}, 503, retry_after=RETRY_AFTER
            )
        except Gone:
            return
        await send(
            {
                "type": "http.response.start",
                "status": answer.status,
                "headers": [
                    (b"content-type", answer.media_type.encode()),
                    (b"content-length", str(len(answer.body)).encode()),
                    *answer.headers,
                ],
            }
        )
        await send({"type": "http.response.body", "body": answer.body})

    def guarded(
        handler: Callable[[Request], Any], *, token: bool = True
    ) -> Callable[[Request], Any]:
        async def run(request: Request) -> Response:
            if token and not verify.token_ok(request.headers, svc.secrets.token):
                svc.metrics.rejected.labels("unauthorized").inc()
                return JSONResponse({"error": "a bearer token is required"}, status_code=401)
            result: Response = await handler(request)
            return result

        return run

    async def metrics(request: Request) -> Response:
        data, ctype = svc.metrics.text()
        return Response(data, media_type=ctype.split(";")[0])

    async def healthz(request: Request) -> Response:
        return JSONResponse({"ok": True, "pending": svc.pending})

    async def overview(request: Request) -> Response:
        return HTMLResponse(pages.overview(svc))

    async def call_page(request: Request) -> Response:
        call_id = request.path_params["call_id"]
        html, status = await asyncio.to_thread(pages.call, svc, call_id)
        return HTMLResponse(html, status_code=status)

    @contextlib.asynccontextmanager
    async def lifespan(_: Any) -> AsyncIterator[None]:
        await svc.start()
        try:
            yield
        finally:
            await svc.stop()

    async def not_allowed(request: Request) -> Response:
        return JSONResponse({"error": "use POST"}, status_code=405, headers={"Allow": "POST"})

    routes = [
        *(Route(path, not_allowed, methods=["GET"]) for path in posts if path != "/calls"),
        Route("/metrics", guarded(metrics), methods=["GET"]),
        Route("/healthz", guarded(healthz, token=False), methods=["GET"]),
        Route("/", guarded(overview), methods=["GET"]),
        Route("/calls/{call_id:path}", guarded(call_page), methods=["GET"]),
    ]
    pages_app = Starlette(routes=routes, lifespan=lifespan)

    async def application(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope["method"] == "POST" and scope["path"] in posts:
            await post(scope, receive, send)
        else:
            await pages_app(scope, receive, send)

    return application


class Gone(Exception):
    """The client went away before its body arrived: nothing to answer."""


def _otlp_parts(body: bytes, ctype: str) -> dict[str, tuple[bytes, bool]]:
    return otlp.split(otlp.decode(body, ctype))


def _gunzip(body: bytes, limit: int) -> bytes:
    """A gzip body, inflated no further than the size limit (a small bomb stays small)."""
    inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
    try:
        out = inflater.decompress(body, limit + 1)
    except zlib.error:
        raise Reject(400, "the gzip body is corrupt", "malformed") from None
    if len(out) > limit or inflater.unconsumed_tail:
        raise Reject(413, f"the inflated body is larger than {limit} bytes", "too_large")
    return out


__all__ = ["app"]
