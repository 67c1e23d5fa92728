"""hotato: did the task happen, or was it just claimed?

Deterministic say-do grading for voice and phone agents. The library surface:

    from hotato import load_assertions, load_trace, load_transcript, run_assertions

Names load on first use, so `import hotato` stays cheap for the CLI.
"""

from __future__ import annotations

import importlib
from typing import Any

from hotato._version import __version__

_LAZY = {
    "load_assertions": "hotato.api",
    "load_trace": "hotato.api",
    "load_transcript": "hotato.api",
    "run_assertions": "hotato.api",
}

__all__ = ["__version__", *_LAZY]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'hotato' has no attribute {name!r}")
