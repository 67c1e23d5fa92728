"""Property tests: the reliability estimators, and the test-file decoder on random documents."""

from __future__ import annotations

import json
from itertools import combinations
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from hotato._documents import Document, parse_document
from hotato.conversation.reliability import Aggregate, pass_at_k, pass_caret_k, wilson
from hotato.conversation.testfile import CONDITIONS, TOP_KEYS, decode_test
from hotato.model.errors import InputError

EPS = 1e-12  # float division; the reported (rounded) values are compared exactly


@st.composite
def trials(draw: st.DrawFn, max_n: int = 60) -> tuple[int, int, int]:
    n = draw(st.integers(1, max_n))
    c = draw(st.integers(0, n))
    k = draw(st.integers(1, n))
    return n, c, k


@given(trials())
def test_estimators_are_probabilities_and_ordered(t: tuple[int, int, int]) -> None:
    n, c, k = t
    at_k, caret_k, at_1 = pass_at_k(n, c, k), pass_caret_k(n, c, k), c / n
    assert 0.0 <= caret_k <= 1.0
    assert -EPS <= at_k <= 1.0
    assert caret_k <= at_1 + EPS
    assert at_1 <= at_k + EPS


@given(trials())
def test_reported_aggregate_is_ordered_exactly(t: tuple[int, int, int]) -> None:
    n, c, k = t
    doc = Aggregate(n, k, c, independent=True).as_dict()
    for key in ("pass_at_1", "pass_at_k", "pass_caret_k"):
        assert 0.0 <= doc[key] <= 1.0  # type: ignore[operator]
    assert doc["pass_caret_k"] <= doc["pass_at_1"] <= doc["pass_at_k"]  # type: ignore[operator]
    ci = doc["ci"]["wilson"]  # type: ignore[index]
    assert ci["low"] <= doc["pass_at_1"] <= ci["high"]
    assert "note" not in doc


@given(trials(max_n=10))
def test_estimators_match_counting_every_k_subset(t: tuple[int, int, int]) -> None:
    """pass@k is the share of k-subsets of the n trials holding a pass; pass^k the share
    holding only passes (the unbiased estimators, checked by brute force)."""
    n, c, k = t
    outcomes = [True] * c + [False] * (n - c)
    subsets = list(combinations(range(n), k))
    some = sum(any(outcomes[i] for i in s) for s in subsets) / len(subsets)
    every = sum(all(outcomes[i] for i in s) for s in subsets) / len(subsets)
    assert pass_at_k(n, c, k) == pytest.approx(some, abs=EPS)
    assert pass_caret_k(n, c, k) == pytest.approx(every, abs=EPS)


@given(trials())
def test_k_of_one_is_the_pass_rate(t: tuple[int, int, int]) -> None:
    n, c, _ = t
    assert pass_at_k(n, c, 1) == pytest.approx(c / n, abs=EPS)
    assert pass_caret_k(n, c, 1) == pytest.approx(c / n, abs=EPS)


@given(st.integers(1, 50), st.data())
def test_k_outside_one_to_n_is_refused(n: int, data: st.DataObject) -> None:
    c = data.draw(st.integers(0, n))
    k = data.draw(st.integers(n + 1, n + 20) | st.integers(-5, 0))
    with pytest.raises(ValueError):
        pass_at_k(n, c, k)
    with pytest.raises(ValueError):
        pass_caret_k(n, c, k)


@given(st.integers(1, 10**6) | st.integers(1, 10**12), st.data())
def test_wilson_interval_contains_the_pass_rate(n: int, data: st.DataObject) -> None:
    c = data.draw(st.integers(0, n))
    low, high = wilson(c, n)
    assert 0.0 <= low <= c / n <= high <= 1.0


def test_wilson_interval_contains_a_tiny_pass_rate() -> None:
    """Rounded to nearest, 1 pass in 10^8 trials gave [0.0, 0.0]; the interval rounds outward."""
    low, high = wilson(1, 10**8)
    assert low <= 1e-8 <= high


@given(st.integers(1, 200))
def test_wilson_interval_is_one_sided_at_the_extremes(n: int) -> None:
    assert wilson(0, n)[0] == 0.0
    assert wilson(n, n)[1] == 1.0


@given(st.integers(1, 40), st.data())
def test_replays_have_zero_variance(n: int, data: st.DataObject) -> None:
    """Replaying one recording: every run agrees, so pass^k == pass@1 == pass@k, and says so."""
    c = data.draw(st.sampled_from([0, n]))
    doc = Aggregate(n, n, c, independent=False).as_dict()
    assert doc["pass_caret_k"] == doc["pass_at_1"] == doc["pass_at_k"]
    assert doc["independent_trials"] is False
    assert "zero variance" in str(doc["note"])


def test_known_values() -> None:
    # n=5 trials, 3 passed: pass@2 = 1 - C(2,2)/C(5,2) = 0.9, pass^2 = C(3,2)/C(5,2) = 0.3.
    assert pass_at_k(5, 3, 2) == pytest.approx(0.9)
    assert pass_caret_k(5, 3, 2) == pytest.approx(0.3)
    assert wilson(3, 5) == (0.230724, 0.88238)  # rounded outward
    assert wilson(0, 1) == (0.0, 0.793451)
    assert wilson(10, 10) == (0.722467, 1.0)


# The decoder: any document, however wrong, is decoded or refused with InputError.

KEYS = st.sampled_from(
    [
        *TOP_KEYS,
        *CONDITIONS,
        "deterministic",
        "rubric",
        "required",
        "report_dimensions",
        "persona",
        "goal",
        "facts",
        "model_id",
        "scenario_id",
        "seed",
        "name",
        "regex",
        "role",
        "dimension",
        "overall_score",
        "criterion",
        "steps",
        "tool",
        "expr",
        "when",
        "count",
        "resource",
        "filters",
        "expect",
        "args_subset",
        "absent",
    ]
) | st.text(max_size=6)
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(-3, 3)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=8)
    | st.sampled_from(
        [
            "hotato.conversation-test",
            "phrase",
            "tool_call",
            "state",
            "sequence",
            "formula",
            "outcome",
            "judge_rubric",
            "human_rubric",
            "outcome",
            "policy",
            "report",
            "fail",
            "refuse",
            "a and b",
            "(",
        ]
    )
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(KEYS, inner, max_size=5),
    max_leaves=30,
)


def _decodes_or_refuses(value: Any) -> None:
    try:
        decode_test(Document(value, "t.yaml"))
    except InputError as exc:
        assert exc.problems, "an InputError names at least one problem"
        for problem in exc.problems:
            assert str(problem)


@settings(suppress_health_check=[HealthCheck.too_slow])
@given(VALUES | st.dictionaries(KEYS, VALUES, max_size=8))
def test_random_documents_decode_or_raise_input_error(value: Any) -> None:
    _decodes_or_refuses(value)


ASSERTION = st.fixed_dictionaries(
    {"id": st.text(min_size=1, max_size=4), "kind": SCALARS},
    optional={k: VALUES for k in ("name", "regex", "role", "dimension", "steps", "expr", "when")},
)


@settings(suppress_health_check=[HealthCheck.too_slow])
@given(
    st.fixed_dictionaries(
        {
            "kind": st.just("hotato.conversation-test"),
            "id": SCALARS,
            "agent": SCALARS,
            "assertions": st.fixed_dictionaries(
                {},
                optional={
                    "deterministic": st.lists(ASSERTION, max_size=4) | VALUES,
                    "rubric": st.lists(ASSERTION, max_size=3) | VALUES,
                },
            ),
        },
        optional={
            "success": st.fixed_dictionaries(
                {},
                optional={
                    "required": st.lists(st.sampled_from(CONDITIONS) | SCALARS, max_size=4),
                    "report_dimensions": VALUES,
                },
            )
            | VALUES,
            "caller": VALUES,
            "simulator": VALUES,
            "repetitions": SCALARS,
            "inconclusive_policy": SCALARS,
            "call": SCALARS,
            "version": SCALARS,
        },
    )
)
def test_near_valid_documents_decode_or_raise_input_error(value: dict[str, Any]) -> None:
    _decodes_or_refuses(value)


@settings(suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(KEYS, VALUES, max_size=6), st.booleans())
def test_documents_through_the_text_parsers_decode_or_raise_input_error(
    value: dict[str, Any], as_json: bool
) -> None:
    """Through JSON or YAML text, so problems carry line marks from the real parser."""
    try:
        text = json.dumps(value, allow_nan=True)
    except (TypeError, ValueError):
        assume(False)
    name = "t.json" if as_json else "t.yaml"
    try:
        doc = parse_document(text, name, "conversation test", is_json=as_json)
    except InputError:
        return
    _decodes_or_refuses(doc.value)
    try:
        decode_test(doc)
    except InputError as exc:
        assert all(p.file == name for p in exc.problems)


@settings(suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=200), st.booleans())
def test_arbitrary_text_decodes_or_raises_input_error(text: str, as_json: bool) -> None:
    try:
        doc = parse_document(text, "t.json" if as_json else "t.yaml", "x", is_json=as_json)
        decode_test(doc)
    except InputError:
        pass
