"""One registry shape for every extension point: a name -> an object loaded on first use.

Kinds, trace formats, state adapters, claim packs, assertion packs, pull sources and output
formats each keep one `Registry`. Its built-in entries are `"module:attribute"` references (or a
zero-argument loader for data files), so listing names imports nothing; an entry is imported the
first time it is asked for and checked against the registry's type, which is what a caller gets
back. Third-party packages add entries through an entry-point group (`hotato.kinds`,
`hotato.state_adapters`, `hotato.renderers`, ...; see CONTRIBUTING.md): the installed
distributions are read once, the first time a name is listed or is not a built-in. A built-in
name cannot be replaced by a plug-in.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, Mapping
from typing import Any, Generic, TypeVar

T = TypeVar("T")

# a "module:attribute" reference, or a loader called with no arguments
Entry = str | Callable[[], Any]


class Registry(Mapping[str, T], Generic[T]):
    """`what` names an entry in messages ("output format"); `kind` is the type every entry
    has (checked when it loads); `group` is the entry-point group third parties register in."""

    def __init__(
        self,
        what: str,
        kind: type[T],
        builtins: Mapping[str, Entry],
        *,
        group: str | None = None,
        check: Callable[[str, T], bool] | None = None,
    ) -> None:
        self.what = what
        self.kind = kind
        self.group = group
        self._builtins = dict(builtins)
        self._check = check
        self._plugins: dict[str, Any] | None = None  # name -> EntryPoint, read once
        self._loaded: dict[str, T] = {}

    @property
    def builtin_names(self) -> tuple[str, ...]:
        return tuple(self._builtins)

    def names(self) -> tuple[str, ...]:
        """Every name, built-ins first in table order, then plug-ins sorted; imports nothing."""
        return (*self._builtins, *sorted(self._entry_points()))

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def __len__(self) -> int:
        return len(self.names())

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and (name in self._builtins or name in self._entry_points())

    def __getitem__(self, name: str) -> T:
        found = self._loaded.get(name)
        if found is not None:
            return found
        entry: Any = self._builtins.get(name)
        if entry is not None:
            value = _resolve(entry)
        else:
            point = self._entry_points().get(name)
            if point is None:
                raise KeyError(name)
            value = point.load()
        if not isinstance(value, self.kind) or (self._check and not self._check(name, value)):
            raise TypeError(f"{self.what} {name!r} resolves to {value!r}, not a {self.kind}")
        self._loaded[name] = value
        return value

    def require(self, name: str) -> T:
        """The entry, or a usage error naming the choices (with a did-you-mean)."""
        if name not in self:
            from hotato.model.errors import Problem, UsageError

            raise UsageError([Problem(self.unknown(name))])
        return self[name]

    def unknown(self, name: str) -> str:
        import difflib  # only for a refusal

        names = self.names()
        close = difflib.get_close_matches(name, names, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        return f"unknown {self.what} {name!r}{hint}; one of: {', '.join(names)}"

    def refresh(self) -> None:
        """Read the installed plug-ins again on next use (after a package is installed)."""
        for name in self._plugins or ():
            self._loaded.pop(name, None)
        self._plugins = None

    def _entry_points(self) -> dict[str, Any]:
        if self._plugins is None:
            self._plugins = {}
            if self.group is not None:
                from importlib.metadata import entry_points

                for point in entry_points(group=self.group):
                    if point.name not in self._builtins:
                        self._plugins.setdefault(point.name, point)
        return self._plugins


def _resolve(entry: Entry) -> Any:
    if callable(entry):
        return entry()
    module, _, attr = entry.partition(":")
    return getattr(importlib.import_module(module), attr)


__all__ = ["Entry", "Registry"]
