"""A call's files, local or behind an fsspec URL: opened, digested, and handed to the grader as
local paths (a remote file is copied once into a scratch folder while it is hashed)."""

from __future__ import annotations

import hashlib
import posixpath
from pathlib import Path
from typing import IO

from hotato.model.errors import InputError

_CHUNK = 1 << 20


def open_url(url: str) -> IO[bytes]:
    """Open an fsspec URL for reading. The object-store back ends are optional extras: a
    missing one is refused with the package to install."""
    try:
        import fsspec
    except ImportError:
        raise InputError.one(
            "reading URLs needs the fleet extra: pip install 'hotato[fleet]'", file=url
        ) from None
    # an allowed host is the host read: an HTTP redirect elsewhere is not followed
    scheme = url.split("://", 1)[0].lower()
    options = {"allow_redirects": False} if scheme in ("http", "https") else {}
    try:
        handle: IO[bytes] = fsspec.open(url, "rb", **options).open()
    except ImportError as exc:
        raise InputError.one(
            f"no back end for this URL ({exc}); install the extra, e.g. 'hotato[s3]'", file=url
        ) from None
    except ValueError as exc:
        raise InputError.one(f"cannot open the URL ({exc})", file=url) from None
    return handle


def fetch(path: str, scratch: Path, what: str) -> tuple[str, str]:
    """The local path to grade `path` from, and the sha256 of its bytes. A missing or
    unreadable file is refused (the caller refuses that call, never the fleet)."""
    if "://" not in path:
        return path, _digest_local(path, what)
    name = posixpath.basename(path.split("?", 1)[0]) or what
    target = scratch / what / name
    target.parent.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256()
    try:
        with open_url(path) as src, target.open("wb") as dst:
            while chunk := src.read(_CHUNK):
                digest.update(chunk)
                dst.write(chunk)
    except FileNotFoundError:
        raise InputError.one(f"{what} file does not exist", file=path) from None
    except OSError as exc:
        raise InputError.one(f"cannot read {what}: {exc}", file=path) from None
    return str(target), digest.hexdigest()


def _digest_local(path: str, what: str) -> str:
    from hotato._io import digest_file

    return digest_file(path, what)[0]
