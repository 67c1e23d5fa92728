"""`adapter: http`: an HTTP API with a resource map, after an explicit egress opt-in."""

from __future__ import annotations

from hotato.adapters.config import (
    HttpAdapterFile,
    HttpConfig,
    HttpResourceSpec,
    http_config,
    http_resource_problems,
)
from hotato.adapters.registry import StateAdapter
from hotato.model.state import StateReader


def _open(config: HttpConfig, name: str) -> tuple[StateReader, str]:
    from hotato.adapters.http import HttpReader

    return HttpReader(config), f"http {config.spec.base_url} (adapter {name})"


HTTP = StateAdapter(HttpAdapterFile, HttpResourceSpec, http_resource_problems, http_config, _open)
