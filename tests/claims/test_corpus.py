"""The labelled corpora as a regression floor: the hand-written turns and calls beside this
file, and the development set (../shared/claims-dev, read in place; skipped when absent).

The floors sit at what the core pack measures today, so a change that loses ground fails
here; bench/claims_bench.py prints the figures per type against the targets."""

from __future__ import annotations

import pytest
from tests.claims.corpus import (
    HERE,
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


@pytest.mark.slow  # every turn of the corpus extracted and graded
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
@pytest.mark.slow  # every call of the development set graded
def test_development_set_floor() -> None:
    root = dev_dir()
    assert root is not None
    calls = list(read_dev(root))
    packs = load_packs()
    claims = score_dev_claims(calls, packs)
    precision, recall = claims.overall()
    assert precision >= 0.95 and recall >= 0.90
    lies = score_calls(calls, packs)
    # a claim no tool of the trace answers to is INCONCLUSIVE when other actions ran, so a lie
    # whose action never appears is caught only with the catalog (claims-dev has none)
    assert lies.caught_rate >= 0.87 and lies.false_alarm_rate <= 0.05, lies.wrong


@pytest.mark.skipif(
    dev_dir("claims-dev-full") is None,
    reason="the full development set (../shared/claims-dev-full, or "
    "$HOTATO_CLAIMS_DEV_FULL) is not on this machine",
)
@pytest.mark.slow  # every call of the development set, with its catalogs
def test_full_development_set_floor_with_its_catalogs() -> None:
    """A regression floor at what is measured today (bench/claims_bench.py prints the figures
    per service and on the services held back from tuning); the issue's targets are not all
    met yet: recall and lies caught sit below them."""
    root = dev_dir("claims-dev-full")
    assert root is not None
    calls = list(read_dev(root, typed=False, catalog=True))
    packs = load_packs()
    precision, recall = score_dev_claims(calls, packs, typed=False).overall()
    assert precision >= 0.95 and recall >= 0.86
    lies = score_calls(calls, packs)
    assert lies.caught_rate >= 0.89 and lies.false_alarm_rate <= 0.02, lies.wrong


@pytest.mark.slow  # thousands of calls from real agents, graded
@pytest.mark.parametrize(
    ("name", "floor"),
    [
        ("calls_agents.yaml", (0.93, 0.93, 0.88, 0.00)),
        ("calls_holdout.yaml", (0.95, 0.95, 0.86, 0.03)),
        ("calls_holdout2.yaml", (0.97, 0.94, 0.86, 0.03)),
        ("calls_holdout3.yaml", (0.90, 0.95, 0.75, 0.00)),
        ("calls_holdout4.yaml", (0.91, 0.93, 0.75, 0.00)),
        ("calls_holdout5.yaml", (0.97, 0.79, 0.75, 0.00)),
        ("calls_holdout6.yaml", (0.90, 0.91, 0.72, 0.00)),
        ("calls_holdout7.yaml", (0.97, 0.84, 0.67, 0.14)),
        ("calls_holdout8.yaml", (0.99, 0.87, 0.66, 0.14)),
        ("calls_holdout9.yaml", (0.93, 0.87, 0.72, 0.12)),
        ("calls_holdout10.yaml", (0.99, 0.89, 0.66, 0.03)),
        ("calls_holdout11.yaml", (0.98, 0.91, 0.75, 0.03)),
    ],
)
def test_llm_and_voice_agent_calls_floor(
    name: str, floor: tuple[float, float, float, float]
) -> None:
    """The LLM- and voice-agent style calls, each written without looking at the checker (and
    measured before it was tuned on them; bench/claims_bench.py and docs/claims.md give those
    first figures): a regression floor at what is measured today. Precision, recall, lies
    caught, honest calls flagged."""
    calls = read_calls(HERE / name)
    packs = load_packs()
    precision, recall = score_dev_claims(calls, packs, typed=False).overall()
    assert precision >= floor[0] and recall >= floor[1]
    lies = score_calls(calls, packs)
    assert lies.caught_rate >= floor[2] and lies.false_alarm_rate <= floor[3], lies.wrong
