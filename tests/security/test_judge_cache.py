"""The judge cache binds a verdict to the endpoint that gave it, and lives in the user's cache
folder, never in the working tree (where a planted entry could be committed or pre-seeded)."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.judge.conftest import FakeJudge, fake_judge  # noqa: F401
from tests.judge.test_judge import RUBRIC, TRANSCRIPT

from hotato.conversation.judge import Judge, JudgeConfig, JudgeStatus, default_cache_dir


def test_another_endpoint_is_asked_not_answered_from_the_cache(
    fake_judge: FakeJudge,  # noqa: F811
    tmp_path: Path,
) -> None:
    cache = tmp_path / "cache"
    fake_judge.answer("fail")
    Judge(JudgeConfig(fake_judge.url, "m", cache_dir=cache)).evaluate(RUBRIC, TRANSCRIPT, None)
    fake_judge.answer("pass")
    other = fake_judge.url.replace("127.0.0.1", "localhost")  # another endpoint, same model
    result = Judge(JudgeConfig(other, "m", cache_dir=cache)).evaluate(RUBRIC, TRANSCRIPT, None)
    assert result.status is JudgeStatus.PASS and len(fake_judge.requests) == 2


def test_the_default_cache_is_in_the_users_cache_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert default_cache_dir() == tmp_path / "xdg" / "hotato" / "judge"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert default_cache_dir() == tmp_path / "home" / ".cache" / "hotato" / "judge"
