"""`--state SOURCE` and `--state-before FILE` into a StateSource usable for a whole run.

SOURCE is told apart by its URL scheme or its content: `postgresql://` / `mysql://` URLs, a file
starting with the SQLite header, an adapter file (YAML or JSON with `adapter: sql | http`), or a
JSON sandbox. Nothing connects until the first read.

State found beside a call (a call folder's `state.json`) is evidence, opened with
`evidence=True`: data only, a JSON sandbox or a SQLite file. An adapter reaches a database or
the network and reads credentials from the environment, so it comes only from the command line
or the library's caller, never from a folder someone else can add to.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec

from hotato._io import read_bytes
from hotato._secrets import mask_url
from hotato.adapters.cache import CachedReader
from hotato.adapters.sandbox import SandboxReader, parse_sandbox, read_sandbox
from hotato.adapters.sql_connect import is_database_url, sql_target
from hotato.model.errors import InputError
from hotato.model.state import StateReader, StateSource

_SQLITE_HEADER = b"SQLite format 3\x00"


class OpenState(StateSource):
    """A StateSource holding connections: close it when the run ends (or use `with`)."""

    closers: list[Callable[[], None]] = []

    def close(self) -> None:
        while self.closers:
            self.closers.pop()()

    def __enter__(self) -> OpenState:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


def open_state(source: str, before: str | None = None, *, evidence: bool = False) -> OpenState:
    """Open `source` for one run. The after reader answers each identical question once.

    The before reader is `before` (a snapshot from `hotato state snapshot`, or any sandbox)
    when given, else the sandbox's own before side, else None. `evidence`: `source` was found
    beside a call, so it is opened as data only (see the module's docstring).
    """
    reader, sandbox_before, description = open_reader(source, evidence=evidence)
    before_reader = read_sandbox(before).as_before() if before is not None else sandbox_before
    after = CachedReader(reader)
    state = OpenState(after=after, description=description)
    state.closers.append(after.close)
    if before_reader is not None:
        state.before = CachedReader(before_reader)
        state.closers.append(state.before.close)
    return state


def open_reader(
    source: str, *, evidence: bool = False
) -> tuple[StateReader, SandboxReader | None, str]:
    """The uncached reader for SOURCE, a sandbox's before reader, and a description.
    `evidence`: data only, a JSON sandbox or a SQLite file (see the module's docstring)."""
    if evidence and "://" in source:
        raise _not_data(source)
    if "://" in source:
        scheme = source.split("://", 1)[0].lower()
        if scheme in ("http", "https"):
            raise InputError.one(
                "an HTTP API is read through an adapter file (base_url, a resource map and "
                "egress_opt_in: true); see docs/state.md",
                file=mask_url(source),
            )
        if not is_database_url(source):
            raise InputError.one(
                f"unsupported state source scheme {scheme!r}; give a JSON "
                "sandbox, a SQLite file, a postgresql:// or mysql:// URL, or "
                "an adapter file",
                file=mask_url(source),
            )
        from hotato.adapters.sql import SqlReader

        target = sql_target(source, file=mask_url(source))
        return SqlReader(target), None, f"{target.label} (read-only)"
    data = read_bytes(source, "state")
    if data.startswith(_SQLITE_HEADER):
        from hotato.adapters.sql import SqlReader
        from hotato.adapters.sql_connect import sqlite_target

        target = sqlite_target(source)
        return SqlReader(target), None, f"{target.label} (read-only)"
    return _open_document(source, data, evidence)


_DATA_ONLY = (
    "state beside a call is evidence, read as data only: a JSON sandbox or a SQLite file. "
    "An adapter (a database URL, `adapter: sql` or `adapter: http`) reaches a database or the "
    "network with credentials from the environment, so it is given only on the command line "
    "(--state FILE) or by the library's caller, never found in a call folder"
)


def _not_data(source: str) -> InputError:
    return InputError.one(_DATA_ONLY, file=mask_url(source) if "://" in source else source)


def is_adapter_document(value: Any) -> bool:
    """An adapter file names its adapter; a sandbox's values are rows, never a string."""
    return isinstance(value, dict) and isinstance(value.get("adapter"), str)


def _open_document(
    source: str, data: bytes, evidence: bool = False
) -> tuple[StateReader, SandboxReader | None, str]:
    if not data.strip():
        raise InputError.one("state file is empty", file=source)
    value: Any = None
    if source.endswith(".json") or data.lstrip()[:1] in (b"{", b"["):
        try:
            value = msgspec.json.decode(data)
        except msgspec.DecodeError as exc:
            if source.endswith(".json"):
                raise InputError.one(f"state file is not valid JSON ({exc})", file=source) from None
    if value is not None and not is_adapter_document(value):
        box = parse_sandbox(value, source)
        return box.after_reader(), box.before_reader(), f"sandbox {source}"
    if evidence:
        raise _not_data(source)
    return _open_adapter(source, data)


def _open_adapter(source: str, data: bytes) -> tuple[StateReader, SandboxReader | None, str]:
    from hotato._documents import parse_document
    from hotato.adapters.config import decode_adapter
    from hotato.adapters.registry import ADAPTERS

    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise InputError.one(
            "state file is neither SQLite, JSON nor YAML text", file=source
        ) from None
    doc = parse_document(text, source, "state adapter file", is_json=source.endswith(".json"))
    if not is_adapter_document(doc.value):
        raise InputError(
            [
                doc.problem(
                    "$",
                    "a YAML state file is an adapter file: it needs `adapter: sql` or "
                    "`adapter: http` (a sandbox is JSON)",
                )
            ]
        )
    config = decode_adapter(doc)
    reader, description = ADAPTERS[doc.value["adapter"]].open(config, Path(source).name)
    return reader, None, description
