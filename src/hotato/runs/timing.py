"""Timing from a recording, as a use case: `hotato timing score`, and the timing evidence a
graded call gets from its `--audio` when no `--timing` file is given."""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from hotato.evidence.audio import Options, score_recording
from hotato.kinds import REGISTRY
from hotato.kinds._base import Spec
from hotato.model.errors import InputError
from hotato.model.status import Source
from hotato.report.json_out import encoded

PathLike = str | os.PathLike[str]


@dataclass(frozen=True)
class TimingScore:
    """A scored recording: the timing document `--timing` reads (hotato 1.x's event names,
    one event per caller onset, the whole call under the first event's `call`)."""

    document: dict[str, Any]

    @property
    def events(self) -> list[dict[str, Any]]:
        events: list[dict[str, Any]] = self.document["events"]
        return events

    @property
    def scorable(self) -> bool:
        return not any(e.get("scorable") is False for e in self.events)

    @property
    def reason(self) -> str | None:
        """Why the recording could not be scored; None when it was."""
        for e in self.events:
            if e.get("scorable") is False:
                return str(e.get("not_scorable_reason"))
        return None

    def to_json(self) -> bytes:
        return encoded(self.document)


def score_timing(
    audio: PathLike,
    *,
    layout: str = "caller-left",
    vad: str = "webrtc",
    onset: float | None = None,
    compat: str | None = None,
) -> TimingScore:
    """Score a stereo recording into its timing document. Raises InputError when the file
    cannot be decoded and UsageError for an unknown layout / VAD, or a missing extra; a
    recording that decodes but cannot be scored (mono, a silent channel, two copies) is a
    TimingScore whose `reason` says why."""
    opts = Options(layout=layout, vad=vad, onset=onset, compat=compat)
    return TimingScore(score_recording(audio, opts))


def reads_timing(specs: Iterable[Spec]) -> bool:
    """Whether any of these assertions reads measured timing."""
    return any(Source.TIMING in REGISTRY[str(s.__struct_config__.tag)].sources(s) for s in specs)


def recorded_timing(audio: PathLike) -> TimingScore:
    """The timing of a call's recording, for grading: scored once per file (the artifact binds
    the same document); a recording that cannot be decoded or scored, or a missing audio
    extra, is an unscorable document with the reason, so its timing checks are INCONCLUSIVE."""
    key = _key(audio)
    if key not in _MADE:
        while len(_MADE) >= _KEEP:
            _MADE.pop(next(iter(_MADE)))  # the oldest: its call was graded and bound already
        _MADE[key] = _score(key[0])
    return _MADE[key]


def bound_timing(audio: PathLike) -> TimingScore | None:
    """The timing document made from `audio` by `recorded_timing` in this process (to bind
    into the artifact), or None when the recording was not scored."""
    try:
        return _MADE.get(_key(audio))
    except OSError:
        return None


_KEEP = 64
_MADE: dict[tuple[str, int, int], TimingScore] = {}


def _key(audio: PathLike) -> tuple[str, int, int]:
    path = os.path.abspath(os.fspath(audio))
    st = os.stat(path)
    return path, st.st_size, st.st_mtime_ns


def _score(path: str) -> TimingScore:
    from hotato.evidence.audio.document import envelope, unscorable_event

    try:
        return score_timing(path)
    except InputError as exc:  # UsageError too: the audio extra is not installed
        reason = "; ".join(p.message for p in exc.problems)
        recording = {"file": os.path.basename(path)}
        return TimingScore(envelope(recording, [unscorable_event(reason)], reason))
