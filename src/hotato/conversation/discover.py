"""The one rule for finding conversation tests in a folder, used by `test run DIR`,
`scenario validate DIR`, the library's `run_suite` and the pytest plugin.

A test is a `.yaml`, `.yml` or `.json` file anywhere under the folder (hidden files and folders
skipped) whose text names `hotato.conversation-test`; they come in path order."""

from __future__ import annotations

from pathlib import Path

TEST_SUFFIXES = (".yaml", ".yml", ".json")
MARK = "hotato.conversation-test"


def is_test_file(path: Path) -> bool:
    """A file with a test's suffix whose text names the conversation-test kind."""
    if path.suffix.lower() not in TEST_SUFFIXES or not path.is_file():
        return False
    try:
        return MARK in path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False


def find_tests(folder: str | Path) -> list[Path]:
    """Every conversation test under `folder`, in path order."""
    root = Path(folder)
    return sorted(
        p
        for p in root.rglob("*")
        if not any(part.startswith(".") for part in p.relative_to(root).parts) and is_test_file(p)
    )
