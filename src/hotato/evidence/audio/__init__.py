"""Timing from a recording: decode a stereo call, find each side's speech, and score every
caller onset into hotato 1.x's timing events (docs/timing.md). The audio libraries are
imported only when a recording is scored (`hotato[audio]`)."""

from __future__ import annotations

from hotato.evidence.audio.layouts import LAYOUTS
from hotato.evidence.audio.rule import Rule
from hotato.evidence.audio.score import COMPAT, Options, score_recording
from hotato.evidence.audio.vad import NAMES as VADS

__all__ = ["COMPAT", "LAYOUTS", "VADS", "Options", "Rule", "score_recording"]
