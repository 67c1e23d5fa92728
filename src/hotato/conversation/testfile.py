"""`hotato.conversation-test` v1 files: decoded, validated with located messages, or refused."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

from hotato._documents import Document, load_document
from hotato.engine.loader import overall_score_problem
from hotato.kinds import REGISTRY
from hotato.kinds._base import Spec
from hotato.kinds._decode import decode_assertion_list, decode_policy, did_you_mean
from hotato.kinds._refs import entries_of, reference_problems
from hotato.model.errors import InputError, Problem
from hotato.model.status import DIMENSIONS, Policy

KIND = "hotato.conversation-test"
CONDITIONS = (
    "all_deterministic_assertions_pass",
    "no_deterministic_fail",
    "no_rubric_failure",
    "no_inconclusive",
    "no_unresolved_inconclusive",
)
RUBRIC_KINDS = ("judge_rubric", "human_rubric")
TOP_KEYS = [
    "kind",
    "version",
    "id",
    "agent",
    "description",
    "caller",
    "environment",
    "scenario",
    "assertions",
    "success",
    "inconclusive_policy",
    "repetitions",
    "simulator",
    "call",
]
CALLER_KEYS = ["persona", "goal", "facts"]
SIMULATOR_KEYS = ["model_id", "scenario_id", "seed"]
SUCCESS_KEYS = ["required", "report_dimensions"]


@dataclass
class ConversationTest:
    id: str
    agent: str
    file: str
    deterministic: list[Spec]
    rubric: list[Spec]
    required: list[str]
    report_dimensions: list[str]
    policy: Policy | None = None
    repetitions: int = 1
    caller: dict[str, Any] = field(default_factory=dict)
    simulator: dict[str, Any] | None = None
    call: str | None = None  # a call folder named by the test, relative to the file


def _keys(
    doc: Document, value: Any, path: str, allowed: list[str], problems: list[Problem]
) -> None:
    if not isinstance(value, dict):
        return
    for key in value:
        if key not in allowed and key != "overall_score":  # refused on its own, once
            problems.append(
                doc.problem(f"{path}.{key}", f"unknown key {key!r}{did_you_mean(key, allowed)}")
            )


def _strings(
    doc: Document, value: Any, path: str, vocab: tuple[str, ...], what: str, problems: list[Problem]
) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        problems.append(doc.problem(path, f"{what} must be a list of strings"))
        return []
    for i, item in enumerate(value):
        if item not in vocab:
            problems.append(
                doc.problem(
                    f"{path}[{i}]",
                    f"unknown {what} {item!r}"
                    f"{did_you_mean(item, list(vocab))} (one of: {', '.join(vocab)})",
                )
            )
    return [v for v in value if v in vocab]


def decode_test(doc: Document) -> ConversationTest:
    v = doc.value
    if not isinstance(v, dict):
        raise InputError([doc.problem("$", "a conversation test must be a mapping")])
    problems: list[Problem] = []
    score = overall_score_problem(doc)
    if score:
        problems.append(score)
    _keys(doc, v, "$", TOP_KEYS, problems)
    if v.get("kind", KIND) != KIND:
        problems.append(doc.problem("$.kind", f"expected kind {KIND!r}, got {v.get('kind')!r}"))
    if v.get("version", 1) != 1:
        problems.append(
            doc.problem("$.version", f"unsupported version {v.get('version')!r}; expected 1")
        )
    for key in ("id", "agent"):
        if not isinstance(v.get(key), str) or not v.get(key):
            problems.append(doc.problem("$", f"{key!r} is required and must be a non-empty string"))
    _keys(doc, v.get("caller"), "$.caller", CALLER_KEYS, problems)
    simulator = v.get("simulator")
    _keys(doc, simulator, "$.simulator", SIMULATOR_KEYS, problems)
    if simulator is not None and not isinstance(simulator, dict):
        problems.append(doc.problem("$.simulator", "'simulator' must be a mapping"))
    reps = v.get("repetitions", 1)
    if isinstance(reps, bool) or not isinstance(reps, int) or reps < 1:
        problems.append(
            doc.problem("$.repetitions", "'repetitions' must be a whole number, at least 1")
        )
    policy, found = decode_policy(v.get("inconclusive_policy"), "$.inconclusive_policy", doc)
    problems += found
    deterministic, rubric = _assertions(doc, v.get("assertions"), problems)
    success = v.get("success", {})
    if not isinstance(success, dict):
        problems.append(doc.problem("$.success", "'success' must be a mapping"))
        success = {}
    _keys(doc, success, "$.success", SUCCESS_KEYS, problems)
    required = _strings(
        doc,
        success.get("required", ["all_deterministic_assertions_pass"]),
        "$.success.required",
        CONDITIONS,
        "condition",
        problems,
    )
    dims = _strings(
        doc,
        success.get("report_dimensions", list(DIMENSIONS)),
        "$.success.report_dimensions",
        DIMENSIONS,
        "dimension",
        problems,
    )
    call = v.get("call")
    if call is not None and not isinstance(call, str):
        problems.append(doc.problem("$.call", "'call' must be a folder path"))
    if problems:
        raise InputError(problems)
    return ConversationTest(
        id=v["id"],
        agent=v["agent"],
        file=doc.file,
        deterministic=deterministic,
        rubric=rubric,
        required=required,
        report_dimensions=dims,
        policy=policy,
        repetitions=reps,
        caller=v.get("caller") or {},
        simulator=simulator,
        call=call,
    )


def _assertions(
    doc: Document, value: Any, problems: list[Problem]
) -> tuple[list[Spec], list[Spec]]:
    if value is None:
        problems.append(
            doc.problem("$", "'assertions' is required ({deterministic: [...], rubric: [...]})")
        )
        return [], []
    if not isinstance(value, dict):
        problems.append(
            doc.problem(
                "$.assertions",
                "'assertions' must be a mapping with 'deterministic' and 'rubric' lists",
            )
        )
        return [], []
    _keys(doc, value, "$.assertions", ["deterministic", "rubric"], problems)
    det, found = decode_assertion_list(
        value.get("deterministic", []), "$.assertions.deterministic", doc, REGISTRY
    )
    problems += found
    rub, found = decode_assertion_list(
        value.get("rubric", []), "$.assertions.rubric", doc, REGISTRY
    )
    problems += found
    for i, spec in enumerate(det):
        if _tag(spec) in RUBRIC_KINDS:
            problems.append(
                doc.problem(
                    f"$.assertions.deterministic[{i}]",
                    f"{_tag(spec)} belongs in assertions.rubric: no model or "
                    "person decides a deterministic result",
                )
            )
    for i, spec in enumerate(rub):
        if _tag(spec) not in RUBRIC_KINDS:
            problems.append(
                doc.problem(
                    f"$.assertions.rubric[{i}]", f"{_tag(spec)} belongs in assertions.deterministic"
                )
            )
    ids = [s.id for s in det]
    for i, spec in enumerate(rub):
        if spec.id in ids:
            problems.append(doc.problem(f"$.assertions.rubric[{i}]", f"duplicate id {spec.id!r}"))
    entries = entries_of(value.get("deterministic", []), "$.assertions.deterministic", det)
    entries += entries_of(value.get("rubric", []), "$.assertions.rubric", rub)
    problems += reference_problems(entries, doc, REGISTRY)
    return det, rub


def _tag(spec: Spec) -> str:
    return str(spec.__struct_config__.tag)


def load_test(path: str | os.PathLike[str]) -> ConversationTest:
    """A conversation test file (hotato.conversation-test v1), decoded and checked; InputError,
    located at file:line and JSON path, when it is refused."""
    return decode_test(load_document(path, "conversation test"))
