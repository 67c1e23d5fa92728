"""The ASGI application: `hotato.serve.app(config)` under uvicorn or any ASGI server."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import zlib
from collections.abc import AsyncIterator, Callable
from typing import Any

from hotato.serve import intake, otlp, pages, verify
from hotato.serve.config import ServeConfig
from hotato.serve.service import Busy, Service

log = logging.getLogger("hotato.serve")
RETRY_AFTER = "5"


class Reject(Exception):
    def __init__(self, status: int, message: str, reason: str) -> None:
        super().__init__(message)
        self.status, self.message, self.reason = status, message, reason


def app(config: ServeConfig) -> Any:
    """The receiver as a Starlette application. Refuses (InputError) a configuration that is
    not safe or not valid, before anything listens."""
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import HTMLResponse, JSONResponse, Response
    from starlette.routing import Route

    svc = Service(config)
    mapping = dict(config.variables)

    async def body_of(request: Request) -> bytes:
        limit = config.max_body
        declared = request.headers.get("content-length")
        if declared is not None and declared.isdigit() and int(declared) > limit:
            raise Reject(413, f"the body is larger than {limit} bytes", "too_large")
        chunks, size = [], 0
        import anyio

        try:
            with anyio.fail_after(config.body_timeout):
                async for chunk in request.stream():
                    size += len(chunk)
                    if size > limit:
                        raise Reject(413, f"the body is larger than {limit} bytes", "too_large")
                    chunks.append(chunk)
        except TimeoutError:
            raise Reject(408, "the body took too long to arrive", "slow") from None
        body = b"".join(chunks)
        encoding = request.headers.get("content-encoding", "identity").lower()
        if encoding == "gzip":
            body = _gunzip(body, limit)
        elif encoding not in ("identity", ""):
            raise Reject(415, f"Content-Encoding {encoding} is not supported", "encoding")
        return body

    def guarded(
        handler: Callable[[Request], Any], *, token: bool = True
    ) -> Callable[[Request], Any]:
        async def run(request: Request) -> Response:
            try:
                if token and not verify.token_ok(request.headers, svc.secrets.token):
                    raise Reject(401, "a bearer token is required", "unauthorized")
                result: Response = await handler(request)
                return result
            except Reject as r:
                svc.metrics.rejected.labels(r.reason).inc()
                return JSONResponse({"error": r.message}, status_code=r.status)
            except Busy:
                return JSONResponse(
                    {"error": "grading is behind; retry later"},
                    status_code=503,
                    headers={"Retry-After": RETRY_AFTER},
                )

        return run

    def refused(exc: intake.Refused) -> Reject:
        return Reject(400, str(exc), "malformed")

    async def ack(header: intake.Header | None, body: bytes) -> Response:
        assert header is not None
        status = await svc.accept(header, body)
        return JSONResponse({"status": status, "call_id": header.call_id})

    async def vendor(
        request: Request,
        source: str,
        secret: str | None,
        verified: Any,
        read: Any,
        off: str,
        unverified: str,
        what: str,
    ) -> Response:
        """A vendor's webhook: off away from loopback without its secret, verified when it has
        one, then read into a call to grade (or an event acknowledged and ignored)."""
        body = await body_of(request)
        if secret is None and not svc.loopback:
            raise Reject(403, off, "off")
        if secret is not None and not verified(request.headers, body, secret):
            raise Reject(401, unverified, "unverified")
        try:
            parsed = read(body, mapping)
        except intake.Refused as exc:
            raise refused(exc) from None
        if isinstance(parsed, intake.Ignored):
            svc.metrics.ignored.labels(source).inc()
            return JSONResponse({"status": "ignored", what: parsed.what})
        return await ack(parsed, body)

    async def vapi(request: Request) -> Response:
        return await vendor(
            request,
            "vapi",
            svc.secrets.vapi,
            verify.vapi_ok,
            intake.vapi,
            "the Vapi endpoint is off: start with --vapi-secret-env",
            "the Vapi credential or signature does not verify",
            "type",
        )

    async def retell(request: Request) -> Response:
        return await vendor(
            request,
            "retell",
            svc.secrets.retell,
            verify.retell_ok,
            intake.retell,
            "the Retell endpoint is off: start with --retell-key-env",
            "x-retell-signature does not verify",
            "event",
        )

    async def calls(request: Request) -> Response:
        body = await body_of(request)
        try:
            header, _ = intake.native(body, mapping)
        except intake.Refused as exc:
            raise refused(exc) from None
        return await ack(header, body)

    async def traces(request: Request) -> Response:
        body = await body_of(request)
        ctype = request.headers.get("content-type", "").lower()
        try:  # off the event loop: a large export costs milliseconds to decode and split
            parts = await asyncio.to_thread(_otlp_parts, body, ctype)
        except intake.Refused as exc:
            raise refused(exc) from None
        await svc.gather(parts)
        if "json" in ctype:
            return JSONResponse({})
        return Response(b"", media_type="application/x-protobuf")

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

    routes = [
        Route("/vapi", guarded(vapi, token=False), methods=["POST"]),
        Route("/retell", guarded(retell, token=False), methods=["POST"]),
        Route("/calls", guarded(calls), methods=["POST"]),
        Route("/v1/traces", guarded(traces), methods=["POST"]),
        Route("/metrics", guarded(metrics), methods=["GET"]),
        Route("/healthz", guarded(healthz, token=False), methods=["GET"]),
        Route("/", guarded(overview), methods=["GET"]),
        Route("/calls/{call_id:path}", guarded(call_page), methods=["GET"]),
    ]
    application = Starlette(routes=routes, lifespan=lifespan)
    application.state.service = svc
    return application


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
