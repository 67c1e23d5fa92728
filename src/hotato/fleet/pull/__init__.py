"""`hotato fleet pull`: production calls listed and downloaded through a voice platform's
documented list-calls API, written as call folders and a manifest `hotato fleet grade` reads.

One module per platform, one line each in SOURCES (a team's own platform registers in the
`hotato.pull_sources` entry-point group). Credentials come from an environment variable named by
the user and never reach output; pages, rate limits and retries are handled; a call folder
already written is skipped, so an interrupted pull resumes."""

from __future__ import annotations

from hotato.fleet.pull._source import Source
from hotato.model.registry import Registry

SOURCES: Registry[Source] = Registry(
    "pull source",
    Source,
    {
        "vapi": "hotato.fleet.pull.vapi:VAPI",
        "retell": "hotato.fleet.pull.retell:RETELL",
    },
    group="hotato.pull_sources",
    check=lambda name, source: source.name == name,
)

__all__ = ["SOURCES", "Source"]
