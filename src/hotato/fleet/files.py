"""A call's files, local or behind an fsspec URL: opened, digested, and handed to the grader as
local paths (a remote file is copied once into a scratch folder while it is hashed).

Every read is bounded: a file larger than the call's size limit, or still being read when the
call's deadline passes, refuses that call. A local path that is not a regular file (a device
such as /dev/zero, a pipe, a socket) is refused before it is opened, since reading one may
never end."""

from __future__ import annotations

import hashlib
import os
import posixpath
import stat
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from hotato.model.errors import InputError

_CHUNK = 1 << 20


@dataclass(frozen=True)
class Limits:
    """What one call may cost: the bytes of each of its files, and the seconds it may take."""

    max_bytes: int = 256 << 20
    seconds: float = 300.0


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


def fetch(path: str, scratch: Path, what: str, limits: Limits, until: float) -> tuple[str, str]:
    """The local path to grade `path` from, and the sha256 of its bytes. A missing, unreadable,
    oversized or endless file is refused (the caller refuses that call, never the fleet).
    `until` is the call's deadline on time.monotonic()."""
    if "://" not in path:
        _check_regular(path, what, limits)
        try:
            with open(path, "rb") as src:
                return path, _drain(src, None, path, what, limits, until)
        except OSError as exc:
            raise InputError.one(f"cannot read {what}: {exc.strerror}", file=path) from None
    name = posixpath.basename(path.split("?", 1)[0]) or what
    target = scratch / what / name
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        with open_url(path) as src, target.open("wb") as dst:
            digest = _drain(src, dst, path, what, limits, until)
    except FileNotFoundError:
        raise InputError.one(f"{what} file does not exist", file=path) from None
    except OSError as exc:
        raise InputError.one(f"cannot read {what}: {exc}", file=path) from None
    return str(target), digest


def _check_regular(path: str, what: str, limits: Limits) -> None:
    from hotato._io import check_readable

    check_readable(path, what)
    try:
        mode = os.stat(path)
    except OSError as exc:
        raise InputError.one(f"cannot read {what}: {exc.strerror}", file=path) from None
    if not stat.S_ISREG(mode.st_mode):
        raise InputError.one(
            f"{what} is not a regular file (a device, pipe or socket); reading it may never end",
            file=path,
        )
    if mode.st_size > limits.max_bytes:
        raise InputError.one(_too_big(what, limits), file=path)


def _drain(
    src: IO[bytes], dst: IO[bytes] | None, path: str, what: str, limits: Limits, until: float
) -> str:
    """Read `src` to its end (copying it to `dst`), within the size limit and the deadline;
    the sha256 of its bytes."""
    digest = hashlib.sha256()
    read = 0
    while chunk := src.read(_CHUNK):
        read += len(chunk)
        if read > limits.max_bytes:
            raise InputError.one(_too_big(what, limits), file=path)
        if time.monotonic() > until:
            raise InputError.one(
                f"{what} was still being read when the call's deadline "
                f"({limits.seconds:g} s, --call-timeout) passed",
                file=path,
            )
        digest.update(chunk)
        if dst is not None:
            dst.write(chunk)
    return digest.hexdigest()


def _too_big(what: str, limits: Limits) -> str:
    return f"{what} is larger than the call's limit of {limits.max_bytes} bytes (--max-file-mib)"
