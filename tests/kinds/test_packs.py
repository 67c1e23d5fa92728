"""Bundled packs: named, versioned, offline. Same version, same bytes, same result."""

from __future__ import annotations

import hashlib
import shutil
from collections.abc import Iterator
from pathlib import Path

import msgspec
import pytest

from hotato.kinds import REGISTRY, _packs
from hotato.kinds._packs import PACK_DIR, Pack, PackInfo, list_packs, load_pack
from hotato.model.errors import InputError, UsageError
from hotato.model.registry import Registry

# A pack's bytes are pinned to its version: editing a pack means bumping its version here and
# in the file. (Law: same version, same bytes, same result.)
PINNED = {
    "default": ("1.0.0", "1a36203afd47974eff340971232e8ac1f055019e3f58761157a15419a73f4b72"),
    "identity-before-account": (
        "1.0.0",
        "bc2dff8f1afce2a77889f3a9daec99bffbe92ed78879cd69d8aef93ab10934f3",
    ),
    "pii-leak": ("1.0.0", "f8d696aad77978a59edf0e50ccf022a75c6af5865e2c2e9e3baa17dc2ab4dca7"),
    "prohibited-language": (
        "1.0.0",
        "0d152d3125108fbe73bf7c1866870cc73de5ee7c880a30dee172a01ed98eb4ce",
    ),
    "required-disclosure": (
        "1.0.0",
        "aa1738d11dc03b45bce9f977f2f9c7621e5eacd3dc4d032166155fda6692fdaf",
    ),
}


@pytest.fixture
def fresh_cache() -> Iterator[None]:
    load_pack.cache_clear()
    yield
    load_pack.cache_clear()


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_the_bundled_packs_are_listed_by_name() -> None:
    names = [p.name for p in list_packs()]
    assert names == sorted(PINNED)
    for info in list_packs():
        assert isinstance(info, PackInfo)
        assert info.description and info.checks and all(info.checks)
        assert Path(info.path) == PACK_DIR / f"{info.name}.yaml"


@pytest.mark.parametrize("name", sorted(PINNED))
def test_each_version_is_pinned_to_its_bytes(name: str) -> None:
    info = load_pack(name).info
    digest = hashlib.sha256(Path(info.path).read_bytes()).hexdigest()
    assert info.sha256 == digest
    assert (info.version, digest) == PINNED[name], (
        f"pack {name!r} changed: bump its version and pin the new digest"
    )


def test_loaded_once_per_process() -> None:
    assert load_pack("default") is load_pack("default")


@pytest.mark.parametrize("name", sorted(PINNED))
def test_rules_are_described_policy_rules_with_unique_ids(name: str) -> None:
    pack = load_pack(name)
    assert isinstance(pack, Pack) and pack.specs
    assert len(set(pack.ids)) == len(pack.ids)
    for spec in pack.specs:
        assert spec.dimension == "policy" and spec.description
        assert REGISTRY[str(spec.__struct_config__.tag)].deterministic


def test_default_holds_the_same_rules_as_the_packs_it_draws_on() -> None:
    """`default` is the recording disclosure plus prohibited language, rule for rule."""
    others = {
        s.id: s for n in ("required-disclosure", "prohibited-language") for s in load_pack(n).specs
    }
    default = load_pack("default").specs
    language = load_pack("prohibited-language").ids
    assert [s.id for s in default] == ["recording-disclosed", *language]
    for spec in default:
        assert msgspec.to_builtins(spec) == msgspec.to_builtins(others[spec.id])


def test_pii_leak_covers_every_detector_for_both_sides() -> None:
    specs = load_pack("pii-leak").specs
    assert {(s.role, tuple(s.detectors)) for s in specs} == {  # type: ignore[attr-defined]
        ("agent", ("ssn", "card_luhn", "email", "phone")),
        ("caller", ("ssn", "card_luhn", "email", "phone")),
    }


def test_identity_pack_gates_account_tools_on_verification() -> None:
    kinds = [(str(s.__struct_config__.tag), s) for s in load_pack("identity-before-account").specs]
    gated = {s.never_before.tool for k, s in kinds if k == "tool_call"}  # type: ignore[attr-defined]
    assert {"lookup_account", "get_account", "get_balance"} == gated
    assert any(k == "order" for k, _ in kinds)


def test_an_unknown_name_is_a_usage_error_with_a_hint() -> None:
    with pytest.raises(UsageError) as refused:
        load_pack("pii_leak")
    assert "did you mean 'pii-leak'" in str(refused.value)


def test_a_pack_file_by_path(tmp_path: Path) -> None:
    path = write(
        tmp_path / "house.yml",
        "name: house\nversion: 2.1.0-rc.1\ndescription: House rules.\nchecks: [says goodbye]\n"
        "assertions:\n  - {id: bye, kind: phrase, regex: goodbye, role: agent}\n",
    )
    pack = load_pack(str(path))
    assert (pack.info.name, pack.info.version, pack.info.checks) == (
        "house",
        "2.1.0-rc.1",
        ("says goodbye",),
    )
    assert pack.ids == ["bye"]


@pytest.mark.parametrize(
    ("text", "where", "message"),
    [
        ("- a\n", "$", "must be a mapping"),
        ("name: x\nversion: 1.0.0\ndescription: d\nchecks: [c]\nassertions: []\nextra: 1\n",
         "$.extra", "unknown key"),
        ("name: x\nversion: 1\ndescription: d\nchecks: [c]\nassertions: []\n",
         "$.version", "semver"),
        ("name: x\nversion: 1.0.0\ndescription: d\nchecks: []\nassertions: []\n",
         "$.checks", "non-empty list"),
        ("name: x\nversion: 1.0.0\ndescription: d\nchecks: [c]\nassertions: []\n",
         "$.assertions", "at least one assertion"),
        ("name: x\nversion: 1.0.0\nchecks: [c]\nassertions: []\n",
         "$", "'description' is required"),
        ("name: x\nversion: 1.0.0\ndescription: d\nchecks: [c]\nassertions:\n"
         "  - {id: a, kind: phrase, regex: x}\n  - {id: b, kind: phrase, regex: y, when: [a]}\n",
         "$.assertions[1]", "'when' is not supported"),
        ("name: x\nversion: 1.0.0\ndescription: d\nchecks: [c]\nassertions:\n"
         "  - {id: a, kind: phrase, regex: x}\n  - {id: b, kind: formula, expr: a}\n",
         "$.assertions[1]", "cannot reference"),
        ("name: x\nversion: 1.0.0\ndescription: d\nchecks: [c]\nassertions:\n"
         "  - {id: a, kind: policy, pack: default}\n", "$.assertions[0]", "cannot hold a 'policy'"),
        ("name: x\nversion: 1.0.0\ndescription: d\nchecks: [c]\nassertions:\n"
         "  - {id: a, kind: judge_rubric, criterion: polite}\n", "$.assertions[0]",
         "deterministic rules only"),
        ("name: x\nversion: 1.0.0\ndescription: d\nchecks: [c]\nassertions:\n"
         "  - {id: a, kind: phrase, regexp: x}\n", "$.assertions[0].regexp", "did you mean"),
    ],
)  # fmt: skip
def test_a_bad_pack_file_is_refused_with_located_problems(
    tmp_path: Path, text: str, where: str, message: str
) -> None:
    path = write(tmp_path / "p.yaml", text)
    with pytest.raises(InputError) as refused:
        load_pack(str(path))
    matching = [p for p in refused.value.problems if message in p.message]
    assert matching, str(refused.value)
    assert matching[0].path == where and matching[0].file == str(path)
    assert matching[0].line is not None


def test_a_missing_pack_file_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="does not exist"):
        load_pack(str(tmp_path / "nope.yaml"))


def test_a_bundled_pack_is_named_after_its_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fresh_cache: None
) -> None:
    shutil.copy(PACK_DIR / "pii-leak.yaml", tmp_path / "renamed.yaml")
    table = Registry("pack", Path, {"renamed": lambda: tmp_path / "renamed.yaml"})
    monkeypatch.setattr(_packs, "PACKS", table)
    assert _packs.bundled_names() == ["renamed"]
    with pytest.raises(InputError, match="named after its file"):
        load_pack("renamed")


def test_a_1x_policy_pack_file_reads_as_phrase_rules(tmp_path: Path) -> None:
    # hotato 1.x's pack shape: rules of type banned / required_disclosure.
    path = tmp_path / "desk.json"
    path.write_text(
        '{"name": "desk", "version": 2, "rules": ['
        '{"id": "no-promise", "type": "banned", "regex": "i promise"},'
        '{"id": "recorded", "type": "required_disclosure", "regex": "recorded", "role": "agent"}'
        "]}"
    )
    pack = load_pack(str(path))
    assert pack.info.version == "2.0.0" and pack.ids == ["no-promise", "recorded"]
    banned, required = pack.specs
    assert msgspec.to_builtins(banned)["absent"] is True
    assert msgspec.to_builtins(required)["role"] == "agent"


def test_a_1x_policy_pack_rule_of_an_unknown_type_is_refused_located(tmp_path: Path) -> None:
    path = tmp_path / "desk.json"
    path.write_text(
        '{"name": "desk", "version": 2, "rules": [{"id": "x", "type": "nice", "regex": "y"}]}'
    )
    with pytest.raises(InputError) as refused:
        load_pack(str(path))
    assert "$.rules[0].type: 'type' must be 'banned' or 'required_disclosure'" in str(refused.value)
