"""The edit loop's budget (`make check`: the tests not marked slow, 30 s on two cores) holds by
construction: a test that loads a vendor's SDK (seconds of pydantic models per process) is
marked slow, so it runs in `make test` only. Checked from the source, never timed."""

from __future__ import annotations

import ast
from pathlib import Path

# packages whose import alone costs seconds in a fresh worker
HEAVY = ("vapi", "retell", "pydantic", "livekit", "pipecat")
TESTS = Path(__file__).resolve().parent


def _heavy(node: ast.AST) -> bool:
    """The node imports a heavy package itself (an import, or `pytest.importorskip("vapi")`)."""
    for sub in ast.walk(node):
        names: list[str] = []
        if isinstance(sub, ast.Import):
            names = [a.name for a in sub.names]
        elif isinstance(sub, ast.ImportFrom) and sub.module and not sub.level:
            names = [sub.module]
        elif (
            isinstance(sub, ast.Call)
            and isinstance(sub.func, ast.Attribute)
            and sub.func.attr == "importorskip"
            and sub.args
            and isinstance(sub.args[0], ast.Constant)
        ):
            names = [str(sub.args[0].value)]
        if any(n.split(".")[0] in HEAVY for n in names):
            return True
    return False


def _type_checking_only(node: ast.stmt) -> bool:
    return isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING"


def _marked_slow(nodes: list[ast.expr]) -> bool:
    return any("slow" in ast.unparse(n) and "mark" in ast.unparse(n) for n in nodes)


def _unmarked(path: Path) -> list[str]:
    text = path.read_text()
    if not any(name in text for name in HEAVY):  # most files: no need to parse them
        return []
    tree = ast.parse(text, str(path))
    module_marks = [
        s.value
        for s in tree.body
        if isinstance(s, ast.Assign)
        and any(getattr(t, "id", "") == "pytestmark" for t in s.targets)
    ]
    functions = {s.name: s for s in tree.body if isinstance(s, ast.FunctionDef)}
    top = [s for s in tree.body if not isinstance(s, ast.FunctionDef | ast.ClassDef)]
    # collected (imported) by every worker before `-m "not slow"` deselects anything
    if any(_heavy(s) for s in top if not _type_checking_only(s)):
        return [f"{path.relative_to(TESTS)}: imported at module level"]
    if _marked_slow(module_marks):
        return []
    heavy = {name for name, f in functions.items() if _heavy(f)}
    grew = True
    while grew:  # a function that calls a heavy one (by name, in this module) is heavy
        grew = False
        for name, f in functions.items():
            used = {n.id for n in ast.walk(f) if isinstance(n, ast.Name)}
            if name not in heavy and used & heavy:
                heavy.add(name)
                grew = True
    return [
        f"{path.relative_to(TESTS)}:{f.lineno} {name}"
        for name, f in functions.items()
        if name.startswith("test_") and name in heavy and not _marked_slow(f.decorator_list)
    ]


def test_no_test_outside_the_slow_mark_loads_a_vendor_sdk() -> None:
    found = [hit for path in sorted(TESTS.rglob("test_*.py")) for hit in _unmarked(path)]
    assert found == []


def test_the_audit_sees_an_sdk_behind_a_helper(tmp_path: Path) -> None:
    global TESTS
    sample = tmp_path / "test_sample.py"
    sample.write_text(
        "import pytest\n"
        "def _model():\n    from vapi.types import X\n    return X\n"
        "@given(st.deferred(lambda: _model()))\ndef test_a(x): ...\n"
        "@pytest.mark.slow\ndef test_b():\n    _model()\n"
        "def test_c():\n    pass\n"
    )
    saved, TESTS = TESTS, tmp_path
    try:
        assert _unmarked(sample) == ["test_sample.py:6 test_a"]
    finally:
        TESTS = saved
