"""Who sent a body: each vendor's documented check, and the bearer token for the rest.

Vapi authenticates its server messages with a credential: the `x-vapi-secret` header (the
server secret), a bearer token in `Authorization`, or an HMAC-SHA256 of the body in
`x-vapi-signature` (hex, optionally `sha256=`-prefixed). Retell signs each webhook with the
account's API key in `x-retell-signature`, checked with the retell-sdk's own verifier (it also
refuses a signature older than five minutes). Every comparison is constant-time."""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Mapping


def _same(given: str | None, expected: str) -> bool:
    return given is not None and hmac.compare_digest(given.encode(), expected.encode())


def bearer(headers: Mapping[str, str]) -> str | None:
    value = headers.get("authorization", "")
    scheme, _, token = value.partition(" ")
    return token.strip() if scheme.lower() == "bearer" and token.strip() else None


def token_ok(headers: Mapping[str, str], token: str | None) -> bool:
    """No token configured (loopback): open. Otherwise the bearer token must match."""
    return token is None or _same(bearer(headers), token)


def vapi_ok(headers: Mapping[str, str], body: bytes, secret: str) -> bool:
    if _same(headers.get("x-vapi-secret"), secret) or _same(bearer(headers), secret):
        return True
    signature = headers.get("x-vapi-signature")
    if signature is None:
        return False
    expected = hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()
    return _same(signature.strip().removeprefix("sha256="), expected)


def retell_ok(headers: Mapping[str, str], body: bytes, api_key: str) -> bool:
    signature = headers.get("x-retell-signature")
    if not signature:
        return False
    from retell.lib.webhook_auth import verify

    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return bool(verify(text, api_key, signature))
