"""Packs: named, versioned, offline assertion files shipped in `hotato/packs/`.

A pack file holds `name`, `version` (semver), `description`, `checks` (what each rule checks,
in words) and `assertions` (an ordinary assertion list). A rule stands alone: no `when`, no
references to other rules, no nested `policy`, and deterministic kinds only, so a pack is
graded the same way wherever it is merged or named. Same version, same bytes, same result.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

import msgspec

from hotato._documents import Document, load_document
from hotato.kinds._base import Spec
from hotato.kinds._decode import decode_assertion_list, did_you_mean
from hotato.kinds._regex import compile_pattern
from hotato.model.errors import InputError, Problem, UsageError
from hotato.model.registry import Registry

PACK_DIR = Path(__file__).resolve().parent.parent / "packs"
DEFAULT_PACK = "default"
PACK_KEYS = ["name", "version", "description", "checks", "assertions"]
_SEMVER = compile_pattern(
    r"^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)"
    r"(?:-[0-9A-Za-z.\-]+)?(?:\+[0-9A-Za-z.\-]+)?$",
    case_sensitive=True,
)


class PackInfo(msgspec.Struct, frozen=True):
    name: str
    version: str  # semver
    description: str
    checks: tuple[str, ...]  # one short line per thing the pack checks
    path: str
    sha256: str  # of the file's bytes: one version, one digest


class Pack(msgspec.Struct, frozen=True):
    info: PackInfo
    specs: tuple[Spec, ...]

    @property
    def ids(self) -> list[str]:
        return [s.id for s in self.specs]


def _bundled(name: str) -> Callable[[], Path]:
    return lambda: PACK_DIR / f"{name}.yaml"


# name -> the pack file; a team's own packs come from the `hotato.packs` entry-point group (an
# attribute holding the file's Path) or are passed by path
PACKS: Registry[Path] = Registry(
    "pack",
    Path,
    {
        name: _bundled(name)
        for name in (
            "default",
            "identity-before-account",
            "pii-leak",
            "prohibited-language",
            "required-disclosure",
        )
    },
    group="hotato.packs",
)


def bundled_names() -> list[str]:
    return sorted(PACKS.names())


def list_packs() -> list[PackInfo]:
    """Every bundled pack, by name."""
    return [load_pack(name).info for name in bundled_names()]


def is_path(name_or_path: str) -> bool:
    return (
        os.sep in name_or_path
        or "/" in name_or_path
        or name_or_path.endswith((".yaml", ".yml", ".json"))
    )


def unknown_pack_message(name: str) -> str:
    names = bundled_names()
    return f"unknown pack {name!r}{did_you_mean(name, names)} (bundled packs: {', '.join(names)})"


@lru_cache(maxsize=64)
def load_pack(name_or_path: str) -> Pack:
    """A bundled pack by name, or a pack file by path. Read and decoded once per process.

    Raises UsageError for an unknown name, InputError (every problem, located) for a file
    that cannot be read or is not a valid pack.
    """
    if is_path(name_or_path):
        path = Path(name_or_path)
    elif name_or_path in PACKS:
        path = PACKS[name_or_path]
    else:
        raise UsageError([Problem(unknown_pack_message(name_or_path))])
    doc = load_document(path, "pack")
    import hashlib  # OpenSSL loads only when a pack is read

    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    return _decode(doc, str(path), digest, bundled=not is_path(name_or_path))


def _decode(doc: Document, path: str, digest: str, bundled: bool) -> Pack:
    from hotato.kinds import REGISTRY  # the registry lists `policy`, which reads packs

    value = doc.value
    if not isinstance(value, dict):
        keys = ", ".join(repr(k) for k in PACK_KEYS)
        raise InputError([doc.problem("$", f"a pack file must be a mapping with {keys}")])
    base = "$.assertions"
    problems: list[Problem] = []
    if not bundled and _is_1x_pack(value):
        value, base = _from_1x_pack(value), "$.rules"
        problems += [
            doc.problem(f"$.rules[{i}].type", "'type' must be 'banned' or 'required_disclosure'")
            for i in value.pop("_bad_types")
        ]
    problems += _header_problems(doc, value, Path(path).stem if bundled else None)
    items = value.get("assertions", [])
    specs, found = decode_assertion_list(items, base, doc, REGISTRY)
    problems += found
    position: dict[Any, int] = {}  # a rule's index in the file (the first, for a repeated id)
    for i, item in enumerate(items if isinstance(items, list) else []):
        if isinstance(item, dict):
            position.setdefault(item.get("id"), i)
    for spec in specs:
        where = f"{base}[{position[spec.id]}]"
        problems += [doc.problem(where, msg) for msg in _standalone(spec, REGISTRY)]
    if isinstance(items, list) and not items:
        problems.append(doc.problem("$.assertions", "a pack needs at least one assertion"))
    if problems:
        raise InputError(problems)
    info = PackInfo(
        name=value["name"],
        version=value["version"],
        description=value["description"],
        checks=tuple(value["checks"]),
        path=path,
        sha256=digest,
    )
    return Pack(info, tuple(specs))


def _is_1x_pack(value: dict[str, Any]) -> bool:
    return isinstance(value.get("rules"), list) and "assertions" not in value


def _from_1x_pack(value: dict[str, Any]) -> dict[str, Any]:
    """A hotato 1.x policy pack (`{name, version, rules: [{id, type, regex, role}]}`, `type`
    banned or required_disclosure) as a pack of phrase rules: a banned pattern must never be
    said, a required disclosure must be (by `role`, when given). Patterns match without case,
    as 1.x matched them."""
    rules = value["rules"]
    items: list[Any] = []
    bad: list[int] = []
    for i, rule in enumerate(rules):
        if not isinstance(rule, dict):
            items.append(rule)  # refused, located, by the assertion decoder
            continue
        item = {"id": rule.get("id"), "kind": "phrase", "dimension": "policy"}
        item["regex"] = rule.get("regex")
        if rule.get("role") is not None:
            item["role"] = rule["role"]
        if rule.get("type") == "banned":
            item["absent"] = True
        elif rule.get("type") != "required_disclosure":
            bad.append(i)
        items.append(item)
    name = value.get("name")
    version = value.get("version")
    return {
        "name": name,
        "version": f"{version}.0.0" if isinstance(version, int) else version,
        "description": f"{name} (a hotato 1.x policy pack)",
        "checks": [str(r.get("id")) for r in rules if isinstance(r, dict)] or ["(no rules)"],
        "assertions": items,
        "_bad_types": bad,
    }


def _header_problems(doc: Document, value: dict[str, Any], file_stem: str | None) -> list[Problem]:
    """Everything but the assertions. `file_stem` is set for a bundled pack, named after it."""
    problems = [
        doc.problem(f"$.{k}", f"unknown key {k!r}{did_you_mean(str(k), PACK_KEYS)}")
        for k in value
        if k not in PACK_KEYS
    ]
    problems += [doc.problem("$", f"{k!r} is required") for k in PACK_KEYS if k not in value]
    name, version, checks = value.get("name"), value.get("version"), value.get("checks")
    if "name" in value and not _text(name):
        problems.append(doc.problem("$.name", "'name' must be a non-empty string"))
    elif file_stem is not None and name != file_stem:
        problems.append(
            doc.problem("$.name", f"a bundled pack is named after its file: {file_stem!r}")
        )
    if "version" in value and not (isinstance(version, str) and _SEMVER.search(version.encode())):
        problems.append(
            doc.problem(
                "$.version", f"'version' must be a semver string such as '1.0.0', got {version!r}"
            )
        )
    if "description" in value and not _text(value["description"]):
        problems.append(doc.problem("$.description", "'description' must be a non-empty string"))
    if "checks" in value and not (isinstance(checks, list) and checks and all(map(_text, checks))):
        problems.append(doc.problem("$.checks", "'checks' must be a non-empty list of strings"))
    return problems


def _standalone(spec: Spec, registry: Mapping[str, Any]) -> list[str]:
    kdef = registry[str(spec.__struct_config__.tag)]
    problems = []
    if spec.when:
        problems.append("'when' is not supported in a pack rule: each rule stands alone")
    if kdef.refs is not None and kdef.refs(spec):
        problems.append(f"a pack rule cannot reference other assertions ({kdef.tag})")
    if kdef.tag == "policy":
        problems.append("a pack cannot hold a 'policy' rule")
    if not kdef.deterministic:
        problems.append(f"a pack holds deterministic rules only; {kdef.tag!r} is judged")
    return problems


def _text(value: Any) -> bool:
    return isinstance(value, str) and bool(value.strip())
