"""Recorded calls on disk: a folder holding any of transcript.json, trace.jsonl, state.json,
timing.json and audio."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from hotato.model.errors import InputError

AUDIO_SUFFIXES = (".wav", ".mp3", ".flac", ".ogg", ".opus", ".m4a", ".webm")
TRACE_NAMES = ("trace.jsonl", "voice_trace.jsonl", "trace.json", "trace.otlp.json", "trace.pb")


@dataclass(frozen=True)
class CallFiles:
    folder: str
    transcript: str | None = None
    trace: str | None = None
    state: str | None = None
    audio: str | None = None
    timing: str | None = None  # measured timing (hotato.evidence.timing), bound as `timing`
    # False (a call folder's state.json): evidence, opened as data only (a sandbox or SQLite
    # file). True: `state` was given on the command line or by the library's caller, and may be
    # an adapter that reaches a database or the network (see hotato.adapters.open).
    state_configured: bool = False

    @property
    def empty(self) -> bool:
        return not (self.transcript or self.trace or self.state or self.audio or self.timing)


def call_files(folder: str | Path) -> CallFiles:
    base = Path(folder)
    if not base.is_dir():
        raise InputError.one("call folder does not exist", file=str(folder))

    def first(names: tuple[str, ...]) -> str | None:
        return next((str(base / n) for n in names if (base / n).is_file()), None)

    audio = next(
        (
            str(p)
            for p in sorted(base.iterdir())
            if p.is_file() and p.stem == "audio" and p.suffix.lower() in AUDIO_SUFFIXES
        ),
        None,
    )
    return CallFiles(
        str(base),
        first(("transcript.json",)),
        first(TRACE_NAMES),
        first(("state.json",)),
        audio,
        first(("timing.json",)),
    )


def trial_folders(folder: str | Path) -> list[CallFiles]:
    """Every sub-folder of `folder` holding a recorded call, in name order."""
    base = Path(folder)
    if not base.is_dir():
        raise InputError.one("--trials is not a folder", file=str(folder))
    calls = [
        call_files(p) for p in sorted(base.iterdir()) if p.is_dir() and not p.name.startswith(".")
    ]
    calls = [c for c in calls if not c.empty]
    if not calls:
        raise InputError.one(
            "the trials folder holds no recorded calls (sub-folders with "
            "transcript.json, trace.jsonl, state.json, timing.json or audio)",
            file=str(folder),
        )
    return calls
