"""Credentials: checked when read, masked from parsed URLs, never echoed.

A credential value comes from an environment variable. It is checked when the file naming it is
opened, and refused by the variable's name (never its value) when it could not travel intact in a
header: a control character (a mounted secret's trailing newline) or a non-ASCII character.
URLs shown to users are masked from their parsed parts, never with a pattern; a URL whose query
carries a credential key is refused outright.
"""

from __future__ import annotations

import urllib.parse

MASK = "***"

# Query keys that name a credential, compared lower-case with '-' and '_' removed.
_CREDENTIAL_KEYS = frozenset(
    {
        "password", "passwd", "pwd", "pass", "sslpassword", "secret", "clientsecret",
        "token", "accesstoken", "authtoken", "apikey", "apitoken", "key", "auth",
        "authorization", "signature", "sig", "credential", "credentials", "sessiontoken",
    }
)  # fmt: skip


def value_problem(variable: str, value: str) -> str | None:
    """Why the credential read from `variable` cannot be used, naming the variable only."""
    if any(ord(c) < 0x20 or ord(c) == 0x7F for c in value):
        trailing = value.rstrip("\r\n") != value
        what = "ends in a line break" if trailing else "holds a control character"
        return (
            f"environment variable {variable} {what}; a credential must be one line "
            "(strip the newline a mounted secret file adds)"
        )
    if not value.isascii():
        return (
            f"environment variable {variable} holds a non-ASCII character; a credential sent "
            "in a header must be ASCII"
        )
    return None


def credential_keys(query: str) -> list[str]:
    """The keys of a URL query string that name a credential."""
    keys = [k for k, _ in urllib.parse.parse_qsl(query, keep_blank_values=True)]
    return sorted({k for k in keys if is_credential_key(k)})


def is_credential_key(key: str) -> bool:
    return key.lower().replace("-", "").replace("_", "") in _CREDENTIAL_KEYS


def mask_url(url: str) -> str:
    """`url` as it may be shown: the password and every query value masked, from the parsed
    URL. Text that does not parse as a URL is shown only up to its scheme."""
    try:
        parts = urllib.parse.urlsplit(url)
        host = parts.hostname or ""
        port = parts.port
    except ValueError:
        return _opaque(url)
    if "@" in parts.path or "@" in parts.query:  # a password holding '/' or '?' split the URL
        return _opaque(url)
    netloc = host if ":" not in host else f"[{host}]"
    if port is not None:
        netloc += f":{port}"
    if parts.username is not None:
        user = urllib.parse.quote(urllib.parse.unquote(parts.username), safe="")
        netloc = f"{user}{':' + MASK if parts.password is not None else ''}@{netloc}"
    elif parts.password is not None:
        netloc = f":{MASK}@{netloc}"
    query = "&".join(
        f"{k}={MASK}" for k, _ in urllib.parse.parse_qsl(parts.query, keep_blank_values=True)
    )
    return urllib.parse.urlunsplit((parts.scheme, netloc, parts.path, query, ""))


def _opaque(url: str) -> str:
    return url.split("://", 1)[0] + "://" + MASK if "://" in url else MASK
