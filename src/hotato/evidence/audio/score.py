"""Scoring a recording into the timing document."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from hotato.evidence.audio import compat, echo, gate, vad
from hotato.evidence.audio.decode import Recording, decode
from hotato.evidence.audio.document import (
    envelope,
    event,
    unscorable_event,
)
from hotato.evidence.audio.events import Timeline
from hotato.evidence.audio.figures import whole_call
from hotato.evidence.audio.layouts import LAYOUTS, Layout
from hotato.evidence.audio.rises import split_at_rises
from hotato.evidence.audio.rule import Rule
from hotato.evidence.audio.standout import near_loudest, stand_out
from hotato.evidence.audio.tracks import (
    Runs,
    absorb_fragments,
    backtrack,
    bridge,
    bridge_unquiet,
    speech_runs,
    to_track,
    with_edges,
)
from hotato.evidence.audio.voicing import keep_voiced, voicing
from hotato.model.errors import UsageError

if TYPE_CHECKING:
    import numpy as np

COMPAT = ("1.20",)


@dataclass(frozen=True)
class Options:
    layout: str = "caller-left"
    vad: str = "webrtc"
    onset: float | None = None
    compat: str | None = None
    rule: Rule = field(default_factory=Rule)


def _sha256(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _check(opts: Options) -> Layout:
    if opts.layout not in LAYOUTS:
        raise UsageError.one(f"unknown layout {opts.layout!r} (one of {', '.join(LAYOUTS)})")
    if opts.vad not in vad.NAMES:
        raise UsageError.one(f"unknown VAD {opts.vad!r} (one of {', '.join(vad.NAMES)})")
    if opts.compat is not None and opts.compat not in COMPAT:
        raise UsageError.one(f"unknown compat {opts.compat!r} (one of {', '.join(COMPAT)})")
    if opts.onset is not None and opts.onset < 0:
        raise UsageError.one("--onset must be zero or more seconds")
    return LAYOUTS[opts.layout]


def _raw(rec: Recording, channel: int, level: vad.Energy, opts: Options) -> np.ndarray:
    """Per-frame speech decision of one channel: the detector's, on frames that stand
    `level_margin_db` over the channel's floor, each such run extended over the detector's
    frames that stand `edge_margin_db` over it (a word's weak start and end under noise)."""
    if opts.vad == "energy" or opts.compat is not None:
        out: np.ndarray = level.db >= level.threshold_db
        return out
    n = len(level.db)
    edge = level.db >= level.floor_db + min(opts.rule.edge_margin_db, opts.rule.level_margin_db)
    loud = level.db >= level.floor_db + opts.rule.level_margin_db
    if opts.vad == "webrtc":
        det = vad.webrtc_active(rec, channel, where=edge)
    else:
        det = vad.silero_active(rec, channel)
    det = det[:n]
    out = with_edges(det & loud, det & edge)
    return out


def _caller_runs(
    raw: np.ndarray,
    db: np.ndarray,
    sound: np.ndarray,
    hop: float,
    rule: Rule,
    floor_db: float,
    voice: Callable[[np.ndarray], np.ndarray] | None = None,
) -> Runs:
    """The caller's speech runs: the detector's runs bridged, a short fragment joined to the
    run it trails (or dropped), runs that do not stand out of the noise around them dropped,
    each start moved back over the `sound` just before it (a weak first syllable), and a run
    split where speech rises out of a steady background the detector took for speech."""
    runs = speech_runs(
        raw,
        bridge_frames=round(rule.bridge_sec / hop),
        min_frames=max(1, round(rule.min_run_sec / hop)),
    )
    runs = absorb_fragments(
        runs, round(rule.fragment_sec / hop), round(rule.fragment_join_sec / hop)
    )
    runs = bridge_unquiet(
        runs, db, floor_db + rule.unquiet_db, round(rule.unquiet_bridge_sec / hop)
    )
    moved: frozenset[int] = frozenset()
    if voice is not None and rule.voiced_level > 0:
        # a frame standing far over the channel's floor needs no voice to be speech
        sure = db >= floor_db + rule.sure_db
        v = voice(to_track(runs, len(raw)) & ~sure)
        v[sure] = 1.0
        runs, moved = keep_voiced(
            runs,
            v,
            rule.voiced_level,
            max(1, round(rule.voiced_min_sec / hop)),
            round(rule.voice_gap_sec / hop),
            round(rule.voice_lead_sec / hop),
            round(rule.voice_tail_sec / hop),
            round(rule.voice_before_sec / hop),
            rule.voiced_strong,
        )
        runs = near_loudest(runs, db, rule.loudest_within_db, sure)
        runs = bridge(runs, round(rule.voice_bridge_sec / hop))
    runs = stand_out(runs, db, rule.stand_out_db, round(rule.surround_sec / hop))
    runs = backtrack(runs, sound, round(rule.onset_backtrack_sec / hop), moved)
    return split_at_rises(
        runs,
        db,
        rule.rise_db,
        round(rule.rise_steady_sec / hop),
        rule.rise_flat_db,
        round(rule.rise_ahead_sec / hop),
    )


def score_recording(path: str | os.PathLike[str], opts: Options | None = None) -> dict[str, Any]:
    """The timing document of the recording at `path` (InputError when it cannot be
    decoded; an unscorable recording is a document whose one event says why)."""
    opts = opts or Options()
    lay = _check(opts)
    name = str(path)
    rec = decode(name)
    recording: dict[str, Any] = {
        "file": os.path.basename(name),
        "sha256": _sha256(name),
        "format": rec.format,
        "subtype": rec.subtype,
        "sample_rate": rec.rate,
        "channels": rec.channels,
        "duration_sec": round(rec.duration_sec, 3),
        "layout": opts.layout,
        "caller_channel": lay.caller,
        "agent_channel": lay.agent,
        "vad": "energy" if opts.compat else opts.vad,
        "rule": "hotato-1.20" if opts.compat else "sustained-quiet",
    }
    reason = gate.channel_count_reason(rec.channels)
    if reason is None and max(lay.caller, lay.agent) >= rec.channels:
        raise UsageError.one(
            f"layout {opts.layout!r} needs {max(lay.caller, lay.agent) + 1} channels"
        )
    if reason is not None:
        return envelope(recording, [unscorable_event(reason)], reason)
    caller_x, agent_x = rec.samples[:, lay.caller], rec.samples[:, lay.agent]
    caller_lv, agent_lv = vad.energy(caller_x, rec.rate), vad.energy(agent_x, rec.rate)
    reason = (
        gate.silent_reason("caller", caller_lv.db)
        or gate.silent_reason("agent", agent_lv.db)
        or gate.copies_reason(caller_x[::5], agent_x[::5])
    )
    if reason is not None:
        return envelope(recording, [unscorable_event(reason)], reason)
    hop = caller_lv.hop_sec
    n = min(len(caller_lv.db), len(agent_lv.db))
    agent_raw = _raw(rec, lay.agent, agent_lv, opts)[:n]
    caller_raw = _raw(rec, lay.caller, caller_lv, opts)[:n]
    if opts.compat is not None:
        return _compat_document(recording, caller_raw, agent_raw, hop, opts)
    found = echo.estimate(caller_lv.db[:n], agent_lv.db[:n], agent_raw, caller_x, agent_x, rec.rate)
    not_echo = echo.mask(caller_lv.db[:n], agent_lv.db[:n], found)
    caller_raw = caller_raw & not_echo
    # frames standing over the floor, echo aside: where a word's weak start may sit
    sound = (caller_lv.db[:n] >= caller_lv.floor_db + opts.rule.level_margin_db) & not_echo
    rule = opts.rule
    bridge = round(rule.bridge_sec / hop)
    tl = Timeline(
        _caller_runs(
            caller_raw,
            caller_lv.db[:n],
            sound,
            hop,
            rule,
            caller_lv.floor_db,
            (lambda where: voicing(caller_x, rec.rate, where)) if opts.vad == "webrtc" else None,
        ),
        speech_runs(
            agent_raw, bridge_frames=bridge, min_frames=max(1, round(rule.agent_min_run_sec / hop))
        ),
        n,
        hop,
        rule,
    )
    if not tl.caller:
        reason = "the caller channel holds no speech the detector found"
        return envelope(recording, [unscorable_event(reason)], reason)
    onsets = [round(opts.onset / hop)] if opts.onset is not None else tl.onsets()
    scored = [tl.score(min(o, n - 1)) for o in onsets]
    events = [event(ev, tl, found, opts.onset) for ev in scored]
    events[0]["call"] = whole_call(tl, scored)
    return envelope(recording, events, None)


def _compat_document(
    recording: dict[str, Any],
    caller_raw: np.ndarray,
    agent_raw: np.ndarray,
    hop: float,
    opts: Options,
) -> dict[str, Any]:
    c, a = compat.tracks(caller_raw, hop), compat.tracks(agent_raw, hop)
    r = compat.score(c, a, hop, opts.onset)
    if r["onset"] is None:
        reason = "no caller onset was detected"
        return envelope(recording, [unscorable_event(reason)], reason)
    signals: dict[str, Any] = {
        "barge_in": {
            "did_yield": r["did_yield"],
            "time_to_yield_sec": r["time_to_yield"],
            "talk_over_sec": r["talk_over"],
        },
        "latency": {"response_gap_sec": r["gap"], "premature_start_sec": r["premature"]},
    }
    ev = {
        "event_id": f"onset-{r['onset']:.2f}",
        "onset_sec": r["onset"],
        "verdict": {
            "did_yield": r["did_yield"],
            "seconds_to_yield": r["time_to_yield"],
            "talk_over_sec": r["talk_over"],
        },
        "measurements": {
            "caller_onset_sec": r["onset"],
            "detected_caller_onset_sec": r["detected"],
            "onset_requested_sec": opts.onset,
            "agent_talking_at_onset": r["talking"],
            "hop_sec": hop,
            "notes": "" if r["talking"] else "agent was not speaking at caller onset",
        },
        "signals": signals,
    }
    return envelope(recording, [ev], None)
