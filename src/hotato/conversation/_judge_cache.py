"""The judge's verdict cache: one file per question, named by the digest of what was asked.

A rerun with the same model, prompt and evidence replays the verdict instead of asking again.
The cache is a convenience, not evidence: an unreadable entry is asked again.
"""

from __future__ import annotations

from pathlib import Path

import msgspec

from hotato._io import write_atomic
from hotato.conversation._judge_prompt import PROMPT_VERSION, Answer, Verdict, canonical, sha256
from hotato.model.errors import InputError


class _Entry(msgspec.Struct, forbid_unknown_fields=True):
    model: str
    prompt_sha256: str
    input_sha256: str
    verdict: Verdict
    rationale: str


def _path(cache_dir: Path, model: str, prompt_sha256: str, input_sha256: str) -> Path:
    question = {
        "version": PROMPT_VERSION,
        "model": model,
        "temperature": 0,
        "prompt_sha256": prompt_sha256,
        "input_sha256": input_sha256,
    }
    return cache_dir / f"{sha256(canonical(question))}.json"


def read(cache_dir: Path, model: str, prompt_sha256: str, input_sha256: str) -> Answer | None:
    try:
        data = _path(cache_dir, model, prompt_sha256, input_sha256).read_bytes()
        entry = msgspec.json.decode(data, type=_Entry)
    except (OSError, msgspec.DecodeError):
        return None
    if (entry.model, entry.prompt_sha256, entry.input_sha256) != (
        model,
        prompt_sha256,
        input_sha256,
    ):
        return None
    return Answer(entry.verdict, entry.rationale)


def write(
    cache_dir: Path, model: str, prompt_sha256: str, input_sha256: str, answer: Answer
) -> None:
    entry = _Entry(model, prompt_sha256, input_sha256, answer.verdict, answer.rationale)
    target = _path(cache_dir, model, prompt_sha256, input_sha256)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError.one(
            f"cannot write the judge cache: {exc.strerror}", file=str(cache_dir)
        ) from None
    write_atomic(target, msgspec.json.encode(entry) + b"\n")  # a reader never sees half an entry
