"""`adapter: sql`: any SQL database by URL (or a SQLite file), a table or a SELECT per resource."""

from __future__ import annotations

from hotato.adapters.config import (
    SqlAdapterFile,
    SqlConfig,
    SqlResourceSpec,
    sql_config,
    sql_resource_problems,
)
from hotato.adapters.registry import StateAdapter
from hotato.model.state import StateReader


def _open(config: SqlConfig, name: str) -> tuple[StateReader, str]:
    from hotato.adapters.sql import SqlReader

    reader = SqlReader(config.target, config.resources)
    return reader, f"{config.target.label} (read-only, adapter {name})"


SQL = StateAdapter(SqlAdapterFile, SqlResourceSpec, sql_resource_problems, sql_config, _open)
