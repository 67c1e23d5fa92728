"""Writing `hotato.voice_trace.v1` JSONL and transcript JSON, atomically.

Every output goes to a temporary file beside its target and is renamed into place only after all
of them were written in full: a failure leaves no partial file and no half-updated pair.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import IO

import msgspec

from hotato.evidence.ingest._emit import Emitter
from hotato.evidence.ingest._pipeline import meta, transcript
from hotato.model.errors import InputError

_encode = msgspec.json.Encoder().encode


def check_target(path: str | os.PathLike[str], what: str) -> Path:
    p = Path(path)
    if p.is_dir():
        raise InputError.one(f"{what} is a folder, expected a file path", file=str(path))
    parent = p.parent if str(p.parent) else Path(".")
    if not parent.is_dir():
        raise InputError.one(f"the folder for {what} does not exist", file=str(path))
    return p


def write_trace(em: Emitter, handle: IO[bytes]) -> None:
    handle.write(_encode(meta(em)))
    handle.write(b"\n")
    for line in em.col.lines():
        handle.write(line)
        handle.write(b"\n")


def write_transcript(em: Emitter, handle: IO[bytes]) -> None:
    handle.write(msgspec.json.format(_encode(transcript(em)), indent=2))
    handle.write(b"\n")


def write_outputs(targets: list[tuple[Path, Callable[[IO[bytes]], None]]]) -> None:
    done: list[tuple[str, Path]] = []
    try:
        for target, write in targets:
            fd, tmp = tempfile.mkstemp(
                prefix=f".{target.name}.",
                suffix=".tmp",
                dir=target.parent if str(target.parent) else ".",
            )
            done.append((tmp, target))
            with os.fdopen(fd, "wb") as handle:
                write(handle)
                handle.flush()
                os.fsync(handle.fileno())
        for tmp, target in done:
            os.replace(tmp, target)
        done.clear()
    except OSError as exc:
        raise InputError.one(
            f"cannot write output: {exc.strerror or exc}", file=str(exc.filename or "")
        ) from exc
    finally:
        for tmp, _ in done:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
