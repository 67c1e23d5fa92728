"""State adapters: one module per adapter, one line each in ADAPTERS.

An adapter file names its adapter (`adapter: sql`); the row of that name says how the file
decodes (a msgspec Struct tagged `adapter: NAME`), how each entry of its `resources` map decodes
and is checked, how the decoded file becomes a configuration (every problem collected, named by
JSON path), and how a configuration opens a reader. A team's own system of record is installed
with pip and registered in the `hotato.state_adapters` entry-point group (see CONTRIBUTING.md).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import msgspec

from hotato.model.registry import Registry

if TYPE_CHECKING:
    from hotato._documents import Document
    from hotato.model.errors import Problem
    from hotato.model.state import StateReader


class StateAdapter(msgspec.Struct, frozen=True):
    file: type[Any]  # the adapter file, a Struct tagged `adapter: NAME` (tag_field="adapter")
    resource: type[Any]  # one entry of its `resources` map
    # (JSON path suffix, problem or None) for one decoded resource
    resource_problems: Callable[[Any], list[tuple[str, str | None]]]
    # (decoded file, decoded resources or None, document, problems) -> configuration, or None
    configure: Callable[[Any, dict[str, Any] | None, Document, list[Problem]], Any]
    # (configuration, the file's name) -> a reader and a description of it
    open: Callable[[Any, str], tuple[StateReader, str]]


ADAPTERS: Registry[StateAdapter] = Registry(
    "state adapter",
    StateAdapter,
    {
        "sql": "hotato.adapters.sql_adapter:SQL",
        "http": "hotato.adapters.http_adapter:HTTP",
    },
    group="hotato.state_adapters",
)

__all__ = ["ADAPTERS", "StateAdapter"]
