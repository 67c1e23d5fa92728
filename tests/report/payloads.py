"""A call whose every field an agent, a caller or a tool could fill holds markup that would run
if the page did not escape it. Each payload sets `window.__hotato_pwned`; the browser test checks
it never is."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.conversation.conftest import META, write_call, write_test

SCRIPT = "<script>window.__hotato_pwned = 'script'</script>"
ONERROR = "<img src=x onerror=\"window.__hotato_pwned = 'onerror'\">"
JS_LINK = '<a id="js-link" href="javascript:window.__hotato_pwned = \'link\'">click</a>'
ALL = SCRIPT + ONERROR + JS_LINK
ATTR = '"><svg onload="window.__hotato_pwned = \'attr\'">'

TURNS = [
    {"role": "caller", "text": "refund please " + ALL, "start": 0.5, "end": 2.0},
    {"role": "agent " + ONERROR, "text": "your refund was sent " + SCRIPT, "start": 2.5, "end": 4},
    {"role": "agent", "text": JS_LINK + " javascript:alert(1)", "start": 4.5, "end": 6},
]
SPANS = [
    {
        "type": "tool_call",
        "name": "lookup" + ATTR,
        "start_sec": 2.1,
        "end_sec": 2.3,
        "arguments": {"order_id": ALL, ATTR: "key"},
        "result": {"note": SCRIPT},
    },
    {
        "type": "tool_call",
        "name": "issue_refund",
        "start_sec": 3.0,
        "end_sec": 3.2,
        "arguments": {"order_id": "A-1"},
        "error": {"message": ONERROR},
        "status": "error",
    },
    {"type": "handoff " + ATTR, "to": JS_LINK, "time_sec": 6.5},
]
CHECKS: list[dict[str, Any]] = [
    {
        "id": "claimed " + ATTR,
        "kind": "phrase",
        "regex": "refund",
        "role": "agent",
        "dimension": "conversation",
    },
    {
        "id": "refund " + SCRIPT,
        "kind": "tool_call",
        "name": "issue_refund",
        "args_subset": {"order_id": ALL},
        "dimension": "outcome",
    },
    {
        "id": "state " + ONERROR,
        "kind": "state",
        "resource": "orders",
        "filters": {"order_id": "A-1"},
        "expect": {"refund_status": "refunded"},
        "dimension": "outcome",
    },
    {"id": "empathy", "kind": "judge_rubric", "criterion": ALL, "dimension": "conversation"},
]
STATE = {"orders": [{"order_id": "A-1", "refund_status": SCRIPT + ONERROR}]}


def hostile_call(tmp: Path) -> tuple[Path, Path]:
    """A test file and its call folder, every field carrying a payload."""
    call = write_call(tmp / "call", spans=SPANS, turns=TURNS, state=STATE)
    (call / "trace.jsonl").write_text(
        (call / "trace.jsonl")
        .read_text()
        .replace('"call_id": "call-1"', '"call_id": "' + "c\\u003cscript\\u003e" + '"')
    )
    rubric = [c for c in CHECKS if c["kind"] == "judge_rubric"]
    test = write_test(
        tmp / "hostile.json",
        [c for c in CHECKS if c["kind"] != "judge_rubric"],
        rubric,
        test_id="hostile",
    )
    assert META["schema"]
    return test, call
