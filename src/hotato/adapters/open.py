"""`--state SOURCE` and `--state-before FILE` into a StateSource."""

from __future__ import annotations

from hotato._io import check_readable
from hotato.adapters.sandbox import load_sandbox
from hotato.model.state import StateSource


def open_state(source: str, before: str | None = None) -> StateSource:
    """Open a state source. Today: a JSON sandbox file."""
    check_readable(source, "state")
    after, sandbox_before = load_sandbox(source)
    before_reader = sandbox_before
    if before is not None:
        before_reader, _ = load_sandbox(before)
    return StateSource(after=after, before=before_reader, description=f"sandbox {source}")
