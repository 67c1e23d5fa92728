"""JSON Schemas (draft 2020-12) generated from msgspec types, so they cannot drift from what
hotato reads and writes (`hotato schema NAME`).

The file schemas describe what the loaders accept: the assertion kinds' own spec types, the
conversation-test keys and their vocabularies. Some checks stay the loader's alone (a regex
that RE2 refuses, a `when` naming an unknown id); the schema is for editors and tools, and
the loader remains the judge.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Union

import msgspec

from hotato.conversation.testfile import CONDITIONS, RUBRIC_KINDS
from hotato.model.results import Result
from hotato.model.status import DIMENSIONS

NAMES = ("assertions", "conversation-test", "result", "artifact")
DIALECT = "https://json-schema.org/draft/2020-12/schema"

NonEmpty = Annotated[str, msgspec.Meta(min_length=1)]
PolicyName = Literal["report", "fail", "refuse"]
Sha256 = Annotated[str, msgspec.Meta(pattern="^[0-9a-f]{64}$")]


def _specs(rubric: bool | None) -> Any:
    """The union of the built-in kinds' specs (tagged by `kind`): all, rubric or not."""
    from hotato.kinds import BUILTIN

    specs = tuple(k.spec for k in BUILTIN if rubric is None or (k.tag in RUBRIC_KINDS) == rubric)
    return Union[specs]  # noqa: UP007 (a union built from a runtime tuple)


def _assertions_file() -> type[msgspec.Struct]:
    specs: Any = _specs(None)
    return msgspec.defstruct(
        "AssertionsFile",
        [
            ("assertions", list[specs]),
            ("version", Literal[1], 1),
            ("inconclusive_policy", PolicyName | None, None),
            ("name", str | None, None),
            ("description", str | None, None),
        ],
        forbid_unknown_fields=True,
    )


class Caller(msgspec.Struct, forbid_unknown_fields=True):
    persona: str | None = None
    goal: str | None = None
    facts: dict[str, Any] = {}


class Simulator(msgspec.Struct, forbid_unknown_fields=True):
    model_id: str | None = None
    scenario_id: str | None = None
    seed: int | str | None = None


def _success() -> type[msgspec.Struct]:
    conditions: Any = Literal[CONDITIONS]  # the vocabularies the loader checks against
    dimensions: Any = Literal[DIMENSIONS]
    return msgspec.defstruct(
        "Success",
        [
            (
                "required",
                list[conditions],
                msgspec.field(default_factory=lambda: ["all_deterministic_assertions_pass"]),
            ),
            (
                "report_dimensions",
                list[dimensions],
                msgspec.field(default_factory=lambda: [*DIMENSIONS]),
            ),
        ],
        forbid_unknown_fields=True,
    )


def _conversation_test() -> type[msgspec.Struct]:
    deterministic: Any = _specs(False)
    rubric: Any = _specs(True)
    lanes = msgspec.defstruct(
        "Lanes",
        [
            ("deterministic", list[deterministic], msgspec.field(default_factory=list)),
            ("rubric", list[rubric], msgspec.field(default_factory=list)),
        ],
        forbid_unknown_fields=True,
    )
    return msgspec.defstruct(
        "ConversationTestFile",
        [
            ("kind", Literal["hotato.conversation-test"]),
            ("id", NonEmpty),
            ("agent", NonEmpty),
            ("assertions", lanes),
            ("version", Literal[1], 1),
            ("description", str | None, None),
            ("caller", Caller | None, None),
            ("environment", Any, None),
            ("scenario", Any, None),
            ("success", _success() | None, None),
            ("inconclusive_policy", PolicyName | None, None),
            ("repetitions", Annotated[int, msgspec.Meta(ge=1)], 1),
            ("simulator", Simulator | None, None),
            ("call", str | None, None),
        ],
        forbid_unknown_fields=True,
    )


class Counts(msgspec.Struct, forbid_unknown_fields=True):
    """pass / fail / inconclusive, counted apart, never merged into a score."""

    # `pass` is a Python keyword: the field is renamed on the wire.
    passed: int = msgspec.field(name="pass")
    fail: int
    inconclusive: int


class Wilson(msgspec.Struct, forbid_unknown_fields=True):
    level: float
    low: float
    high: float


class Interval(msgspec.Struct, forbid_unknown_fields=True):
    wilson: Wilson


class DimensionRow(Counts, forbid_unknown_fields=True):
    """A scorecard row. The Reliability row also carries the reliability figures."""

    n: int | None = None
    k: int | None = None
    passes: int | None = None
    pass_at_1: float | None = None
    pass_at_k: float | None = None
    pass_caret_k: float | None = None
    ci: Interval | None = None
    independent_trials: bool | None = None
    note: str | None = None


class JudgeCounts(Counts, forbid_unknown_fields=True):
    total: int


class AssertSummary(msgspec.Struct, forbid_unknown_fields=True):
    deterministic: Counts
    judge: JudgeCounts
    by_kind: dict[str, Counts]
    note: str


class TraceAuthDoc(msgspec.Struct, forbid_unknown_fields=True):
    authenticated: bool
    key_id: str | None
    reason: str


class AssertRun(msgspec.Struct, forbid_unknown_fields=True):
    """`hotato assert run --format json` (and `hotato.grade(...).to_json()`)."""

    schema: Literal["assert.v1"]
    exit_code: Literal[0, 1, 2]
    inconclusive_policy: PolicyName
    results: list[Result]
    summary: AssertSummary
    trace_auth: TraceAuthDoc | None = None


class TestRunDoc(msgspec.Struct):
    """`hotato test run --format json` for one call or its trials (`hotato.run_test`). The
    lanes' own entries are described loosely here; docs/conversation-tests.md has them."""

    __test__ = False  # not a pytest test class, whatever its name

    kind: Literal["hotato.test-run"]
    version: Literal[1]
    test_id: str
    agent: str
    exit_code: Literal[0, 1, 2]
    inconclusive_policy: PolicyName
    success: dict[str, Any]
    summary: dict[str, Any]
    assertions: dict[str, Any]
    rubric: dict[str, Any]
    dimensions: dict[str, DimensionRow]  # only the test's report_dimensions (and untagged)
    report_dimensions: list[str]
    trace_authenticated: bool
    reliability: dict[str, Any] | None = None  # present when the test reports reliability


class TestSuiteDoc(msgspec.Struct, forbid_unknown_fields=True):
    """`hotato test run DIR --format json` (`hotato.run_suite`)."""

    __test__ = False

    kind: Literal["hotato.test-suite"]
    version: Literal[1]
    exit_code: Literal[0, 1, 2]
    passed: bool
    tests: list[TestRunDoc]


class Bound(msgspec.Struct, forbid_unknown_fields=True):
    path: str
    sha256: Sha256
    bytes: Annotated[int, msgspec.Meta(ge=0)]


class ArtifactManifest(msgspec.Struct, forbid_unknown_fields=True):
    """An artifact folder's `conversation.json`: the run's head, and each bound child."""

    kind: Literal["hotato.conversation"]
    version: Literal[1]
    conversation_id: str
    test_id: str
    agent_id: str
    created_at: str
    origin: dict[str, Any]
    artifacts: dict[str, Bound]


def schema_type(name: str) -> Any:
    """The msgspec type behind `hotato schema NAME`."""
    if name == "assertions":
        return _assertions_file()
    if name == "conversation-test":
        return _conversation_test()
    if name == "result":
        return (AssertRun, TestRunDoc, TestSuiteDoc)  # one of these
    if name == "artifact":
        return ArtifactManifest
    raise ValueError(f"no schema named {name!r} (one of: {', '.join(NAMES)})")


def json_schema(name: str) -> dict[str, Any]:
    """The JSON Schema for NAME (one of NAMES), with its dialect and title."""
    types = schema_type(name)
    if isinstance(types, tuple):
        shapes, defs = msgspec.json.schema_components(types, ref_template="#/$defs/{name}")
        body: dict[str, Any] = {"oneOf": list(shapes), "$defs": defs}
    else:
        body = msgspec.json.schema(types)
    return {"$schema": DIALECT, "title": f"hotato {name}", **body}
