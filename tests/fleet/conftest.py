"""A small fleet built from the bundled demo call: a manifest whose rows name their own order,
agent and day, the demo's orders database, and an assertions file using `${call.order_id}`."""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest

DEMO = Path(__file__).resolve().parents[2] / "src" / "hotato" / "demo"

ASSERTIONS = """\
version: 1
assertions:
  - id: claimed-refund
    kind: phrase
    regex: "refund .*(sent|issued)"
    role: agent
    dimension: conversation
  - id: looked-up-own-order
    kind: tool_call
    name: lookup_order
    args_subset: {order_id: "${call.order_id}"}
    dimension: outcome
  - id: refund-recorded
    kind: state
    resource: orders
    filters: {order_id: "${call.order_id}"}
    expect: {refund_status: refunded}
    dimension: outcome
"""


@dataclass
class Fleet:
    root: Path
    manifest: Path
    assertions: Path
    state: Path
    calls: int

    def rows(self) -> list[dict[str, str]]:
        return [json.loads(line) for line in self.manifest.read_text().splitlines()]


def make_fleet(root: Path, calls: int = 8) -> Fleet:
    """Calls c000..: even rows ask about A-3090 (not refunded), odd rows A-3091 (refunded);
    every third call has no transcript (its phrase check is INCONCLUSIVE)."""
    files = root / "files"
    files.mkdir(parents=True)
    shutil.copy(DEMO / "trace.jsonl", files / "trace.jsonl")
    shutil.copy(DEMO / "transcript.json", files / "transcript.json")
    lines = []
    for i in range(calls):
        row = {
            "call_id": f"c{i:03d}",
            "trace": "files/trace.jsonl",
            "agent": "v1" if i < calls // 2 else "v2",
            "started_at": f"2026-11-{1 + i % 2:02d}T10:00:00Z",
            "order_id": "A-3090" if i % 2 == 0 else "A-3091",
        }
        if i % 3:
            row["transcript"] = "files/transcript.json"
        lines.append(json.dumps(row))
    manifest = root / "calls.jsonl"
    manifest.write_text("\n".join(lines) + "\n")
    assertions = root / "assertions.yaml"
    assertions.write_text(ASSERTIONS)
    return Fleet(root, manifest, assertions, DEMO / "orders.sqlite", calls)


@pytest.fixture
def fleet(tmp_path: Path) -> Fleet:
    return make_fleet(tmp_path)


def table_rows(out: Path, table: str) -> list[dict[str, object]]:
    """Every row of one table of a results folder, as pyarrow reads the folder: its compacted
    files partitioned Hive-style (agent and date in the path, typed as text so a folder whose
    calls have no start time still reads) and any per-batch parts beside them."""
    import pyarrow as pa
    import pyarrow.dataset as ds

    keys = ds.partitioning(
        pa.schema([("agent", pa.string()), ("date", pa.string())]), flavor="hive"
    )
    rows: list[dict[str, object]] = (
        ds.dataset(out / table, partitioning=keys).to_table().to_pylist()
    )
    return rows
