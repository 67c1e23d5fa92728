"""YAML or JSON documents with a line mark for every JSON path, and duplicate keys refused.

YAML goes through PyYAML's C composer (the node tree carries marks); JSON files are decoded
strictly as JSON, with marks taken from the same composer when it can read the text.
"""

from __future__ import annotations

import os
import re
from typing import Any

import msgspec
import yaml

from hotato._io import read_bytes
from hotato.model.errors import InputError, Problem

try:  # the C loader is the chosen one; the pure-Python loader is a fallback only
    from yaml import CSafeLoader as _Loader
except ImportError:  # pragma: no cover
    from yaml import SafeLoader as _Loader  # type: ignore[assignment]


class Document(msgspec.Struct):
    value: Any
    file: str
    marks: dict[str, tuple[int, int]] = {}  # path -> (line, col), 1-based

    def where(self, path: str) -> tuple[int | None, int | None]:
        """The mark of `path`, or of its nearest marked parent."""
        probe = path
        while probe:
            if probe in self.marks:
                return self.marks[probe]
            cut = max(probe.rfind("."), probe.rfind("["))
            if cut <= 0:
                break
            probe = probe[:cut]
        return self.marks.get("$", (None, None))

    def problem(self, path: str, message: str, kind: str | None = None) -> Problem:
        line, col = self.where(path)
        return Problem(message, file=self.file, line=line, col=col, path=path, kind=kind)


def load_document(path: str | os.PathLike[str], what: str) -> Document:
    name = str(path)
    data = read_bytes(path, what)
    try:
        text = data.removeprefix(b"\xef\xbb\xbf").decode()  # a UTF-8 BOM is not text
    except UnicodeDecodeError:
        raise InputError.one(f"{what} is not UTF-8 text", file=name) from None
    if "\x00" in text:
        raise InputError.one(f"{what} is binary, not YAML or JSON", file=name)
    try:
        return parse_document(text, name, what, is_json=name.endswith(".json"))
    except RecursionError:
        raise InputError.one(f"{what} is nested too deeply to read", file=name) from None


def parse_document(text: str, name: str, what: str, is_json: bool = False) -> Document:
    if is_json:
        import json  # YAML documents never need it

        try:
            value = json.loads(text, object_pairs_hook=_no_duplicates)
        except _DuplicateKey as dup:
            _locate_duplicate(text, name)  # raises with the line when the composer can read it
            raise InputError.one(f"duplicate key {dup.key!r}", file=name) from None
        except json.JSONDecodeError as exc:
            raise InputError.one(
                f"{what} is not valid JSON: {exc.msg}", file=name, line=exc.lineno, col=exc.colno
            ) from None
        marks: dict[str, tuple[int, int]] = {}
        try:
            node = yaml.compose(text, Loader=_Loader)
        except yaml.YAMLError:
            node = None
        if node is not None:
            _walk(node, "$", marks, name, build=False)
        return Document(value, name, marks)
    try:
        node = yaml.compose(text, Loader=_Loader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        line = mark.line + 1 if mark else None
        col = mark.column + 1 if mark else None
        msg = (exc.problem or str(exc)) + _escape_hint(exc, text)
        raise InputError.one(
            f"{what} is not valid YAML: {msg}", file=name, line=line, col=col
        ) from None
    except yaml.YAMLError as exc:
        raise InputError.one(f"{what} is not valid YAML: {exc}", file=name) from None
    if node is None:
        raise InputError.one(f"{what} is empty", file=name)
    marks = {}
    value = _walk(node, "$", marks, name, build=True)
    return Document(value, name, marks)


_BACKSLASHED = r"\\(.)"  # compiled (and cached) by `re` when a refusal first needs it


def _escape_hint(exc: yaml.MarkedYAMLError, text: str) -> str:
    """How to write a regex that a double-quoted YAML string refused (`"\\d{4}"`): YAML knows
    only its own escapes there, so every hotato 1.x file with a regex in double quotes meets
    this. Single quotes keep a backslash as it is; doubling it works inside double quotes."""
    if "unknown escape character" not in (exc.problem or ""):
        return ""
    mark = exc.problem_mark
    lines = text.splitlines()
    if mark is None or mark.line >= len(lines):
        return ""
    line = lines[mark.line]
    start = line.rfind('"', 0, mark.column)
    end = line.find('"', mark.column)
    if start < 0 or end < 0:
        return "; write the pattern in single quotes, or double each backslash"
    # What the writer meant: YAML's own `\\` and `\"` read as YAML reads them, any other
    # backslash kept for the pattern.
    meant = re.sub(
        _BACKSLASHED,
        lambda m: m.group(1) if m.group(1) in '\\"' else m.group(0),
        line[start + 1 : end],
    )
    single = "'" + meant.replace("'", "''") + "'"
    doubled = '"' + meant.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return f"; write the pattern in single quotes ({single}) or double each backslash ({doubled})"


def _locate_duplicate(text: str, name: str) -> None:
    """The same walk YAML files get finds the duplicate's line and JSON path."""
    try:
        node = yaml.compose(text, Loader=_Loader)
    except yaml.YAMLError:
        return
    if node is not None:
        _walk(node, "$", {}, name, build=False)


class _DuplicateKey(Exception):
    def __init__(self, key: str) -> None:
        self.key = key


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in pairs:
        if k in out:
            raise _DuplicateKey(k)
        out[k] = v
    return out


_constructor = yaml.constructor.SafeConstructor()


def _walk(
    node: yaml.Node,
    path: str,
    marks: dict[str, tuple[int, int]],
    name: str,
    build: bool,
    seen: set[int] | None = None,
) -> Any:
    """Build the value at `path`, recording marks. An alias (`*name`) is refused: it would let a
    small file expand without bound, or refer to itself."""
    seen = set() if seen is None else seen
    if isinstance(node, yaml.CollectionNode):
        if id(node) in seen:
            raise _refusal(
                node, "YAML aliases (*name) are not supported; write the value out", name, path
            )
        seen.add(id(node))
    marks[path] = (node.start_mark.line + 1, node.start_mark.column + 1)
    if isinstance(node, yaml.MappingNode):
        out: dict[Any, Any] = {}
        for key_node, value_node in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                raise _refusal(key_node, "YAML merge keys (<<) are not supported", name)
            key = _scalar(key_node, name, path) if build else key_node.value
            if not isinstance(key, str | int | float | bool) or key is None:
                raise _refusal(key_node, "mapping keys must be plain scalars", name, path)
            skey = str(key)
            if skey in out:
                raise _refusal(key_node, f"duplicate key {skey!r}", name, path)
            out[skey] = _walk(value_node, f"{path}.{skey}", marks, name, build, seen)
        return out
    if isinstance(node, yaml.SequenceNode):
        return [
            _walk(child, f"{path}[{i}]", marks, name, build, seen)
            for i, child in enumerate(node.value)
        ]
    return _scalar(node, name, path) if build else None


def _scalar(node: yaml.Node, name: str, path: str) -> Any:
    """A scalar as YAML 1.1 reads it, except that dates and times stay the text they were
    written as: a system of record compares `2024-01-01` as text, never as a date object."""
    if not isinstance(node, yaml.ScalarNode):
        raise _refusal(node, "mapping keys must be plain scalars", name, path)
    if node.tag == "tag:yaml.org,2002:timestamp":
        return node.value
    try:
        return _constructor.construct_object(node, deep=True)
    except yaml.YAMLError as exc:
        raise _refusal(node, f"cannot read value: {exc}", name, path) from None


def _refusal(node: yaml.Node, message: str, name: str, path: str | None = None) -> InputError:
    """A refusal located at a YAML node."""
    mark = node.start_mark
    return InputError.one(message, file=name, line=mark.line + 1, col=mark.column + 1, path=path)
