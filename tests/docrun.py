"""Executable documentation: a docs page's commands run in order in an empty folder.

A page's conventions:
- commands live in ```console blocks after `$ `; a line ending in `\\` continues the command;
  `# exit N` at the end gives the exit code it must have (none: 0);
- the lines after a command are what it prints: each must appear, in order (`...` marks lines
  left out; a shown line ending in `...` matches a printed line that starts with the rest);
- `<!-- file: PATH -->` before a block: that file's content, written before the next command;
- `<!-- written: PATH -->` before a block: exactly what earlier commands wrote there.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

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
        found = MARK.fullmatch(lines[i].strip())
        if found:
            mark = (found.group(1), found.group(2))
        elif lines[i].startswith("```") and lines[i].strip() != "```":
            lang, start = lines[i][3:].strip(), i + 1
            end = start
            while lines[end] != "```":
                end += 1
            body = lines[start:end]
            if mark is not None:
                steps.append(FileBlock(start, mark[0], mark[1], "\n".join(body) + "\n"))
                mark = None
            elif lang == "console":
                steps.extend(_commands(body, start + 1))
            i = end
        i += 1
    return steps


def commands(steps: list[Command | FileBlock]) -> list[Command]:
    return [s for s in steps if isinstance(s, Command)]


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
        out.append(Command(line, EXIT.sub("", text), int(code.group(1)) if code else 0))
        j += 1
    return out


def _same(want: str, got: str) -> bool:
    if want.endswith("...") and want != "...":
        return got.startswith(want[:-3])
    return got == want


def in_order(expected: list[str], printed: str) -> str | None:
    """The first shown line not printed (in order), or None."""
    actual = [line.rstrip() for line in printed.splitlines()]
    at = 0
    for want in (w.rstrip() for w in expected):
        if not want or want == "...":
            continue
        while at < len(actual) and not _same(want, actual[at]):
            at += 1
        if at == len(actual):
            return want
        at += 1
    return None


def run_page(doc: Path, steps: list[Command | FileBlock], folder: Path) -> None:
    """Run every step of `doc` in `folder`, failing at the first one that does not hold."""
    bin_dir = Path(sys.executable).parent
    if not (bin_dir / "hotato").exists():
        pytest.skip("the hotato console script is not installed beside this Python")
    env = {
        **os.environ,
        "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
        "NO_COLOR": "1",
    }
    env.pop("HOTATO_DEBUG", None)
    for step in steps:
        where = f"{doc.name}:{step.line}"
        if isinstance(step, FileBlock):
            path = folder / step.path
            if step.mode == "file":
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(step.content, encoding="utf-8")
            else:
                assert path.read_text(encoding="utf-8") == step.content, f"{where}: {step.path}"
            continue
        ran = subprocess.run(
            ["bash", "-c", step.text],
            cwd=folder,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        printed = ran.stdout + ran.stderr
        assert ran.returncode == step.exit, f"{where}: {step.text}\n{printed}"
        missing = in_order(step.expected, printed)
        assert missing is None, f"{where}: {step.text}\nnot printed: {missing!r}\n{printed}"
