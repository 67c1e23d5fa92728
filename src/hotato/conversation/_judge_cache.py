"""The judge's verdict cache: one file per question, named by the digest of what was asked.

A rerun asking the same endpoint, model, prompt and evidence replays the verdict instead of
asking again; another endpoint (another server behind the same model name) is asked afresh. The
cache lives in the user's cache folder (`$XDG_CACHE_HOME/hotato/judge`, else
`~/.cache/hotato/judge`), never in the working tree where it could be committed or planted. It
is a convenience, not evidence: an unreadable entry is asked again.
"""

from __future__ import annotations

import os
from pathlib import Path

import msgspec

from hotato._io import write_atomic
from hotato.conversation._judge_prompt import PROMPT_VERSION, Answer, Verdict, canonical, sha256
from hotato.model.errors import InputError


def default_cache_dir() -> Path:
    """The user's cache folder for judge verdicts."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "hotato" / "judge"


class _Entry(msgspec.Struct, forbid_unknown_fields=True):
    endpoint: str
    model: str
    prompt_sha256: str
    input_sha256: str
    verdict: Verdict
    rationale: str


def _path(
    cache_dir: Path, endpoint: str, model: str, prompt_sha256: str, input_sha256: str
) -> Path:
    question = {
        "version": PROMPT_VERSION,
        "endpoint": endpoint,
        "model": model,
        "temperature": 0,
        "prompt_sha256": prompt_sha256,
        "input_sha256": input_sha256,
    }
    return cache_dir / f"{sha256(canonical(question))}.json"


def read(
    cache_dir: Path, endpoint: str, model: str, prompt_sha256: str, input_sha256: str
) -> Answer | None:
    try:
        data = _path(cache_dir, endpoint, model, prompt_sha256, input_sha256).read_bytes()
        entry = msgspec.json.decode(data, type=_Entry)
    except (OSError, msgspec.DecodeError, RecursionError):
        return None
    if (entry.endpoint, entry.model, entry.prompt_sha256, entry.input_sha256) != (
        endpoint,
        model,
        prompt_sha256,
        input_sha256,
    ):
        return None
    return Answer(entry.verdict, entry.rationale)


def write(
    cache_dir: Path,
    endpoint: str,
    model: str,
    prompt_sha256: str,
    input_sha256: str,
    answer: Answer,
) -> None:
    entry = _Entry(endpoint, model, prompt_sha256, input_sha256, answer.verdict, answer.rationale)
    target = _path(cache_dir, endpoint, model, prompt_sha256, input_sha256)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError.one(
            f"cannot write the judge cache: {exc.strerror}", file=str(cache_dir)
        ) from None
    write_atomic(target, msgspec.json.encode(entry) + b"\n")  # a reader never sees half an entry
