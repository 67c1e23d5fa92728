"""JSON Schemas (draft 2020-12) generated from msgspec types, so they cannot drift from what
hotato reads and writes (`hotato schema NAME`).

The file schemas describe what the loaders accept: the assertion kinds' own spec types, the
conversation-test keys and their vocabularies. Some checks stay the loader's alone (a regex
that RE2 refuses, a `when` naming an unknown id); the schema is for editors and tools, and
the loader remains the judge.
"""

from __future__ import annotations

import operator
from functools import reduce
from types import UnionType
from typing import Annotated, Any, Literal, Union, get_args, get_origin

import msgspec

from hotato.conversation.testfile import CONDITIONS, RUBRIC_KINDS
from hotato.model.reports import AssertRun, TestRun, TestSuite
from hotato.model.status import DIMENSIONS

NAMES = ("assertions", "conversation-test", "result", "artifact", "state-adapter")
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


def _describable(tp: Any, memo: dict[Any, Any]) -> Any:
    """`tp` as JSON Schema can describe it: the very result types hotato encodes, except that
    a union of untagged structs sharing one set of fields (a refused label, written with its
    keys in two orders) reads as its first struct. A schema has no key order, and msgspec
    describes a union of structs only when each is tagged. Every other type is itself."""
    if isinstance(tp, type) and issubclass(tp, msgspec.Struct):
        return _struct_view(tp, memo)
    origin, args = get_origin(tp), get_args(tp)
    if origin is None or not args:
        return tp
    if origin is Annotated:
        return Annotated[(_describable(args[0], memo), *tp.__metadata__)]
    if origin is Literal:
        return tp
    views = tuple(_describable(a, memo) for a in args)
    if origin in (Union, UnionType):
        structs = [v for v in views if isinstance(v, type) and issubclass(v, msgspec.Struct)]
        if len(structs) > 1 and len({_field_names(v) for v in structs}) == 1:
            views = tuple(v for v in views if v not in structs[1:])
        return reduce(operator.or_, views)
    return origin[views]


def _field_names(tp: type[msgspec.Struct]) -> frozenset[str]:
    return frozenset(f.encode_name for f in msgspec.structs.fields(tp))


def _struct_view(tp: type[msgspec.Struct], memo: dict[Any, Any]) -> Any:
    if tp in memo:
        return memo[tp]
    memo[tp] = tp  # a struct that refers to itself is described as itself
    fields = msgspec.structs.fields(tp)
    types = [_describable(f.type, memo) for f in fields]
    if all(t is f.type for t, f in zip(types, fields, strict=True)):
        return tp
    config = tp.__struct_config__
    view = msgspec.defstruct(
        tp.__name__,
        [
            (f.encode_name, t, msgspec.field(default_factory=f.default_factory))
            if f.default_factory is not msgspec.NODEFAULT
            else (f.encode_name, t)
            if f.required
            else (f.encode_name, t, f.default)
            for f, t in zip(fields, types, strict=True)
        ],
        kw_only=True,
        tag=config.tag,
        tag_field=config.tag_field,
        forbid_unknown_fields=config.forbid_unknown_fields,
        namespace={"__doc__": tp.__doc__},
    )
    memo[tp] = view
    return view


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


def _state_adapter_file() -> Any:
    """An adapter file: one shape per row of the state adapters' registry (plug-ins included),
    told apart by `adapter`, each with its own resource type."""
    from hotato.adapters.registry import ADAPTERS

    shapes = []
    for name in ADAPTERS.names():
        row = ADAPTERS[name]
        required = any(
            f.name == "resources" and f.required for f in msgspec.structs.fields(row.file)
        )
        resources: Any = (
            ("resources", dict[str, row.resource])  # type: ignore[name-defined]
            if required
            else ("resources", dict[str, row.resource] | None, None)  # type: ignore[name-defined]
        )
        shapes.append(
            msgspec.defstruct(
                row.file.__name__,
                [resources],
                bases=(row.file,),
                tag_field="adapter",
                tag=name,
                forbid_unknown_fields=True,
                kw_only=True,
            )
        )
    return Union[tuple(shapes)]  # noqa: UP007 (a union built from a runtime tuple)


def schema_type(name: str) -> Any:
    """The msgspec type behind `hotato schema NAME`."""
    if name == "assertions":
        return _assertions_file()
    if name == "conversation-test":
        return _conversation_test()
    if name == "result":
        memo: dict[Any, Any] = {}  # one of these, as hotato writes them
        return tuple(_describable(t, memo) for t in (AssertRun, TestRun, TestSuite))
    if name == "artifact":
        return ArtifactManifest
    if name == "state-adapter":
        return _state_adapter_file()
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
