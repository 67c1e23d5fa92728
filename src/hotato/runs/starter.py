"""Starter assertions files from a trace (`assert init --from-trace`), names quoted safely."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import yaml

from hotato._io import write_atomic
from hotato.model.errors import InputError

HEADER = (
    "# STARTER written by `hotato assert init --from-trace {trace}`.\n"
    "# One tool_call per distinct tool the trace saw{order}. Edit it: this is a starting point,\n"
    "# not a claim that these are the right assertions for the call.\n"
)


def yaml_scalar(value: str) -> str:
    """A YAML scalar that reads back as exactly this string: bare when that is safe, else a
    JSON-quoted string (JSON strings are valid YAML)."""
    plain = value and all(c.isalnum() or c in "_-." for c in value) and value[0].isalpha()
    if plain and yaml.safe_load(value) == value:
        return value
    return json.dumps(value, ensure_ascii=False)


def _slug(name: str) -> str:
    slug = "".join(c if c.isalnum() or c in "-_" else "-" for c in name).strip("-")
    return slug or "tool"


def starter_yaml(tools: list[str]) -> str:
    lines = ["version: 1", "assertions:"]
    used: set[str] = set()
    for name in tools:
        ident = f"{_slug(name)}-called"
        n = 2
        while ident in used:
            ident, n = f"{_slug(name)}-called-{n}", n + 1
        used.add(ident)
        lines += [
            f"  - id: {yaml_scalar(ident)}",
            "    kind: tool_call",
            f"    name: {yaml_scalar(name)}",
        ]
    if len(tools) >= 2:
        lines += [
            "  - id: tool-call-order",
            "    kind: tool_call",
            "    require_order: [" + ", ".join(yaml_scalar(t) for t in tools) + "]",
        ]
    return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class Starter:
    """A starter assertions file made from a trace: its text and the tools it names."""

    tools: list[str]
    text: str  # header comment + body
    written: str | None  # the file it was written to, or None

    @property
    def assertion_count(self) -> int:
        return len(self.tools) + (1 if len(self.tools) >= 2 else 0)


def write_starter(
    trace_path: str, out: str | None = None, force: bool = False, trace_format: str = "auto"
) -> Starter:
    """One tool_call assertion per distinct tool the trace saw, plus their order once two or
    more were seen; written to `out` when given (never over an existing file unless `force`)."""
    from hotato.engine.sources import open_trace

    trace = open_trace(trace_path, trace_format)
    tools = list(dict.fromkeys(s.name for s in trace.tool_order if s.name))
    if not tools:
        raise InputError.one("the trace holds no tool_call spans to start from", file=trace_path)
    body = starter_yaml(tools)
    header = HEADER.format(trace=trace_path, order=", plus their order" if len(tools) >= 2 else "")
    if out is not None:
        target = Path(out)
        if target.exists() and not force:
            raise InputError.one("refusing to overwrite an existing file (use --force)", file=out)
        if target.is_dir():
            raise InputError.one("--out is a folder, expected a file", file=out)
        write_atomic(target, (header + body).encode())
    return Starter(tools, header + body, out)
