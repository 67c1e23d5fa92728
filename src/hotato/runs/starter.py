"""Starter assertions files from a trace (`assert init --from-trace`), names quoted safely."""

from __future__ import annotations

import json
import re
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
    if plain and value.isascii() and yaml.safe_load(value) == value:
        return value
    # JSON quoting, then an escape for what YAML would not keep as it is: characters outside
    # its printable set, and the line breaks YAML knows beyond \n (NEL, LS, PS), which it folds.
    return _UNSAFE.sub(_yaml_escape, json.dumps(value, ensure_ascii=False))


_UNSAFE = re.compile("[\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff\ud800-\udfff]")


def _yaml_escape(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


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
    _write(header + body, out, force)
    return Starter(tools, header + body, out)


CLAIMS_HEADER = (
    "# STARTER written by `hotato assert init --from-transcript {transcript}{trace}`.\n"
    "# One `claims` assertion per claim type the agent's turns hold{backed}.\n"
    "# Edit it: this is a starting point, not a claim that these are the right assertions.\n"
)


@dataclass(frozen=True)
class ClaimsStarter:
    """A starter assertions file drafted from a transcript's claims."""

    text: str
    written: str | None
    assertion_count: int


def write_claims_starter(
    transcript_path: str,
    trace_path: str | None = None,
    out: str | None = None,
    force: bool = False,
    trace_format: str = "auto",
    packs: list[str] | None = None,
) -> ClaimsStarter:
    """One `claims` assertion per claim type found in the agent's turns; with a trace, one
    tool_call (tool_error, for a claimed failure) per claim the trace backs. Refused (exit 2)
    when no claim of a completed or failed action is found."""
    from hotato.claims import check_claims, load_packs
    from hotato.claims.draft import draft
    from hotato.runs.evidence import sources_of

    sources = sources_of(trace_path, transcript_path, None, None, trace_format)
    assert sources.transcript is not None
    pack_set = load_packs(packs or [])
    items = draft(
        check_claims(sources.transcript, sources.trace, pack_set), pack_set, sources.trace
    )
    if not items:
        raise InputError.one(
            "the agent's turns hold no claim of a completed or failed action to start from",
            file=transcript_path,
        )
    header = CLAIMS_HEADER.format(
        transcript=transcript_path,
        trace=f" --from-trace {trace_path}" if trace_path else "",
        backed=", plus one tool_call per claim the trace backs" if trace_path else "",
    )
    body = yaml.safe_dump(
        {"version": 1, "assertions": items}, sort_keys=False, allow_unicode=True, width=100
    )
    _write(header + body, out, force)
    return ClaimsStarter(header + body, out, len(items))


def _write(text: str, out: str | None, force: bool) -> None:
    if out is None:
        return
    target = Path(out)
    if target.exists() and not force:
        raise InputError.one("refusing to overwrite an existing file (use --force)", file=out)
    if target.is_dir():
        raise InputError.one("--out is a folder, expected a file", file=out)
    write_atomic(target, text.encode())
