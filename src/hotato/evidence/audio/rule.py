"""The settings of the turn-taking rule, in seconds. Defaults are documented in
docs/timing.md ("How speech is found", "The yield rule"); the yield rule's were tuned on the
development set's base timelines 000-005, the voice rules' on the development set and two
re-renders of it (seeds 2 and 3), never on the renders held back (docs/timing.md, "Measured")."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Rule:
    bridge_sec: float = 0.15  # a pause up to this long stays inside one run of speech
    min_run_sec: float = 0.05  # a shorter burst of caller activity is not speech
    agent_min_run_sec: float = 0.12  # a shorter agent sound (a click, a breath) ends no quiet
    lookback_sec: float = 0.10  # the agent was talking at an onset if active this close before
    search_sec: float = 3.0  # a stop is looked for this long after the caller's onset
    stop_quiet_sec: float = 1.0  # sustained quiet: a pause between sentences is shorter
    proximity_sec: float = 0.5  # the caller must hold the floor this close to the stop
    premature_tolerance_sec: float = 0.05  # an agent start this far before the caller ends
    level_margin_db: float = 10.0  # speech frames stand this far over the channel's floor
    edge_margin_db: float = 5.0  # a run that reaches level_margin_db extends over frames this loud
    fragment_sec: float = 0.10  # a shorter caller run is a word's tail, or a click
    fragment_join_sec: float = 0.30  # ... a tail when it starts this close after a run
    stand_out_db: float = 11.0  # a caller run stands this far over the quiet around it
    surround_sec: float = 1.5  # the quiet around a run: non-speech frames this far each side
    onset_backtrack_sec: float = 0.10  # a caller run starts this far earlier over sound before it
    rise_db: float = 12.0  # inside a caller run, a rise this sharp out of a steady stretch...
    rise_steady_sec: float = 0.5  # ... this long (its 90th and 10th percentile levels within
    rise_flat_db: float = 8.0  # this many dB), over the median of the next
    rise_ahead_sec: float = 0.2  # this long, starts a new run (an onset out of the noise)
    unquiet_bridge_sec: float = 0.5  # a caller pause up to this long that does not go quiet
    unquiet_db: float = 6.0  # (its median level this far over the floor) joins the runs
    voiced_level: float = 0.7  # a caller run must hold a voice: frames this periodic (0-1)
    voiced_strong: float = 0.0  # ... and at least once this periodic
    voiced_min_sec: float = 0.03  # ... for this long in a row
    voice_gap_sec: float = 0.6  # voiced spans further apart than this are separate runs
    voice_lead_sec: float = 0.15  # a run starting this much before its voice starts there
    voice_tail_sec: float = 0.25  # ... likewise its end after the voice
    voice_before_sec: float = 0.08  # else it starts this long before the voice
    sure_db: float = 50.0  # a caller frame this far over the background needs no voice
    loudest_within_db: float = 15.0  # a caller run under sure_db peaks within this of the loudest
    voice_bridge_sec: float = 0.3  # voiced caller runs this close are one run
