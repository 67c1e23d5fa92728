"""Claim packs: versioned YAML files of RE2 patterns saying how a claim type is recognised and
what backs it. Bundled packs are listed in one table, `BUNDLED`; a team passes its own by path.

A pack file holds `name`, `version` (semver), `description`, optional `define` (named fragments
used as {{name}} in any pattern), optional `cues` (polarity groups, tried in order), optional
`read_only_tools`, and `types`. A pack without `cues` uses the core pack's. See docs/claims.md.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any, Literal

import msgspec
import re2

from hotato._documents import Document, load_document
from hotato.model.errors import InputError, Problem, UsageError
from hotato.model.registry import Registry

PACK_DIR = Path(__file__).resolve().parent / "packs"
# The bundled claim packs: name -> file in hotato/claims/packs. Adding a pack adds one line.
# name -> the pack file; a team's own packs come from the `hotato.claim_packs` entry-point group
# (an attribute holding the file's Path) or are passed by path
BUNDLED: Registry[Path] = Registry(
    "claim pack", Path, {"core": lambda: PACK_DIR / "core.yaml"}, group="hotato.claim_packs"
)
DEFAULT_PACKS = ("core",)
POLARITIES = ("done", "failed", "promised", "negated")
ENTITY_KINDS = ("amount", "date", "time", "count", "id")

Polarity = Literal["done", "failed", "promised", "negated"]
_SEMVER = re.compile(r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-[0-9A-Za-z.\-]+)?$")
_FRAGMENT = re.compile(r"\{\{(\w+)\}\}")


class StateCheck(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """Read the system of record after a claim: `filters` values may name the backing span's
    argument (`$arg.order_id`) or a stated entity (`$entity.amount`)."""

    resource: str
    filters: dict[str, Any] = {}
    expect: dict[str, Any] = {}


class CueSpec(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    polarity: Polarity
    patterns: list[str]


class TypeSpec(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    description: str
    trigger: list[str]
    tools: str | None = None
    spans: list[str] = []
    overrides: list[str] = []
    agree: dict[str, str] = {}
    names: str | None = None
    done: list[str] = []
    failed: list[str] = []
    promised: list[str] = []
    state: StateCheck | None = None
    after_claim: bool = False  # the backing span may follow the claim (a transfer announced)
    also: list[str] = []  # types whose tools back this one too (a booking also takes payment)
    params: str | None = None  # a mutating tool taking an argument named so backs it too
    align: bool = False  # backed by the catalog tool the claim's words align with


class PackSpec(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    name: str
    version: str
    description: str
    types: dict[str, TypeSpec]
    define: dict[str, str] = {}
    cues: list[CueSpec] = []
    read_only_tools: str | None = None
    confirm: str | None = None
    bare: str | None = None
    agree: dict[str, str] = {}  # for every type of the pack, where its own `agree` is silent


@dataclass(frozen=True)
class ClaimType:
    """One claim type, compiled."""

    name: str
    pack: str
    description: str
    triggers: tuple[Any, ...]
    extra: dict[str, tuple[Any, ...]]  # polarity -> the type's own cue patterns
    tools: Any | None
    spans: frozenset[str]
    overrides: frozenset[str]
    agree: dict[str, Any]  # entity kind -> argument-name pattern
    names: Any | None
    state: StateCheck | None
    after_claim: bool
    also: tuple[str, ...] = ()
    params: Any | None = None
    align: bool = False


@dataclass(frozen=True)
class Cue:
    polarity: str
    patterns: tuple[Any, ...]


@dataclass(frozen=True)
class PackInfo:
    name: str
    version: str
    description: str
    path: str
    sha256: str
    types: tuple[str, ...]


@dataclass(frozen=True)
class Pack:
    info: PackInfo
    types: tuple[ClaimType, ...]
    cues: tuple[Cue, ...]
    read_only: Any | None
    confirm: Any | None
    bare: Any | None


def pattern_set(patterns: Sequence[Any]) -> Any:
    """One RE2 set searching for every pattern at once: `Match(text)` gives the indices found."""
    options = re2.Options()
    options.case_sensitive = False
    options.log_errors = False
    found = re2.Set.SearchSet(options)
    for p in patterns:
        found.Add(p.pattern)
    found.Compile()
    return found


@dataclass(frozen=True)
class PackSet:
    """The packs of one run, merged: types in order (a later pack's type replaces an earlier
    one of the same name), the first pack's cues unless a later one brings its own."""

    packs: tuple[Pack, ...]
    types: tuple[ClaimType, ...]
    cues: tuple[Cue, ...]
    read_only: Any | None
    confirm: Any | None
    bare: Any | None

    @cached_property
    def by_name(self) -> dict[str, ClaimType]:
        return {t.name: t for t in self.types}

    @cached_property
    def type_index(self) -> tuple[Any, list[tuple[int, str | None]]]:
        """Every type's triggers and own cue patterns in one set: index -> (type position,
        None for a trigger or the cue's polarity)."""
        patterns: list[Any] = []
        owners: list[tuple[int, str | None]] = []
        for i, t in enumerate(self.types):
            for p in t.triggers:
                patterns.append(p)
                owners.append((i, None))
            for pol, extra in t.extra.items():
                for p in extra:
                    patterns.append(p)
                    owners.append((i, pol))
        return pattern_set(patterns), owners

    @cached_property
    def cue_index(self) -> tuple[Any, list[int]]:
        """Every cue pattern in one set: index -> the position of its group in `cues`."""
        patterns = [p for cue in self.cues for p in cue.patterns]
        groups = [g for g, cue in enumerate(self.cues) for _ in cue.patterns]
        return pattern_set(patterns), groups


def compile_re2(pattern: str) -> Any:
    options = re2.Options()
    options.case_sensitive = False
    options.log_errors = False
    return re2.compile(pattern.encode("utf-8"), options)


def is_path(name: str) -> bool:
    return "/" in name or name.endswith((".yaml", ".yml", ".json"))


def bundled_names() -> list[str]:
    return sorted(BUNDLED.names())


@lru_cache(maxsize=32)
def load_pack(name_or_path: str) -> Pack:
    """A bundled pack by name or a pack file by path; every problem located, exit 2."""
    if is_path(name_or_path):
        path = Path(name_or_path)
    elif name_or_path in BUNDLED:
        path = BUNDLED[name_or_path]
    else:
        names = ", ".join(bundled_names())
        raise UsageError([Problem(f"unknown claim pack {name_or_path!r} (bundled: {names})")])
    doc = load_document(path, "claim pack")
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    return _compile(doc, digest)


_AT = re.compile(r" - at `(\$[^`]*)`$")


def _decode(doc: Document) -> PackSpec:
    try:
        return msgspec.convert(doc.value, PackSpec)
    except msgspec.ValidationError as exc:
        text = str(exc)
        m = _AT.search(text)
        where = m.group(1) if m else "$"
        raise InputError([doc.problem(where, _AT.sub("", text))]) from None


def _compile(doc: Document, digest: str) -> Pack:
    spec = _decode(doc)
    problems: list[Problem] = []

    def pattern(text: str, where: str) -> Any:
        expanded = _FRAGMENT.sub(lambda m: spec.define.get(m.group(1), m.group(0)), text)
        unknown = _FRAGMENT.search(expanded)
        if unknown:
            problems.append(doc.problem(where, f"unknown fragment {{{{{unknown.group(1)}}}}}"))
            return None
        try:
            return compile_re2(expanded)
        except re2.error as exc:
            detail = exc.args[0].decode() if exc.args and isinstance(exc.args[0], bytes) else exc
            problems.append(doc.problem(where, f"pattern cannot run on RE2: {detail}"))
            return None

    if not _SEMVER.match(spec.version):
        problems.append(doc.problem("$.version", f"'version' must be semver, got {spec.version!r}"))
    if not spec.types:
        problems.append(doc.problem("$.types", "a claim pack needs at least one type"))
    cues = tuple(
        Cue(
            c.polarity,
            tuple(pattern(p, f"$.cues[{i}].patterns[{j}]") for j, p in enumerate(c.patterns)),
        )
        for i, c in enumerate(spec.cues)
    )
    types = []
    for name, t in spec.types.items():
        at = f"$.types.{name}"
        if not t.trigger:
            problems.append(doc.problem(f"{at}.trigger", "a type needs at least one trigger"))
        if t.tools is None and not t.spans and t.state is None and not t.align:
            problems.append(
                doc.problem(
                    at, "a type needs 'tools', 'spans', 'state' or 'align' to be checked against"
                )
            )
        for kind in t.agree:
            if kind not in ENTITY_KINDS:
                problems.append(
                    doc.problem(
                        f"{at}.agree.{kind}",
                        f"unknown entity kind {kind!r} (one of {', '.join(ENTITY_KINDS)})",
                    )
                )
        types.append(
            ClaimType(
                name=name,
                pack=spec.name,
                description=t.description,
                triggers=tuple(pattern(p, f"{at}.trigger[{i}]") for i, p in enumerate(t.trigger)),
                extra={
                    pol: tuple(pattern(p, f"{at}.{pol}[{i}]") for i, p in enumerate(pats))
                    for pol, pats in (
                        ("done", t.done),
                        ("failed", t.failed),
                        ("promised", t.promised),
                    )
                    if pats
                },
                tools=pattern(t.tools, f"{at}.tools") if t.tools else None,
                spans=frozenset(t.spans),
                overrides=frozenset(t.overrides),
                agree={
                    k: pattern(v, f"{at}.agree.{k}") for k, v in _agree(spec.agree, t.agree).items()
                },
                names=pattern(t.names, f"{at}.names") if t.names else None,
                state=t.state,
                after_claim=t.after_claim,
                also=tuple(t.also),
                params=pattern(t.params, f"{at}.params") if t.params else None,
                align=t.align,
            )
        )
    read_only = pattern(spec.read_only_tools, "$.read_only_tools") if spec.read_only_tools else None
    confirm = pattern(spec.confirm, "$.confirm") if spec.confirm else None
    bare = pattern(spec.bare, "$.bare") if spec.bare else None
    if problems:
        raise InputError(problems)
    info = PackInfo(spec.name, spec.version, spec.description, doc.file, digest, tuple(spec.types))
    return Pack(info, tuple(types), cues, read_only, confirm, bare)


def _agree(pack: dict[str, str], own: dict[str, str]) -> dict[str, str]:
    """A type's agree map: for each entity kind, the argument names its own map gives or the
    pack's map gives."""
    out = dict(pack)
    for kind, names in own.items():
        out[kind] = f"{names}|{pack[kind]}" if kind in pack else names
    return out


def load_packs(names: Sequence[str] = ()) -> PackSet:
    """The core pack, then each named pack (bundled name or path) in order."""
    wanted = list(dict.fromkeys([*DEFAULT_PACKS, *names]))
    packs = tuple(load_pack(n) for n in wanted)
    by_name: dict[str, ClaimType] = {}
    for pack in packs:
        for t in pack.types:
            by_name.pop(t.name, None)
            by_name[t.name] = t
    cues = next((p.cues for p in reversed(packs) if p.cues), ())

    def last(attr: str) -> Any:
        return next(
            (getattr(p, attr) for p in reversed(packs) if getattr(p, attr) is not None), None
        )

    return PackSet(
        packs, tuple(by_name.values()), cues, last("read_only"), last("confirm"), last("bare")
    )
