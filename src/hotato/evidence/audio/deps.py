"""The optional audio libraries, imported only when a recording is scored."""

from __future__ import annotations

import importlib
from types import ModuleType

from hotato.model.errors import UsageError

# module -> the extra that installs it
EXTRA = {
    "numpy": "audio",
    "soundfile": "audio",
    "soxr": "audio",
    "webrtcvad": "audio",
    "onnxruntime": "audio-silero",
}


def need(module: str) -> ModuleType:
    """The module, or a UsageError saying which extra to install."""
    try:
        return importlib.import_module(module)
    except ImportError:
        extra = EXTRA.get(module, "audio")
        raise UsageError.one(
            f"scoring a recording needs {module!r}: pip install 'hotato[{extra}]'"
        ) from None
