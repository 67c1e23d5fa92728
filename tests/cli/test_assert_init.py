"""`hotato assert init --from-trace`: a starter to edit, tool names quoted so they read back
exactly, --out that refuses to overwrite without --force, exit 2 on a trace with no tools."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from tests.conftest import hotato

from hotato.engine.loader import load_assertions

META = {"_meta": True, "schema": "hotato.voice_trace.v1", "call_id": "init"}


def trace(folder: Path, *spans: dict[str, object], name: str = "t.jsonl") -> str:
    lines = [json.dumps(META)] + [json.dumps(s) for s in spans]
    (folder / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
    return name


def tool(name: str, at: float) -> dict[str, object]:
    return {"type": "tool_call", "name": name, "start_sec": at}


STARTER = (
    (
        "# STARTER written by `hotato assert init --from-trace t.jsonl`.\n"
        "# One tool_call per distinct tool the trace saw, plus their order. Edit it: this is a "
        "starting point,\n"
        "# not a claim that these are the right assertions for the call.\n"
    )
    + """\
version: 1
assertions:
  - id: verify_identity-called
    kind: tool_call
    name: verify_identity
  - id: lookup_order-called
    kind: tool_call
    name: lookup_order
  - id: tool-call-order
    kind: tool_call
    require_order: [verify_identity, lookup_order]
"""
)


def test_starter_contents(tmp_path: Path) -> None:
    name = trace(
        tmp_path,
        tool("lookup_order", 5.0),
        {"type": "caller_audio_active"},
        tool("verify_identity", 1.0),
        tool("lookup_order", 6.0),
    )
    ran = hotato("assert", "init", "--from-trace", name, "--out", "-", cwd=tmp_path)
    assert ran.code == 0, ran.err
    assert ran.out == STARTER  # distinct tools, in the order they ran


def test_one_tool_has_no_order_assertion(tmp_path: Path) -> None:
    name = trace(tmp_path, tool("lookup_order", 1.0), tool("lookup_order", 2.0))
    ran = hotato("assert", "init", "--from-trace", name, "--out", "-", cwd=tmp_path)
    assert ran.code == 0
    doc = yaml.safe_load(ran.out)
    assert doc == {
        "version": 1,
        "assertions": [{"id": "lookup_order-called", "kind": "tool_call", "name": "lookup_order"}],
    }
    assert "plus their order" not in ran.out


AWKWARD = [
    'it\'s "quoted"',
    "ns:lookup: order",
    "café_crème",
    "日本語ツール",
    "yes",
    "null",
    "true",
    "1.5",
    "0x1F",
    "- dash",
    "#hash",
    "[bracket]",
    "{brace}",
    "  padded  ",
    "tab\there",
    "new\nline",
    "back\\slash",
    "*alias",
    "&anchor",
    "!tag",
    "%percent",
    "@at",
    "`tick`",
    "a b",
    "a-b",
    "emoji 🎧",
]


def test_awkward_tool_names_are_quoted_and_read_back(tmp_path: Path) -> None:
    name = trace(tmp_path, *(tool(n, float(i)) for i, n in enumerate(AWKWARD)))
    ran = hotato("assert", "init", "--from-trace", name, "--out", "a.yaml", cwd=tmp_path)
    assert ran.code == 0, ran.err
    assert "wrote a.yaml" in ran.out and "edit it" in ran.out
    aset = load_assertions(tmp_path / "a.yaml")  # hotato's own strict loader accepts it
    named = [getattr(s, "name", None) for s in aset.specs[:-1]]
    assert named == AWKWARD
    assert list(getattr(aset.specs[-1], "require_order", ())) == AWKWARD
    ids = [s.id for s in aset.specs]
    assert len(ids) == len(set(ids))  # "a b" and "a-b" slug alike; ids stay unique
    # and the starter passes against the trace it came from
    run = hotato(
        "assert", "run", "--assertions", "a.yaml", "--trace", name, "--format", "json", cwd=tmp_path
    )
    assert run.code == 0, run.out + run.err
    assert {r["status"] for r in json.loads(run.out)["results"]} == {"PASS"}


@pytest.mark.parametrize("awkward", AWKWARD)
def test_each_awkward_name_alone(tmp_path: Path, awkward: str) -> None:
    name = trace(tmp_path, tool(awkward, 1.0))
    ran = hotato("assert", "init", "--from-trace", name, "--out", "-", cwd=tmp_path)
    assert ran.code == 0, ran.err
    body = "".join(line for line in ran.out.splitlines(keepends=True) if not line.startswith("#"))
    assert yaml.safe_load(body)["assertions"][0]["name"] == awkward


def test_out_refuses_to_overwrite_without_force(tmp_path: Path) -> None:
    name = trace(tmp_path, tool("a", 1.0), tool("b", 2.0))
    (tmp_path / "a.yaml").write_text("mine\n")
    ran = hotato("assert", "init", "--from-trace", name, "--out", "a.yaml", cwd=tmp_path)
    assert ran.code == 2
    assert "a.yaml" in ran.err and "--force" in ran.err and "Traceback" not in ran.err
    assert (tmp_path / "a.yaml").read_text() == "mine\n"  # untouched
    forced = hotato(
        "assert", "init", "--from-trace", name, "--out", "a.yaml", "--force", cwd=tmp_path
    )
    assert forced.code == 0
    assert "tool-call-order" in (tmp_path / "a.yaml").read_text()
    assert not list(tmp_path.glob(".hotato-*"))  # no temporary file left behind


def test_out_into_a_missing_folder_or_onto_a_folder(tmp_path: Path) -> None:
    name = trace(tmp_path, tool("a", 1.0))
    missing = hotato(
        "assert", "init", "--from-trace", name, "--out", "no/such/a.yaml", cwd=tmp_path
    )
    assert missing.code == 2 and "does not exist" in missing.err
    (tmp_path / "folder").mkdir()
    onto = hotato(
        "assert", "init", "--from-trace", name, "--out", "folder", "--force", cwd=tmp_path
    )
    assert onto.code == 2 and "folder" in onto.err and "Traceback" not in onto.err


@pytest.mark.parametrize(
    "spans",
    [
        [],  # a trace read with zero spans
        [{"type": "caller_audio_active", "start_sec": 0.0}, {"type": "http_exchange"}],
        [{"type": "tool_call"}],  # a tool span without a name names no tool
    ],
)
def test_no_tool_spans_is_exit_2(tmp_path: Path, spans: list[dict[str, object]]) -> None:
    name = trace(tmp_path, *spans)
    ran = hotato("assert", "init", "--from-trace", name, "--out", "a.yaml", cwd=tmp_path)
    assert ran.code == 2
    assert "no tool_call spans" in ran.err and "t.jsonl" in ran.err
    assert ran.out == "" and not (tmp_path / "a.yaml").exists()


def test_a_malformed_trace_is_exit_2(tmp_path: Path) -> None:
    (tmp_path / "t.jsonl").write_text(json.dumps(META) + "\n[1]\n")
    ran = hotato("assert", "init", "--from-trace", "t.jsonl", cwd=tmp_path)
    assert ran.code == 2 and "t.jsonl:2" in ran.err and "Traceback" not in ran.err


def test_from_trace_is_required() -> None:
    ran = hotato("assert", "init")
    assert ran.code == 2 and "--from-trace" in ran.err


def test_json_report(tmp_path: Path) -> None:
    name = trace(tmp_path, tool("a", 1.0), tool("b", 2.0))
    ran = hotato(
        "assert", "init", "--from-trace", name, "--out", "a.yaml", "--format", "json", cwd=tmp_path
    )
    assert ran.code == 0
    assert json.loads(ran.out) == {
        "kind": "assert-init",
        "tool_names": ["a", "b"],
        "written": "a.yaml",
        "assertions": 3,
    }


def test_the_starter_is_written_to_assertions_yaml_by_default(tmp_path: Path) -> None:
    # As hotato 1.x: the quick start's next step reads assertions.yaml.
    name = trace(tmp_path, tool("lookup_order", 1.0), tool("issue_refund", 2.0))
    ran = hotato("assert", "init", "--from-trace", name, cwd=tmp_path)
    assert ran.code == 0, ran.err
    assert ran.out.startswith("wrote assertions.yaml: 2 tool_call assertion(s)")
    assert f"hotato assert run --assertions assertions.yaml --trace {name}" in ran.out
    written = (tmp_path / "assertions.yaml").read_text(encoding="utf-8")
    assert "name: issue_refund" in written
    graded = hotato(
        "assert", "run", "--assertions", "assertions.yaml", "--trace", name, cwd=tmp_path
    )
    assert graded.code == 0, graded.out + graded.err
    again = hotato("assert", "init", "--from-trace", name, cwd=tmp_path)
    assert again.code == 2 and "--force" in again.err
    assert (tmp_path / "assertions.yaml").read_text(encoding="utf-8") == written
