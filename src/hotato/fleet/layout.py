"""Where a results folder keeps its rows, for the store that writes them and the queries
that read them.

    TABLE/part-*.parquet                      a batch's rows, as a run commits them (and the
                                              whole layout of folders hotato 2.0 wrote)
    TABLE/agent=A/date=D/part-*.parquet       compacted at the end of a run, Hive-style: the
                                              agent (URL-encoded) and the UTC day the call
                                              started, `__HIVE_DEFAULT_PARTITION__` for none;
                                              the two are in the path, not in the file
    .compacting/, compaction.json             a compaction under way (see hotato.fleet.compact)

TABLE is `results` (a row per call x assertion) or `calls` (a row per call)."""

from __future__ import annotations

from pathlib import Path

RESULTS = "results"
CALLS = "calls"
TABLES = (RESULTS, CALLS)
FLAT = "part-*.parquet"
PARTITIONED = "agent=*/date=*/*.parquet"
PARTITION_KEYS = ("agent", "date")


def flat_parts(root: Path, table: str) -> list[Path]:
    return sorted((root / table).glob(FLAT))


def compacted_parts(root: Path, table: str) -> list[Path]:
    return sorted((root / table).glob(PARTITIONED))


def all_parts(root: Path, table: str) -> list[Path]:
    return flat_parts(root, table) + compacted_parts(root, table)


def relative(root: Path, table: str, part: Path) -> str:
    """The part's name inside its table's folder: `part-x.parquet`, `agent=a/date=d/...`."""
    return part.relative_to(root / table).as_posix()
