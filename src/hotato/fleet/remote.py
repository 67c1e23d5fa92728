"""Which remote evidence a manifest may name: only the schemes and hosts the user allows.

A manifest is data, often written by someone else; a row whose `trace` is
`http://169.254.169.254/...` would have hotato request any host it names. So a file behind a
URL is read only when its scheme and host are the manifest's own (the user named that place
on the command line) or one `--allow-remote SCHEME://HOST` names. Plain `http://` is never
implied: it needs its own `--allow-remote http://HOST`. Local paths and `file://` stay local.
Chained fsspec URLs (`zip::http://...`, `simplecache::s3://...`) are refused: each link could
name a place of its own.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from hotato._secrets import mask_url
from hotato.model.errors import InputError

Origin = tuple[str, str]  # (scheme, host), lower case
_LOCAL = ("file", "local")


def _origin(url: str) -> Origin | None:
    try:
        parts = urlsplit(url)
        host = (parts.hostname or "").lower()
        port = parts.port
    except ValueError:
        return None
    if not parts.scheme or not host:
        return None
    return parts.scheme.lower(), host + (f":{port}" if port is not None else "")


def allowed_origins(allow: tuple[str, ...], manifest: str) -> frozenset[Origin]:
    """The places files may be read from: each `--allow-remote` (refused unless it is
    SCHEME://HOST), and the manifest's own place when it is itself a URL."""
    found: set[Origin] = set()
    for value in allow:
        origin = _origin(value) if "://" in value and "::" not in value else None
        if origin is None or urlsplit(value).path not in ("", "/"):
            raise InputError.one(
                f"--allow-remote {mask_url(value)!r} is not SCHEME://HOST "
                "(for example s3://my-bucket or https://recordings.example.com)"
            )
        found.add(origin)
    if "://" in manifest and "::" not in manifest:
        own = _origin(manifest)
        if own is not None:
            found.add(own)
    return frozenset(found)


def remote_problem(url: str, allowed: frozenset[Origin]) -> str | None:
    """Why the file at `url` may not be read, or None (local, or from an allowed place)."""
    if "://" not in url:
        return None
    if "::" in url:
        return "a chained URL (`::`) is not read from a manifest"
    scheme = url.split("://", 1)[0].lower()
    if scheme in _LOCAL:
        return None
    origin = _origin(url)
    if origin is None:
        return "not a URL hotato can read (SCHEME://HOST/PATH)"
    if origin in allowed:
        return None
    return (
        f"remote evidence is read only from places --allow-remote names; add "
        f"--allow-remote {origin[0]}://{origin[1]} to read from there"
        + (" (plain http: the answer travels unencrypted)" if origin[0] == "http" else "")
    )
