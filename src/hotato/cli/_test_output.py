"""`hotato test run --junit FILE`: checked before anything runs, written after."""

from __future__ import annotations

from hotato.runs.outcome import Graded


def check_junit(path: str | None) -> None:
    """Refuse a --junit that cannot be written before anything runs or is written."""
    from hotato.cli._pages import check_target

    check_target(path, "--junit")


def write_junit(path: str | None, items: list[Graded]) -> None:
    if path is None:
        return
    from hotato._io import write_atomic
    from hotato.cli.renderers.junit import junit_text

    write_atomic(path, junit_text(items).encode())
