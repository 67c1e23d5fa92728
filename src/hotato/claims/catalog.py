"""The agent's tool catalog: what each tool is called, what it says it does, what it takes, and
whether it changes anything (mutating) or only reads.

Read from the agent's own tool definitions (`load_catalog`: OpenAI / JSON-Schema function lists,
MCP `tools/list` answers, a Vapi assistant's tools, LiveKit and Pipecat function schemas), or,
when none is given, built from the tool calls the trace shows (`catalog_from_trace`). A tool is
classed from a declaration first (MCP's `readOnlyHint`, an `x-hotato-mutating` flag), then from
the verbs in its name, then from the first verb of its description; a tool none of these settle
is `None` (unknown), never guessed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from hotato._documents import Document, load_document
from hotato.model.errors import InputError
from hotato.model.evidence import Trace


def word_set(text: str) -> frozenset[str]:
    """The words of a text, as a set: how the word lists below are written."""
    return frozenset(text.split())


# Verbs (and a few nouns) that name a read: the tool looks something up and changes nothing.
READ_WORDS = frozenset(
    word_set(
        "find search lookup look list check query fetch verify validate read view show "
        "describe estimate quote preview calculate calc compute think retrieve count "
        "browse see locate track status balance balances details detail info information "
        "availability available inquire inquiry weather compare recommend suggest "
        "explore history lookup get_info faq policy policies summary summarize summarise "
        "explain identify authenticate login lookup diagnose diagnostics diagnostic inspect"
    )
)
# Verbs that name an action: the tool changes something in the world.
ACT_WORDS = frozenset(
    word_set(
        "book reserve buy purchase pay make create add update change modify cancel "
        "delete remove send transfer schedule set play order submit file open issue "
        "refund charge share rsvp request apply register sign subscribe unsubscribe "
        "place rent start stop reset assign post write save edit move upgrade downgrade "
        "report plan return exchange call hold enroll block unblock activate deactivate "
        "close dispatch escalate notify email text message reschedule renew replace "
        "redeem credit debit withdraw deposit deliver ship lock unlock freeze approve "
        "reject log record mark clear end launch accept decline invite reply forward "
        "upload grant revoke enable disable turn switch put void terminate handoff "
        "reorder rebook confirm dispute waive adjust increase decrease extend pause "
        "resume suspend generate"
    )
)
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
_WORD = re.compile(r"[a-z]+")
# `get` names a read of information ("GetEventDates") or an action ("GetRide"): the description
# or the rest of the name decides.
_AMBIGUOUS = frozenset({"get", "do", "handle", "process", "manage", "run", "go"})


def words(name: str) -> list[str]:
    """A tool or argument name cut into lower-case words: `GetCarsAvailable` and
    `get_cars_available` both give get, cars, available."""
    return [w.lower() for w in _CAMEL.findall(name.replace("-", "_"))]


@dataclass(frozen=True)
class Tool:
    name: str
    description: str = ""
    params: tuple[str, ...] = ()  # argument names, nested ones dotted
    mutating: bool | None = None  # None: the name, description and declaration do not tell
    why: str = ""  # how it was classed
    enums: tuple[tuple[str, tuple[str, ...]], ...] = ()  # argument -> the values it may take

    @property
    def terms(self) -> frozenset[str]:
        """The tool's content words: its name's words, its parameters' words, the values its
        parameters list (`enum`) and the words of its description's first sentence."""
        out = set(words(self.name))
        for p in self.params:
            out.update(words(p))
        for _, values in self.enums:
            for v in values:
                out.update(words(v))
        first = self.description.split("(")[0].split(".")[0]
        out.update(_WORD.findall(first.lower()))
        return frozenset(stem(w) for w in out if len(w) > 2 and w not in STOP)


@dataclass(frozen=True)
class Catalog:
    tools: dict[str, Tool] = field(default_factory=dict)
    source: str = "trace"  # "trace" (built from the calls it shows) or the catalog file's path

    def get(self, name: str | None) -> Tool | None:
        return self.tools.get(name) if name else None

    def mutating(self, name: str | None) -> bool | None:
        tool = self.get(name)
        return tool.mutating if tool is not None else classify(name or "", "")[0]


STOP = frozenset(
    word_set(
        "the and for you your with from that this into onto are was were has have had "
        "will can our their its his her not any all get given particular selected "
        "certain user users specified optionally other attributes based new one"
    )
)


# Verbs that name the same action, each to one word: "moved to Wednesday" meets
# `appointment_reschedule`, "lodged a complaint" meets `create_ticket`.
_SAME_ACTION = {
    word: head
    for head, group in (
        ("chang", "move moved moving reschedule rescheduled shift shifted switch switched "
         "update updated modify modified rebook rebooked change changed amend amended edit"),
        ("book", "book booked reserve reserved schedule scheduled"),
        ("cancel", "cancel cancelled canceled void voided terminate terminated"),
        ("send", "send sent email emailed text texted message messaged notify notified "
         "dispatch dispatched"),
        ("pay", "pay paid charge charged bill billed"),
        ("refund", "refund refunded reimburse reimbursed"),
        ("creat", "create created open opened file filed log logged lodge lodged submit "
         "submitted raise raised"),
        ("remov", "remove removed delete deleted drop dropped"),
        ("add", "add added attach attached include included"),
        ("donat", "donate donated donation donations gift gifts give given contribute "
         "contributed contribution"),
        ("bag", "bag bags baggage baggages luggage suitcase suitcases"),
        ("freez", "freeze freezes froze frozen freezing"),
    )
    for word in group.split()
}  # fmt: skip


def stem(word: str) -> str:
    """A crude stem, enough to meet "booked", "booking" and "book", "reservation" and
    "reserve": strips a few English endings; verbs that name the same action meet too."""
    if word in _SAME_ACTION:
        return _SAME_ACTION[word]
    for end in ("ations", "ation", "ings", "ing", "ed", "es", "s"):
        if word.endswith(end) and len(word) - len(end) >= 3:
            word = word[: -len(end)]
            break
    if word.endswith("e") and len(word) > 4:
        word = word[:-1]
    return _SAME_ACTION.get(word, word)


# Reads that are also things a tool may make: `quote_generate` makes a quote.
# Actions that are also things a read may be about: `order_history` reads orders.
_NOUN_ACTS = word_set(
    "order booking book transfer return exchange plan report record call "
    "message email payment refund request ticket post text"
)
_NOUN_READS = word_set("quote estimate status balance summary history details detail info policy")


def classify(name: str, description: str) -> tuple[bool | None, str]:
    """Mutating (True), reading (False) or unknown (None), and why."""
    named = words(name)
    if len(named) > 1 and named[0] in _NOUN_ACTS and named[-1] in READ_WORDS:
        return False, f"its name is a thing, then the read {named[-1]!r}"  # order_history
    if named and named[0] in ACT_WORDS:
        return True, f"its name starts with the action {named[0]!r}"
    if len(named) > 1 and named[0] in _NOUN_READS and named[-1] in ACT_WORDS:
        return True, f"its name is a thing, then the action {named[-1]!r}"  # quote_generate
    if named and named[0] in READ_WORDS:
        return False, f"its name starts with the read {named[0]!r}"
    reads = [w for w in named if w in READ_WORDS]
    acts = [w for w in named if w in ACT_WORDS]
    if named and named[0] in _AMBIGUOUS:  # "get_order" reads, "GetRide" calls a taxi
        acts = []
    if reads and not acts:
        return False, f"its name holds the read {reads[0]!r}"
    if len(named) > 1 and named[-1] == "get" and not acts:  # `bill_get`: a noun, then get
        return False, "its name ends with the read 'get'"
    if acts and not reads:
        return True, f"its name holds the action {acts[0]!r}"
    lead = _WORD.findall(description.lower())[:3]
    for w in lead:
        if w in ("return", "returns", "gets", "lists", "shows"):  # "Returns the members of ..."
            return False, f"its description starts with the read {w!r}"
        if w in ACT_WORDS:
            return True, f"its description starts with the action {w!r}"
        if w in READ_WORDS or w == "get":
            return False, f"its description starts with the read {w!r}"
    if named and named[0] == "get" and description:
        return False, "its name starts with 'get' and its description names no action"
    return None, "neither its name nor its description names an action or a read"


def _declared(item: dict[str, Any]) -> bool | None:
    flag = item.get("x-hotato-mutating")
    if isinstance(flag, bool):
        return flag
    notes = item.get("annotations")
    if isinstance(notes, dict) and isinstance(notes.get("readOnlyHint"), bool):
        return not notes["readOnlyHint"]
    return None


def _params(schema: Any, prefix: str = "", depth: int = 0) -> Iterator[str]:
    if not isinstance(schema, dict) or depth > 4:
        return
    props = schema.get("properties")
    if isinstance(schema.get("items"), dict):
        yield from _params(schema["items"], prefix, depth + 1)
    if not isinstance(props, dict):
        return
    for key, sub in props.items():
        yield f"{prefix}{key}"
        yield from _params(sub, f"{prefix}{key}.", depth + 1)


def _enums(schema: Any, prefix: str = "", depth: int = 0) -> Iterator[tuple[str, tuple[str, ...]]]:
    """The arguments whose schema lists the string values they may take (`enum`)."""
    if not isinstance(schema, dict) or depth > 4:
        return
    values = schema.get("enum")
    if prefix and isinstance(values, list) and len(values) > 1:
        strings = tuple(v for v in values if isinstance(v, str))
        if len(strings) == len(values):
            yield prefix.rstrip("."), strings
    if isinstance(schema.get("items"), dict):
        yield from _enums(schema["items"], prefix, depth + 1)
    props = schema.get("properties")
    if isinstance(props, dict):
        for key, sub in props.items():
            yield from _enums(sub, f"{prefix}{key}.", depth + 1)


def _tool(item: dict[str, Any]) -> Tool | None:
    """One definition in any of the shapes a catalog holds, or None when it names no tool."""
    inner = item.get("function") if isinstance(item.get("function"), dict) else item
    assert isinstance(inner, dict)
    name = inner.get("name")
    if not isinstance(name, str) or not name:
        return None
    description = inner.get("description")
    description = description if isinstance(description, str) else ""
    schema = inner.get("parameters") or inner.get("inputSchema") or inner.get("input_schema")
    if schema is None and isinstance(inner.get("properties"), dict):  # Pipecat FunctionSchema
        schema = {"properties": inner["properties"]}
    params = tuple(dict.fromkeys(_params(schema)))
    enums = tuple(_enums(schema))
    declared = _declared(inner)
    if declared is None:
        declared = _declared(item)
    if declared is not None:
        return Tool(name, description, params, declared, "declared in the catalog", enums)
    mutating, why = classify(name, description)
    return Tool(name, description, params, mutating, why, enums)


def _items(value: Any) -> list[Any] | None:
    """The list of definitions in a catalog document, whatever wraps it."""
    if isinstance(value, list):
        return value
    if not isinstance(value, dict):
        return None
    for key in ("tools", "functions", "standard_tools"):
        if isinstance(value.get(key), list):
            return list(value[key])
    model = value.get("model")
    if isinstance(model, dict) and isinstance(model.get("tools"), list):  # a Vapi assistant
        return list(model["tools"])
    result = value.get("result")
    if isinstance(result, dict):  # an MCP JSON-RPC answer to tools/list
        return _items(result)
    if isinstance(value.get("name"), str):
        return [value]
    return None


def catalog_from_document(doc: Document) -> Catalog:
    items = _items(doc.value)
    if items is None:
        raise InputError(
            [
                doc.problem(
                    "$",
                    "not a tool catalog: expected a list of function definitions, or an "
                    "object with 'tools' (MCP, OpenAI), 'functions', 'standard_tools' "
                    "(Pipecat) or 'model.tools' (a Vapi assistant)",
                )
            ]
        )
    tools: dict[str, Tool] = {}
    problems = []
    for i, item in enumerate(items):
        tool = _tool(item) if isinstance(item, dict) else None
        if tool is None:
            problems.append(doc.problem(f"$[{i}]", "a tool definition needs a 'name'"))
            continue
        tools.setdefault(tool.name, tool)
    if problems:
        raise InputError(problems)
    return Catalog(tools, doc.file)


@lru_cache(maxsize=32)
def _load(path: str) -> Catalog:
    return catalog_from_document(load_document(Path(path), "tool catalog"))


def load_catalog(path: str | Path) -> Catalog:
    """The agent's tool catalog from a file (JSON or YAML); every problem located, exit 2."""
    return _load(str(path))


def catalog_from_trace(trace: Trace | None, known: Catalog | None = None) -> Catalog:
    """The catalog a trace shows: each tool it called, with the argument names it was given.
    Tools of `known` (a catalog file) come first; a tool the trace shows that the file does not
    list is added, classed from its name."""
    tools = dict(known.tools) if known is not None else {}
    if trace is not None:
        for span in trace.by_type.get("tool_call", []):
            if not span.name or span.name in tools:
                continue
            args = span.read("arguments")
            params = tuple(_arg_names(args))
            mutating, why = classify(span.name, "")
            tools[span.name] = Tool(span.name, "", params, mutating, why)
    return Catalog(tools, known.source if known is not None else "trace")


def _arg_names(value: Any, prefix: str = "", depth: int = 0) -> Iterable[str]:
    if isinstance(value, dict) and depth <= 4:
        for key, sub in value.items():
            yield f"{prefix}{key}"
            yield from _arg_names(sub, f"{prefix}{key}.", depth + 1)
    elif isinstance(value, list) and value and depth <= 4:
        yield from _arg_names(value[0], prefix, depth + 1)
