"""Seeded random mixes of every kind that reads a trace or a transcript, for the benchmarks.

A fixed file only measures the kinds it happens to use; a kind that scans its spans once per
assertion hides behind a mix that asks it little. `random_mix(n, seed)` draws each assertion's
kind at random (every kind about equally often, `weights` to lean a mix), and each draws its own
tool, pattern, target or bounds, so two assertions rarely ask the same question. It includes the
forms hotato 1.x files use: `when:` as one id (a string) or a list, `outcome` with `all_of` and
`any_of` mixing tool, phrase, field and assertion parts, `formula` over earlier ids.

    python bench/mix.py 20 --seed 3      # print a mix as YAML
"""

from __future__ import annotations

import random
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

# Every kind a mix draws from. state / state_change read a system of record and the rubric
# kinds a judge or a person: they are not part of a trace-and-transcript benchmark.
KINDS = (
    "phrase",
    "pii",
    "policy",
    "tool_call",
    "outcome",
    "tool_result",
    "tool_error",
    "http_result",
    "handoff",
    "dtmf",
    "termination",
    "latency",
    "sequence",
    "count",
    "order",
    "formula",
)
PACKS = (
    "default",
    "pii-leak",
    "prohibited-language",
    "required-disclosure",
    "identity-before-account",
)
SPAN_TYPES = (
    "caller_audio_active",
    "agent_audio_active",
    "llm_first_token",
    "http_exchange",
    "dtmf",
    "handoff",
    "tool_call",
    "call_ended",
)
PHRASES = (
    "refund (has been|was) issued",
    "this call (is|may be) recorded",
    "date of birth",
    r"balance is \d+ dollars",
    "sorry",
    "anything else",
    "order A-\\d+",
    "guarantee",
    "lawsuit",
    r"\bssn\b",
    "never arrived",
    "fifth of May",
    "thank you",
    "verify",
    "credit card",
    "my email",
    "call me back",
    r"\b555\b",
    "supervisor",
    "cancel",
)


@dataclass
class Vocabulary:
    """The names a mix may ask about: those its trace and transcript use (and a few that they
    do not, so some checks fail)."""

    tools: tuple[str, ...]
    urls: tuple[str, ...] = ("/v1/orders/\\d+$", "/v1/orders/1\\d$", "/refunds$", "/v2/")
    targets: tuple[str, ...] = ("billing", "human_supervisor", "nobody")
    arg_values: Callable[[random.Random], dict[str, Any]] = field(
        default=lambda rng: {"order_id": f"A-{rng.randrange(1000)}"}
    )


def random_mix(
    n: int, seed: int, vocab: Vocabulary, weights: dict[str, float] | None = None
) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    kinds = list(KINDS)
    w = [(weights or {}).get(k, 1.0) for k in kinds]
    items: list[dict[str, Any]] = []
    for i in range(n):
        tag = rng.choices(kinds, w)[0]
        if tag == "formula" and len(items) < 2:
            tag = "phrase"
        body = _DRAW[tag](rng, vocab, items)
        item: dict[str, Any] = {"id": f"a-{i:05d}", "kind": tag, **body}
        if items and tag not in ("formula",) and rng.random() < 0.08:
            ref = items[rng.randrange(len(items))]["id"]
            item["when"] = ref if rng.random() < 0.5 else [ref]  # 1.x wrote one id as a string
        items.append(item)
    return items


def _tool(rng: random.Random, v: Vocabulary) -> str:
    return v.tools[rng.randrange(len(v.tools))] if rng.random() < 0.95 else "never_called"


def _phrase(rng: random.Random) -> str:
    return (
        PHRASES[rng.randrange(len(PHRASES))]
        if rng.random() < 0.7
        else f"order A-{rng.randrange(100)}\\b"
    )


def _role(rng: random.Random) -> dict[str, str]:
    return rng.choice([{}, {"role": "agent"}, {"role": "caller"}])


def _bounds(rng: random.Random) -> Any:
    return rng.choice(
        [
            1,
            {"min": 1},
            {"max": rng.randrange(10, 100000)},
            {"min": 1, "max": rng.randrange(2, 100000)},
        ]
    )


def _tool_call(rng: random.Random, v: Vocabulary, _: list[dict[str, Any]]) -> dict[str, Any]:
    roll = rng.randrange(6)
    if roll == 0:
        return {"name": _tool(rng, v)}
    if roll == 1:
        return {"name": _tool(rng, v), "args_subset": v.arg_values(rng)}
    if roll == 2:
        return {"name": _tool(rng, v), "count": _bounds(rng)}
    if roll == 3:
        return {"require_order": [_tool(rng, v) for _ in range(rng.randrange(2, 5))]}
    if roll == 4:
        return {"never_before": {"tool": _tool(rng, v), "until": _tool(rng, v)}}
    return {"name": _tool(rng, v), "args_subset": v.arg_values(rng), "absent": True}


def _tool_result(rng: random.Random, v: Vocabulary, _: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "name": _tool(rng, v),
        "result_subset": rng.choice(
            [{"status": "done"}, {"ok": True}, {"ok": False}, {"status": "refunded"}, {}]
        ),
    }


def _tool_error(rng: random.Random, v: Vocabulary, _: list[dict[str, Any]]) -> dict[str, Any]:
    spec: dict[str, Any] = {}
    if rng.random() < 0.8:
        spec["name"] = _tool(rng, v)
    if rng.random() < 0.5:
        spec["error_matches"] = rng.choice(["timed out", "Timeout", "refused", "[0-9]{3}"])
    if rng.random() < 0.3:
        spec["absent"] = True
    return spec


def _http_result(rng: random.Random, v: Vocabulary, _: list[dict[str, Any]]) -> dict[str, Any]:
    spec: dict[str, Any] = {}
    if rng.random() < 0.7:
        spec["method"] = rng.choice(["GET", "POST", "put"])
    if rng.random() < 0.7:
        spec["url_matches"] = (
            rng.choice(v.urls).replace("\\d+", str(rng.randrange(1000)), 1)
            if rng.random() < 0.5
            else rng.choice(v.urls)
        )
    if rng.random() < 0.6:
        spec["status"] = rng.choice([200, [200, 201], 500, [404]])
    if rng.random() < 0.2:
        spec["response_subset"] = {"state": rng.choice(["open", "closed"])}
    return spec


def _handoff(rng: random.Random, v: Vocabulary, _: list[dict[str, Any]]) -> dict[str, Any]:
    spec: dict[str, Any] = {"to": rng.choice(v.targets)} if rng.random() < 0.8 else {}
    return {**spec, "absent": True} if rng.random() < 0.2 else spec


def _dtmf(rng: random.Random, v: Vocabulary, _: list[dict[str, Any]]) -> dict[str, Any]:
    digits = "".join(str(rng.randrange(10)) for _ in range(rng.randrange(1, 5)))
    return {"digits": "-".join(digits)} if rng.random() < 0.85 else {"absent": True}


def _termination(rng: random.Random, v: Vocabulary, _: list[dict[str, Any]]) -> dict[str, Any]:
    spec: dict[str, Any] = {}
    if rng.random() < 0.7:
        spec["by"] = rng.choice(["caller", "agent", "system"])
    if rng.random() < 0.5:
        spec["reason"] = rng.choice(["completed", "COMPLETED", "timeout"])
    return spec


def _latency(rng: random.Random, v: Vocabulary, _: list[dict[str, Any]]) -> dict[str, Any]:
    if rng.random() < 0.7:
        return {"tool": _tool(rng, v), "max_ms": rng.randrange(100, 2000)}
    return {
        "span_type": rng.choice(["llm_first_token", "tool_call", "http_exchange"]),
        "max_ms": rng.randrange(100, 2000),
    }


def _sequence(rng: random.Random, v: Vocabulary, _: list[dict[str, Any]]) -> dict[str, Any]:
    steps = [
        {"tool": _tool(rng, v)} if rng.random() < 0.6 else {"span_type": rng.choice(SPAN_TYPES)}
        for _ in range(rng.randrange(1, 5))
    ]
    return {"steps": steps}


def _count(rng: random.Random, v: Vocabulary, _: list[dict[str, Any]]) -> dict[str, Any]:
    roll = rng.randrange(3)
    if roll == 0:
        return {"tool": _tool(rng, v), "count": _bounds(rng)}
    if roll == 1:
        return {"span_type": rng.choice(SPAN_TYPES), "count": _bounds(rng)}
    return {"phrase": _phrase(rng), **_role(rng), "count": _bounds(rng)}


def _phrase_spec(rng: random.Random, v: Vocabulary, _: list[dict[str, Any]]) -> dict[str, Any]:
    spec: dict[str, Any] = {"regex": _phrase(rng), **_role(rng)}
    if rng.random() < 0.3:
        spec["absent"] = True
    if rng.random() < 0.15:
        spec["position"] = rng.choice(["first", "last"])
    return spec


def _order(rng: random.Random, v: Vocabulary, _: list[dict[str, Any]]) -> dict[str, Any]:
    return {"before": _phrase(rng), "after": _phrase(rng), **_role(rng)}


def _pii(rng: random.Random, v: Vocabulary, _: list[dict[str, Any]]) -> dict[str, Any]:
    detectors = ["ssn", "card_luhn", "email", "phone"]
    spec: dict[str, Any] = _role(rng)
    if rng.random() < 0.6:
        spec["detectors"] = rng.sample(detectors, rng.randrange(1, 5))
    return spec


def _policy(rng: random.Random, v: Vocabulary, _: list[dict[str, Any]]) -> dict[str, Any]:
    return {} if rng.random() < 0.3 else {"pack": rng.choice(PACKS)}


def _part(rng: random.Random, v: Vocabulary, items: list[dict[str, Any]]) -> dict[str, Any]:
    roll = rng.randrange(5 if items else 4)
    if roll == 0:
        return {"tool_called": _tool(rng, v)}
    if roll == 1:
        return {"tool_called": _tool(rng, v), "args_subset": v.arg_values(rng)}
    if roll == 2:
        return {"phrase": _phrase(rng), **_role(rng)}
    if roll == 3:
        return {"field_present": rng.choice(["status", "ok", "refund.id"]), "tool": _tool(rng, v)}
    return {"assertion": items[rng.randrange(len(items))]["id"]}


def _outcome(rng: random.Random, v: Vocabulary, items: list[dict[str, Any]]) -> dict[str, Any]:
    spec: dict[str, Any] = {"all_of": [_part(rng, v, items) for _ in range(rng.randrange(1, 4))]}
    if rng.random() < 0.5:
        spec["any_of"] = [_part(rng, v, items) for _ in range(rng.randrange(1, 4))]
    return spec


def _formula(rng: random.Random, v: Vocabulary, items: list[dict[str, Any]]) -> dict[str, Any]:
    a, b = (items[rng.randrange(len(items))]["id"] for _ in range(2))
    return {"expr": rng.choice([f"{a} and not {b}", f"{a} or {b}", f"0.6*{a} + 0.4*{b} >= 0.5"])}


_DRAW: dict[str, Callable[[random.Random, Vocabulary, list[dict[str, Any]]], dict[str, Any]]] = {
    "phrase": _phrase_spec,
    "pii": _pii,
    "policy": _policy,
    "tool_call": _tool_call,
    "outcome": _outcome,
    "tool_result": _tool_result,
    "tool_error": _tool_error,
    "http_result": _http_result,
    "handoff": _handoff,
    "dtmf": _dtmf,
    "termination": _termination,
    "latency": _latency,
    "sequence": _sequence,
    "count": _count,
    "order": _order,
    "formula": _formula,
}
assert set(_DRAW) == set(KINDS)


def write_mix(path: Any, items: list[dict[str, Any]]) -> None:
    import yaml

    doc = {"version": 1, "assertions": items}
    path.write_text(yaml.safe_dump(doc, sort_keys=False, width=200), encoding="utf-8")


if __name__ == "__main__":
    import yaml

    n = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    seed = int(sys.argv[sys.argv.index("--seed") + 1]) if "--seed" in sys.argv else 1
    tools = tuple(f"tool_{i:02d}" for i in range(50))
    print(
        yaml.safe_dump(
            {"version": 1, "assertions": random_mix(n, seed, Vocabulary(tools))},
            sort_keys=False,
            width=200,
        )
    )
