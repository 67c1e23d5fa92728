"""Every extension point is one `Registry`: every registered name resolves, names list without
importing, an unknown name is refused with the choices, and a package installed with pip adds
entries through its entry points."""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import hotato

from hotato.adapters.registry import ADAPTERS
from hotato.claims.pack import BUNDLED as CLAIM_PACKS
from hotato.cli.renderers import RENDERERS
from hotato.evidence.formats import READERS
from hotato.fleet.pull import SOURCES
from hotato.kinds import REGISTRY as KINDS
from hotato.kinds._packs import PACKS
from hotato.model.errors import UsageError
from hotato.model.registry import Registry

ALL: dict[str, Registry[Any]] = {
    "kinds": KINDS,
    "trace formats": READERS,
    "output formats": RENDERERS,
    "state adapters": ADAPTERS,
    "claim packs": CLAIM_PACKS,
    "assertion packs": PACKS,
    "pull sources": SOURCES,
}


@pytest.mark.parametrize("table", list(ALL))
def test_every_registered_name_resolves(table: str) -> None:
    registry = ALL[table]
    assert registry.names(), table
    for name in registry.names():
        assert isinstance(registry[name], registry.kind), (table, name)


def test_names_are_listed_without_importing_anything() -> None:
    table: Registry[object] = Registry("thing", object, {"a": "no_such_module_here:A"})
    assert table.names() == ("a",) and "a" in table and "b" not in table
    assert "no_such_module_here" not in sys.modules
    with pytest.raises(ModuleNotFoundError):
        table["a"]


def test_an_entry_of_the_wrong_type_is_refused_when_it_loads() -> None:
    table: Registry[int] = Registry("number", int, {"one": lambda: "1"})
    with pytest.raises(TypeError, match="number 'one' resolves to '1'"):
        table["one"]


def test_an_unknown_name_is_refused_with_the_choices() -> None:
    with pytest.raises(UsageError) as refused:
        RENDERERS.require("jsno")
    assert str(refused.value.problems[0].message) == (
        "unknown output format 'jsno' (did you mean 'json'?); "
        "one of: text, json, junit, html, markdown"
    )


def test_the_command_line_refuses_a_format_no_renderer_has(tmp_path: Path) -> None:
    ran = hotato("assert", "run", "--assertions", str(tmp_path / "a.yaml"), "--format", "pdf")
    assert ran.code == 2
    assert "Invalid value for '--format': 'pdf' is not one of 'text', 'json', 'junit', " in ran.err


# A team's package, installed with pip: its module and a dist-info whose entry_points.txt
# registers a kind, a renderer and a state adapter. Nothing is installed: the folder is put on
# sys.path, which is where importlib.metadata finds distributions.
_PLUGIN = '''
    from __future__ import annotations

    from pathlib import Path

    import msgspec

    from hotato.adapters.config import sql_resource_problems
    from hotato.adapters.registry import StateAdapter
    from hotato.adapters.sandbox import parse_sandbox
    from hotato.cli.renderers import CallView, Renderer
    from hotato.kinds._base import Evidence, Spec, kind
    from hotato.model.results import Verdict
    from hotato.model.status import Status


    class Always(Spec, tag="team_always"):
        """Passes always (a team's own kind)."""


    @kind(Always, reads=set())
    def check(spec: Always, ev: Evidence) -> Verdict:
        return Verdict(status=Status.PASS, reason="always")


    def _ids(view: CallView) -> str:
        return "".join(f"{r.id},{r.status}\\n" for r in view.graded.outcome.results)


    CSV = Renderer(call=_ids)


    class Rows(msgspec.Struct, tag_field="adapter", tag="rows", forbid_unknown_fields=True):
        file: str
        resources: dict[str, object] = {}


    def _configure(top: Rows, resources: object, doc: object, problems: list) -> Rows:
        return top


    def _open(config: Rows, name: str) -> tuple[object, str]:
        box = parse_sandbox(msgspec.json.decode(Path(config.file).read_bytes()), config.file)
        return box.after_reader(), f"rows {name}"


    class _Resource(msgspec.Struct):
        table: str | None = None
        query: str | None = None


    ROWS = StateAdapter(Rows, _Resource, sql_resource_problems, _configure, _open)
'''

_ENTRY_POINTS = """
    [hotato.kinds]
    team_always = team_plugin:check

    [hotato.renderers]
    csv = team_plugin:CSV

    [hotato.state_adapters]
    rows = team_plugin:ROWS

    [hotato.renderers]
    text = team_plugin:CSV
"""


@pytest.fixture
def team_plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    site = tmp_path / "site"
    info = site / "team_plugin-1.0.dist-info"
    info.mkdir(parents=True)
    (site / "team_plugin.py").write_text(textwrap.dedent(_PLUGIN))
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: team-plugin\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(textwrap.dedent(_ENTRY_POINTS).replace("\n    [", "\n["))
    monkeypatch.syspath_prepend(str(site))
    for registry in (KINDS, RENDERERS, ADAPTERS):
        registry.refresh()
    yield tmp_path
    for registry in (KINDS, RENDERERS, ADAPTERS):
        registry.refresh()
    sys.modules.pop("team_plugin", None)


def test_a_plugin_kind_renderer_and_adapter_resolve(team_plugin: Path) -> None:
    assert "team_always" in KINDS.names() and KINDS["team_always"].tag == "team_always"
    assert RENDERERS.names() == ("text", "json", "junit", "html", "markdown", "csv")
    assert RENDERERS["text"].call is not RENDERERS["csv"].call  # a built-in is never replaced
    assert ADAPTERS.names() == ("sql", "http", "rows")


def test_a_plugin_grades_and_renders_through_the_command_line(team_plugin: Path) -> None:
    folder = team_plugin
    (folder / "rows.json").write_text('{"orders": [{"id": "A1", "status": "refunded"}]}')
    (folder / "state.yaml").write_text(f"adapter: rows\nfile: {folder / 'rows.json'}\n")
    (folder / "a.yaml").write_text(
        "version: 1\nassertions:\n"
        "  - {id: mine, kind: team_always}\n"
        "  - {id: refunded, kind: state, resource: orders, filters: {id: A1},"
        " expect: {status: refunded}}\n"
    )
    ran = hotato(
        "assert",
        "run",
        "--assertions",
        str(folder / "a.yaml"),
        "--state",
        str(folder / "state.yaml"),
        "--format",
        "csv",
    )
    assert (ran.code, ran.out, ran.err) == (0, "mine,PASS\nrefunded,PASS\n", "")


def test_a_format_without_a_side_for_the_command_is_refused(
    team_plugin: Path, tmp_path: Path
) -> None:
    (tmp_path / "t.yaml").write_text("id: t\nagent: a\nassertions: {deterministic: []}\n")
    ran = hotato("test", "run", str(tmp_path / "t.yaml"), "--agent", "a", "--format", "csv")
    assert ran.code == 2
    assert "output format 'csv' does not show a test run" in ran.err
