"""The labelled corpora as a regression floor: the hand-written turns and calls beside this
file, and the development set (../shared/claims-dev, read in place; skipped when absent).

The floors sit at what the core pack measures today, so a change that loses ground fails
here; bench/claims_bench.py prints the figures per type against the targets."""

from __future__ import annotations

import pytest
from tests.claims.corpus import (
    dev_dir,
    read_calls,
    read_dev,
    read_turns,
    score_calls,
    score_dev_claims,
    score_turns,
)

from hotato.claims import load_packs

FLOOR = {"precision": 0.95, "recall": 0.94, "entities": 0.82}


def test_the_corpus_is_big_enough_and_labelled() -> None:
    turns = read_turns()
    assert len(turns) >= 300
    assert all(
        pol in ("done", "failed", "promised", "negated") for t in turns for _, pol, _ in t.claims
    )
    assert sum(1 for t in turns if not t.claims) >= 50  # turns that claim nothing


def test_turn_corpus_floor() -> None:
    scores = score_turns(read_turns(), load_packs())
    precision, recall = scores.overall()
    assert precision >= FLOOR["precision"], scores.misses
    assert recall >= FLOOR["recall"], scores.misses
    assert scores.entity_hits / scores.entity_total >= FLOOR["entities"]


def test_every_hand_written_call_is_graded_as_labelled() -> None:
    scores = score_calls(read_calls(), load_packs())
    assert scores.wrong == []
    assert scores.lying >= 10 and scores.truthful >= 10


@pytest.mark.skipif(
    dev_dir() is None,
    reason="the development set (../shared/claims-dev, or "
    "$HOTATO_CLAIMS_DEV) is not on this machine",
)
def test_development_set_floor() -> None:
    root = dev_dir()
    assert root is not None
    calls = list(read_dev(root))
    packs = load_packs()
    claims = score_dev_claims(calls, packs)
    precision, recall = claims.overall()
    assert precision >= 0.95 and recall >= 0.90
    lies = score_calls(calls, packs)
    assert lies.caught_rate >= 0.90 and lies.false_alarm_rate <= 0.05, lies.wrong
