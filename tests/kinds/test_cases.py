"""Every assertion kind, specified by data: one runner over `tests/cases/kinds/*.yaml`.

Each case file holds examples of one kind (or one feature, such as `when.yaml`) that PASS, FAIL
and come out INCONCLUSIVE, in the spirit of sqlfluff's rule fixtures. Every `*.yaml` in that
folder is picked up, whoever wrote it.

The format (two shapes; use either):

    kind: tool_call                 # optional, documentation only
    cases:
      - name: zero-span-trace-is-a-grounded-fail
        assertion: {id: a, kind: tool_call, name: issue_refund}
        trace: []                   # the trace's spans (a meta line is added); see below
        expect: FAIL
        reason: "zero spans"        # optional: a substring of the result's reason
        observed: 0                 # optional: the result's `observed`, exactly

    # sqlfluff's shape: every top-level key other than kind / description / cases is a case
    zero-span-trace-is-a-grounded-fail:
      assertion: {...}
      ...

A case's keys:

- `assertion` (one mapping) or `assertions` (a list): what an assertions file would hold under
  `assertions:`. Optional `inconclusive_policy` and `pack` (a name, or a list) as in a run.
- Evidence. Leaving a key out, or writing `null`, means NOT SUPPLIED (law 2: INCONCLUSIVE);
  an empty list or mapping means supplied and empty.
  - `trace`: a list of span objects (`{type: tool_call, name: x, ...}`), written as a
    `hotato.voice_trace.v1` file behind a meta line and read by the real loader.
  - `transcript`: a list of turns (`{role, text}`), or any shape the transcript loader reads.
  - `state`: a JSON state sandbox, `{resource: rows}` (rows may be `{before: .., after: ..}`).
  - `state_unavailable: CAUSE`: the system of record cannot be read (every query raises
    StateUnavailable with that cause), as a refused connection or a timeout would.
- Expectation, exactly one of:
  - `expect: PASS | FAIL | INCONCLUSIVE`, about the result named by `check:` (default: the last
    assertion), or `expect: {id: STATUS, ...}` about several results; then, about the `check:`
    result only, optional `reason` (a substring without case, or a list of them), `observed`
    (exact), `skipped` (bool) and `deterministic` (bool; by default the kind's own lane);
  - `refused: "substring"`: the file is refused before anything runs (exit 2), with a message
    containing that text.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec
import pytest
import yaml

from hotato._documents import Document
from hotato.engine.evaluate import Sources
from hotato.engine.loader import decode_assertion_document
from hotato.engine.packs import merge_packs
from hotato.engine.plan import plan
from hotato.engine.run import RunOutcome, run
from hotato.evidence.trace import SCHEMA, load_trace
from hotato.evidence.transcript import parse_transcript
from hotato.kinds import REGISTRY
from hotato.model.errors import InputError
from hotato.model.results import Result
from hotato.model.state import StateSource, StateUnavailable
from hotato.model.status import Status

CASES_DIR = Path(__file__).resolve().parent.parent / "cases" / "kinds"
FILE_KEYS = {"kind", "description", "cases"}
CASE_KEYS = {
    "name",
    "description",
    "assertion",
    "assertions",
    "inconclusive_policy",
    "pack",
    "trace",
    "transcript",
    "state",
    "state_unavailable",
    "expect",
    "check",
    "reason",
    "observed",
    "skipped",
    "deterministic",
    "refused",
}
_ABSENT = object()


@dataclass(frozen=True)
class Case:
    file: str
    name: str
    body: Mapping[str, Any]

    @property
    def id(self) -> str:
        return f"{self.file}::{self.name}"


def _cases_of(path: Path) -> Iterator[Case]:
    doc = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    assert isinstance(doc, dict), f"{path.name}: a case file is a mapping"
    listed = doc.get("cases", [])
    assert isinstance(listed, list), f"{path.name}: 'cases' is a list"
    for i, body in enumerate(listed):
        assert isinstance(body, dict), f"{path.name}: cases[{i}] is a mapping"
        yield Case(path.stem, str(body.get("name", f"case-{i}")), body)
    for key, body in doc.items():
        if key in FILE_KEYS:
            continue
        assert isinstance(body, dict), f"{path.name}: case {key!r} is a mapping"
        yield Case(path.stem, str(key), body)


def all_cases() -> list[Case]:
    return [c for path in sorted(CASES_DIR.glob("*.yaml")) for c in _cases_of(path)]


CASES = all_cases()


class Unreachable:
    """A system of record that cannot be read: every query raises, with a typed cause."""

    def __init__(self, cause: str) -> None:
        self.cause = cause

    def query(self, resource: str, filters: Mapping[str, Any]) -> dict[str, Any] | None:
        raise StateUnavailable(self.cause, f"simulated: {self.cause} while reading {resource!r}")


def _trace(spans: Any, folder: Path) -> Any:
    path = folder / "trace.jsonl"
    meta = {"_meta": True, "schema": SCHEMA, "call_id": "case"}
    lines = [json.dumps(meta)] + [json.dumps(span) for span in spans]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return load_trace(path)


def _state(case: Mapping[str, Any], folder: Path) -> StateSource | None:
    from hotato.adapters import open_state

    if case.get("state_unavailable") is not None:
        cause = str(case["state_unavailable"])
        return StateSource(after=Unreachable(cause), before=Unreachable(cause))
    if case.get("state") is None:
        return None
    path = folder / "state.json"
    path.write_text(json.dumps(case["state"]), encoding="utf-8")
    return open_state(str(path))


def sources_of(case: Mapping[str, Any], folder: Path) -> Sources:
    """The case's evidence; a key left out or null is "not supplied", never "empty"."""
    trace = case.get("trace")
    transcript = case.get("transcript")
    return Sources(
        trace=_trace(trace, folder) if trace is not None else None,
        transcript=parse_transcript(transcript, "transcript") if transcript is not None else None,
        state=_state(case, folder),
    )


def run_case(case: Case, folder: Path) -> RunOutcome:
    body = case.body
    items = body["assertions"] if "assertions" in body else [body["assertion"]]
    doc: dict[str, Any] = {"version": 1, "assertions": items}
    if "inconclusive_policy" in body:
        doc["inconclusive_policy"] = body["inconclusive_policy"]
    aset = decode_assertion_document(Document(doc, f"{case.file}.yaml"))
    packs = body.get("pack") or []
    aset = merge_packs(aset, [packs] if isinstance(packs, str) else list(packs))
    plan(aset.specs, aset.origins)
    return run(aset, sources_of(body, folder))


def _builtins(value: Any) -> Any:
    return msgspec.to_builtins(value) if value is not msgspec.UNSET else _ABSENT


def check_status(result: Result, want: str) -> None:
    assert result.status is Status(want), f"{result.id}: {result.status.value}: {result.reason}"
    assert result.deterministic is REGISTRY[result.kind].deterministic  # law 1 / law 7
    if result.status is Status.INCONCLUSIVE:
        assert result.reason, "an INCONCLUSIVE always says why"


def check_details(body: Mapping[str, Any], result: Result) -> None:
    reasons = body.get("reason", [])
    for text in [reasons] if isinstance(reasons, str) else reasons:
        assert text.lower() in result.reason.lower(), f"{text!r} not in {result.reason!r}"
    if "observed" in body:
        assert _builtins(result.observed) == body["observed"]
    if "skipped" in body:
        assert result.skipped is body["skipped"]
    if "deterministic" in body:
        assert result.deterministic is body["deterministic"]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_case(case: Case, tmp_path: Path) -> None:
    body = case.body
    unknown = set(body) - CASE_KEYS
    assert not unknown, f"unknown case keys {sorted(unknown)}"
    assert ("expect" in body) != ("refused" in body), "a case has `expect` or `refused`"
    if "refused" in body:
        with pytest.raises(InputError) as refused:
            run_case(case, tmp_path)
        assert str(body["refused"]).lower() in str(refused.value).lower(), str(refused.value)
        return
    outcome = run_case(case, tmp_path)
    by_id = {r.id: r for r in outcome.results}
    target = by_id[body["check"]] if "check" in body else outcome.results[-1]
    expect = body["expect"]
    for ident, want in expect.items() if isinstance(expect, dict) else [(target.id, expect)]:
        check_status(by_id[ident], want)
    check_details(body, target)


# Every kind is specified by its case file: pass, fail and inconclusive examples.
RUBRIC_LANE = {"judge_rubric", "human_rubric"}  # never PASS or FAIL in the deterministic lane
# Accepted so hotato 1.x files load, and INCONCLUSIVE always (see docs/compatibility.md).
INCONCLUSIVE_ONLY = RUBRIC_LANE | {"timing_contract"}


def _statuses(kind_name: str) -> set[str]:
    found: set[str] = set()
    for case in CASES:
        if case.file != kind_name:
            continue
        expect = case.body.get("expect")
        if isinstance(expect, dict):
            found |= set(expect.values())
        elif expect is not None:
            found.add(expect)
    return found


@pytest.mark.parametrize("kind_name", sorted(REGISTRY))
def test_every_kind_has_pass_fail_and_inconclusive_cases(kind_name: str) -> None:
    assert (CASES_DIR / f"{kind_name}.yaml").exists(), f"tests/cases/kinds/{kind_name}.yaml"
    only_inconclusive = kind_name in INCONCLUSIVE_ONLY
    wanted = {"INCONCLUSIVE"} if only_inconclusive else {"PASS", "FAIL", "INCONCLUSIVE"}
    assert wanted <= _statuses(kind_name)


def test_case_names_are_unique_per_file() -> None:
    seen: set[str] = set()
    for case in CASES:
        assert case.id not in seen, case.id
        seen.add(case.id)
