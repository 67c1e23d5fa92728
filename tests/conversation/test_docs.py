"""docs/conversation-tests.md is executable: every command shown runs, in order, in an empty
folder, with the exit code its `# exit N` comment gives (none: 0), and every output line shown
appears in what it printed, in order (`...` marks lines left out).

Conventions the document follows:
- commands live in ```console blocks, after `$ `; a line ending in `\\` continues the command;
- `<!-- file: PATH -->` before a block: the block is that file's content, written before the
  commands after it run;
- `<!-- written: PATH -->` before a block: the block is exactly what earlier commands wrote there.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from tests.conftest import REPO

DOC = REPO / "docs" / "conversation-tests.md"
MARK = re.compile(r"<!-- (file|written): (\S+) -->")
EXIT = re.compile(r"\s+# exit (\d+)$")


@dataclass
class Command:
    line: int
    text: str
    exit: int
    expected: list[str] = field(default_factory=list)


@dataclass
class FileBlock:
    line: int
    mode: str  # "file": write it; "written": check it
    path: str
    content: str


def parse(text: str) -> list[Command | FileBlock]:
    steps: list[Command | FileBlock] = []
    lines = text.splitlines()
    mark: tuple[str, str] | None = None
    i = 0
    while i < len(lines):
        line = lines[i]
        found = MARK.fullmatch(line.strip())
        if found:
            mark = (found.group(1), found.group(2))
            i += 1
            continue
        if not line.startswith("```") or line.strip() == "```":
            i += 1
            continue
        lang, start = line[3:].strip(), i + 1
        end = start
        while lines[end] != "```":
            end += 1
        body = lines[start:end]
        if mark is not None:
            steps.append(FileBlock(start, mark[0], mark[1], "\n".join(body) + "\n"))
            mark = None
        elif lang == "console":
            steps.extend(_commands(body, start + 1))
        else:
            assert lang in ("yaml", "json"), f"line {start}: a ```{lang} block is not checked"
        i = end + 1
    return steps


def _commands(body: list[str], first_line: int) -> list[Command]:
    out: list[Command] = []
    j = 0
    while j < len(body):
        if not body[j].startswith("$ "):
            assert out, f"line {first_line + j}: output before any command"
            out[-1].expected.append(body[j])
            j += 1
            continue
        parts, line = [body[j][2:]], first_line + j
        while parts[-1].endswith("\\"):
            j += 1
            parts.append(body[j])
        text = "\n".join(parts)
        code = EXIT.search(text)
        exit_code = int(code.group(1)) if code else 0
        out.append(Command(line, EXIT.sub("", text), exit_code))
        j += 1
    return out


def _in_order(expected: list[str], printed: str) -> str | None:
    """The first shown line not found (in order) in what was printed, or None."""
    actual = [line.rstrip() for line in printed.splitlines()]
    at = 0
    for want in expected:
        want = want.rstrip()
        if not want or want == "...":
            continue
        while at < len(actual) and actual[at] != want:
            at += 1
        if at == len(actual):
            return want
        at += 1
    return None


STEPS = parse(DOC.read_text()) if DOC.exists() else []


def test_the_document_covers_the_walkthrough() -> None:
    commands = "\n".join(s.text for s in STEPS if isinstance(s, Command))
    for needed in (
        "hotato scenario init",
        "hotato scenario validate",
        "hotato test run refund.yaml",
        "--trials",
        "--repetitions",
        "hotato test run suite",
        "--out conv-artifact",
        "hotato conversation verify",
    ):
        assert needed in commands, needed
    commands_ = [s for s in STEPS if isinstance(s, Command)]
    assert len(commands_) >= 20
    assert {c.exit for c in commands_} == {0, 1, 2}
    assert sum(bool(c.expected) for c in commands_) >= 15  # outputs are shown, and so checked


def test_the_output_matcher() -> None:
    printed = "a\nb\nc\n"
    assert _in_order(["a", "...", "c"], printed) is None
    assert _in_order(["c", "a"], printed) == "a"  # order matters
    assert _in_order(["b", "d"], printed) == "d"


def test_every_command_in_the_document_works(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        "NO_COLOR": "1",
    }
    env.pop("HOTATO_DEBUG", None)
    hotato_bin = Path(sys.executable).parent / "hotato"
    if not hotato_bin.exists():
        pytest.skip("the hotato console script is not installed beside this Python")
    for step in STEPS:
        where = f"{DOC.name}:{step.line}"
        if isinstance(step, FileBlock):
            path = tmp_path / step.path
            if step.mode == "file":
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(step.content)
            else:
                assert path.read_text() == step.content, f"{where}: {step.path} differs"
            continue
        ran = subprocess.run(
            ["bash", "-c", step.text],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        printed = ran.stdout + ran.stderr
        assert ran.returncode == step.exit, f"{where}: {step.text}\n{printed}"
        missing = _in_order(step.expected, printed)
        assert missing is None, f"{where}: {step.text}\nnot printed: {missing!r}\n{printed}"
