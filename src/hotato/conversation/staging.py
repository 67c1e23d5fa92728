"""A call's inputs read once: what is graded is what is bound.

Each input file of a call (transcript, trace and its signature, audio, timing) is copied once into a
private folder, hashed while copied. Trace authentication, grading, the conversation id, label
matching and the artifact then all read those copies, so a pipe is graded and bound with the
same bytes, and a file replaced after grading (a signed trace swapped for another) can never end
up in an artifact that verifies. Refusals still name the file the user gave.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec

from hotato.conversation.calls import CallFiles
from hotato.model.errors import InputError

_STAGED = ("transcript", "trace", "audio", "timing")
_SIGNATURE_SUFFIX = ".dsse.json"  # a signed trace's envelope sits beside it
_CHUNK = 1 << 20


@contextlib.contextmanager
def staged(files: CallFiles) -> Iterator[CallFiles]:
    """`files` with each input replaced by a private copy read once, for the `with` block.

    An InputError raised inside names the user's files, never the copies."""
    folder = Path(tempfile.mkdtemp(prefix="hotato-call-"))
    shown: dict[str, str] = {}
    try:
        copies: dict[str, Any] = {}  # the staged paths, by CallFiles field
        for name in _STAGED:
            source = getattr(files, name)
            if source is None:
                continue
            dest = folder / name / Path(source).name
            dest.parent.mkdir()
            _copy(source, dest, name)
            copies[name] = str(dest)
            shown[str(dest)] = source
            if name == "trace" and os.path.lexists(source + _SIGNATURE_SUFFIX):
                signature = Path(str(dest) + _SIGNATURE_SUFFIX)
                _copy(source + _SIGNATURE_SUFFIX, signature, "trace signature")
                shown[str(signature)] = source + _SIGNATURE_SUFFIX
        try:
            yield dataclasses.replace(files, **copies)
        except InputError as exc:
            raise _renamed(exc, shown) from exc
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _copy(source: str, dest: Path, what: str) -> None:
    """Copy once (a pipe is read to its end here, and only here)."""
    try:
        with open(source, "rb") as src, open(dest, "xb") as out:
            while block := src.read(_CHUNK):
                out.write(block)
    except FileNotFoundError:
        raise InputError.one(f"{what} file does not exist", file=source) from None
    except IsADirectoryError:
        raise InputError.one(f"{what} is a folder, expected a file", file=source) from None
    except OSError as exc:
        raise InputError.one(f"cannot read {what}: {exc.strerror}", file=source) from None


def _renamed(exc: InputError, shown: dict[str, str]) -> InputError:
    """The same refusal, naming the user's files instead of the copies."""

    def named(text: str) -> str:
        for copy, original in shown.items():
            text = text.replace(copy, original)
        return text

    exc.problems = [
        msgspec.structs.replace(
            p, file=named(p.file) if p.file else p.file, message=named(p.message)
        )
        for p in exc.problems
    ]
    return exc
