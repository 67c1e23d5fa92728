"""hotato: did the task happen, or was it just claimed?

Deterministic say-do grading for voice and phone agents. The public library surface:

    from hotato import run_assertions, load_assertions, load_trace, load_transcript
"""

from hotato._version import __version__
from hotato.api import load_assertions, load_trace, load_transcript, run_assertions

__all__ = [
    "__version__",
    "load_assertions",
    "load_trace",
    "load_transcript",
    "run_assertions",
]
