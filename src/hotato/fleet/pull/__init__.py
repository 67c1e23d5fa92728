"""`hotato fleet pull`: production calls listed and downloaded through a voice platform's
documented list-calls API, written as call folders and a manifest `hotato fleet grade` reads.

One module per platform, one line each in SOURCES. Credentials come from an environment
variable named by the user and never reach output; pages, rate limits and retries are handled;
a call folder already written is skipped, so an interrupted pull resumes."""

from __future__ import annotations

from hotato.fleet.pull._source import Source
from hotato.fleet.pull.retell import RETELL
from hotato.fleet.pull.vapi import VAPI

SOURCES: dict[str, Source] = {s.name: s for s in (VAPI, RETELL)}

__all__ = ["SOURCES", "Source"]
