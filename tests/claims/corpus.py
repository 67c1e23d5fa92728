"""Reading and scoring the labelled claim corpora: the hand-written one beside this file and
the development set in ../shared/claims-dev (read in place, never copied). One scorer serves
the tests (tests/claims/test_corpus.py) and the benchmark (bench/claims_bench.py)."""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec
import yaml

from hotato._documents import Document
from hotato.claims import Options, PackSet, check_claims, extract
from hotato.claims.catalog import Catalog, catalog_from_document, load_catalog
from hotato.evidence.trace import load_trace
from hotato.evidence.transcript import load_transcript
from hotato.model.evidence import Span, Trace, Transcript, Turn
from hotato.model.status import Status

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
GRADED = ("done", "failed")
# SGD methods in the development set, by the core pack's claim type
DEV_TYPES = {
    "BuyEventTickets": "booking_made",
    "ReserveRestaurant": "booking_made",
    "PlayMovie": "media_played",
    "PlayMedia": "media_played",
    "PlaySong": "media_played",
}


def dev_dir(name: str = "claims-dev") -> Path | None:
    """A development set: $HOTATO_CLAIMS_DEV (or $HOTATO_CLAIMS_DEV_FULL for claims-dev-full),
    or ../shared/<name> beside the repository (or beside the folder holding its worktree).
    None when it is not there."""
    env = os.environ.get("HOTATO_" + name.upper().replace("-", "_"))
    candidates = [Path(env)] if env else []
    candidates += [p / "shared" / name for p in (REPO.parent, REPO.parent.parent)]
    return next((p for p in candidates if (p / "calls").is_dir()), None)


@dataclass
class LabelledTurn:
    text: str
    claims: list[tuple[str, str, dict[str, Any]]]  # (type, polarity, entities)
    source: str = ""


@dataclass
class LabelledCall:
    id: str
    transcript: Transcript
    trace: Trace
    lying: bool  # a claimed action never ran, or ran with other values
    variant: str
    gold: dict[int, set[tuple[str, str]]] = field(default_factory=dict)  # turn -> (type, pol)
    skip: set[int] = field(default_factory=set)  # turns the labels leave out of scoring
    catalog: Catalog | None = None  # the agent's tool catalog, where the corpus has one
    service: str = ""  # the service the call's claims are of (claims-dev-full)


def read_turns(paths: Iterable[Path] | None = None) -> list[LabelledTurn]:
    out = []
    for path in paths or sorted(HERE.glob("turns_*.yaml")):
        for item in yaml.safe_load(path.read_text(encoding="utf-8")):
            claims = [(c[0], c[1], dict(c[2]) if len(c) > 2 else {}) for c in item["claims"]]
            out.append(LabelledTurn(item["text"], claims, path.name))
    return out


def _span(item: dict[str, Any], index: int) -> Span:
    def raw(value: Any) -> msgspec.Raw:
        return msgspec.Raw(msgspec.json.encode(value)) if value is not None else msgspec.Raw(b"")

    if "error" in item and item["error"] is None:
        item = {k: v for k, v in item.items() if k != "error"}
    return Span(
        type=item.get("type", "tool_call"),
        name=item.get("name"),
        to=item.get("to"),
        time_sec=float(item["at"]),
        arguments_raw=raw(item.get("arguments")),
        result_raw=raw(item.get("result")),
        error_raw=raw(item.get("error")),
        index=index,
    )


def read_calls(path: Path | None = None) -> list[LabelledCall]:
    """A hand-written corpus of calls: calls.yaml, or calls_agents.yaml (LLM-agent style,
    with each call's tool catalog and, per agent turn, the polarities it claims)."""
    path = path or HERE / "calls.yaml"
    items = yaml.safe_load(path.read_text(encoding="utf-8"))
    out = []
    for item in items:
        turns = [
            Turn(index=i, role=role, text=text, start=float(i), end=float(i + 1))
            for i, (role, text) in enumerate(item["turns"])
        ]
        spans = [_span(s, i) for i, s in enumerate(item["spans"])]
        trace = Trace(meta={"call_id": item["id"]}, spans=spans)
        tools = item.get("tools")
        catalog = catalog_from_document(Document(tools, str(path))) if tools else None
        gold = {int(k): {("", p) for p in v} for k, v in (item.get("gold") or {}).items()}
        out.append(
            LabelledCall(
                item["id"],
                Transcript(turns),
                trace,
                item["expect"] != "truthful",
                item["expect"],
                gold,
                catalog=catalog,
            )
        )
    return out


def read_dev(root: Path, typed: bool = True, catalog: bool = False) -> Iterator[LabelledCall]:
    """The development sets' calls. `typed`: gold claims carry the core pack's type (only the
    methods of DEV_TYPES are scored); else only the polarity, for every transactional method
    (how a checker is scored on services it has no type for). `catalog`: read each call's
    tools.json beside it."""
    for folder in sorted((root / "calls").iterdir()):
        labels = json.loads((folder / "labels.json").read_text(encoding="utf-8"))
        gold: dict[int, set[tuple[str, str]]] = {}
        skip: set[int] = set()
        for t in labels["turns"]:
            found = set()
            for c in t["claims"]:
                if not c.get("transactional", True) or (typed and c["method"] not in DEV_TYPES):
                    skip.add(t["turn"])
                    continue
                pol = "done" if c["act"] == "NOTIFY_SUCCESS" else "failed"
                found.add((DEV_TYPES[c["method"]] if typed else "", pol))
            if t.get("restates") and not found:
                skip.add(t["turn"])  # a repeat of an earlier claim: neither counted nor missed
            if found:
                gold[t["turn"]] = found
        services = sorted({c["service"] for t in labels["turns"] for c in t["claims"]})
        target = (labels.get("target") or {}).get("service")
        tools = folder / "tools.json"
        yield LabelledCall(
            folder.name,
            load_transcript(folder / "transcript.json"),
            load_trace(folder / "trace.jsonl"),
            labels["variant"] != "truthful",
            labels["variant"],
            gold,
            skip,
            load_catalog(tools) if catalog and tools.exists() else None,
            target or (services[0] if services else ""),
        )


@dataclass
class Scores:
    tp: Counter[tuple[str, str]] = field(default_factory=Counter)
    fp: Counter[tuple[str, str]] = field(default_factory=Counter)
    fn: Counter[tuple[str, str]] = field(default_factory=Counter)
    entity_hits: int = 0
    entity_total: int = 0
    misses: list[str] = field(default_factory=list)

    def add(self, got: set[tuple[str, str]], gold: set[tuple[str, str]], where: str) -> None:
        for x in got & gold:
            self.tp[x] += 1
        for x in got - gold:
            self.fp[x] += 1
            self.misses.append(f"extra {x[0]}/{x[1]}: {where}")
        for x in gold - got:
            self.fn[x] += 1
            self.misses.append(f"missed {x[0]}/{x[1]}: {where}")

    def rows(self) -> list[tuple[str, int, int, int, float, float]]:
        keys = sorted(set(self.tp) | set(self.fp) | set(self.fn))
        return [
            (
                f"{t}/{p}",
                self.tp[k],
                self.fp[k],
                self.fn[k],
                *_pr(self.tp[k], self.fp[k], self.fn[k]),
            )
            for k in keys
            for t, p in [k]
        ]

    def overall(self) -> tuple[float, float]:
        return _pr(sum(self.tp.values()), sum(self.fp.values()), sum(self.fn.values()))


def _pr(tp: int, fp: int, fn: int) -> tuple[float, float]:
    precision = tp / (tp + fp) if tp + fp else 1.0
    recall = tp / (tp + fn) if tp + fn else 1.0
    return precision, recall


def _graded(pairs: Iterable[tuple[str, str]]) -> set[tuple[str, str]]:
    return {(t, p) for t, p in pairs if p in GRADED}


def score_turns(turns: list[LabelledTurn], packs: PackSet) -> Scores:
    """done/failed detection per (type, polarity) over single turns; entities labelled on a
    claim must be among the entities extracted for a claim of that type in the turn."""
    scores = Scores()
    for item in turns:
        claims = extract([Turn(index=0, role="agent", text=item.text)], packs)
        got = _graded((c.type, c.polarity) for c in claims)
        gold = _graded((t, p) for t, p, _ in item.claims)
        scores.add(got, gold, item.text)
        for ctype, _, entities in item.claims:
            found = {(e.kind, str(e.value)) for c in claims if c.type == ctype for e in c.entities}
            for kind, value in entities.items():
                scores.entity_total += 1
                if (kind, str(value)) in found:
                    scores.entity_hits += 1
                else:
                    scores.misses.append(f"entity {kind}={value} not found: {item.text}")
    return scores


def _as_gold(kind: str, polarity: str, gold: set[tuple[str, str]]) -> tuple[str, str]:
    """A claim of the generic `action` type names no type of its own: it counts as the
    labelled claim of its turn with the same polarity, when there is one."""
    if kind == "action":
        same = sorted(t for t, p in gold if p == polarity)
        if same:
            return same[0], polarity
    return kind, polarity


def score_dev_claims(calls: list[LabelledCall], packs: PackSet, typed: bool = True) -> Scores:
    """done/failed detection per agent turn; `typed` False scores the polarity alone."""
    scores = Scores()
    for call in calls:
        claims = extract(call.transcript.turns, packs)
        by_turn: dict[int, set[tuple[str, str]]] = {}
        for c in claims:
            kind = c.type if typed else ""
            by_turn.setdefault(c.turn, set()).update(_graded([(kind, c.polarity)]))
        agent = [t.index for t in call.transcript.turns if t.role == "agent"]
        for i in agent:
            if i in call.skip:
                continue
            text = call.transcript.turns[i].text
            gold = call.gold.get(i, set())
            got = {_as_gold(kind, pol, gold) for kind, pol in by_turn.get(i, set())}
            scores.add(got, gold, f"{call.id} t{i}: {text}")
    return scores


@dataclass
class LieScores:
    caught: int = 0
    lying: int = 0
    false_alarms: int = 0
    truthful: int = 0
    by_variant: Counter[tuple[str, bool]] = field(default_factory=Counter)
    wrong: list[str] = field(default_factory=list)

    @property
    def caught_rate(self) -> float:
        return self.caught / self.lying if self.lying else 1.0

    @property
    def false_alarm_rate(self) -> float:
        return self.false_alarms / self.truthful if self.truthful else 0.0


def score_calls(calls: Iterable[LabelledCall], packs: PackSet, promises: bool = False) -> LieScores:
    """A call is flagged when any graded claim FAILs (promises graded too with `promises`)."""
    scores = LieScores()
    for call in calls:
        options = Options(promises, call.catalog)
        results = check_claims(call.transcript, call.trace, packs, options=options)
        fails = [r for r in results if r.graded and r.status is Status.FAIL]
        flagged = bool(fails)
        scores.by_variant[(call.variant, flagged)] += 1
        if call.lying:
            scores.lying += 1
            scores.caught += flagged
            if not flagged:
                scores.wrong.append(f"lie not caught: {call.id} ({call.variant})")
        else:
            scores.truthful += 1
            scores.false_alarms += flagged
            if flagged:
                scores.wrong.append(f"false alarm: {call.id}: t_{fails[0].turn} {fails[0].reason}")
    return scores
