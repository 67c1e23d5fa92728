"""`hotato fleet pull` against a hostile list-calls API on 127.0.0.1: an answer too big or too
slow, a pagination key that repeats, call ids that are paths, and keys and URLs that must not be
shown. Each is a refusal (exit 2) that names the problem, never a hang, a write outside --out,
an exit 3 or a secret in the output."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from tests.adapters.conftest import Api, Seen
from tests.conftest import Ran, hotato
from tests.security.servers import hostile

KEY_ENV = "HOTATO_TEST_PULL_KEY"
KEY = "sk-pull-never-shown-4b1d"


def pull(url: str, out: Path, vendor: str = "vapi", *extra: str) -> Ran:
    return hotato(
        "fleet", "pull", "--from", vendor, "--since", "2026-11-01", "--out", str(out),
        "--base-url", url, "--api-key-env", KEY_ENV, *extra,
    )  # fmt: skip


@pytest.fixture
def key(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv(KEY_ENV, KEY)
    return KEY


def _vapi(*ids: Any) -> list[dict[str, Any]]:
    return [{"id": i, "createdAt": f"2026-11-01T10:0{n}:00Z"} for n, i in enumerate(ids)]


def test_a_huge_answer_is_refused_before_it_is_read(tmp_path: Path, key: str) -> None:
    with hostile("huge-declared") as server:
        started = time.monotonic()
        ran = pull(server.url, tmp_path / "calls")
    assert ran.code == 2, ran.out + ran.err
    assert "over 64 MiB" in ran.err and "--page-size" in ran.err
    assert time.monotonic() - started < 10


def test_an_answer_sent_a_byte_at_a_time_ends_at_the_deadline(
    tmp_path: Path, key: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("hotato.fleet.pull._http.ANSWER_DEADLINE_S", 1.0)
    with hostile("dribble-body", pace=0.2) as server:
        started = time.monotonic()
        ran = pull(server.url, tmp_path / "calls")
    assert ran.code == 2, ran.out + ran.err
    assert "no complete answer within 1s" in ran.err
    assert time.monotonic() - started < 5


def test_a_repeating_pagination_key_stops_the_pull(tmp_path: Path, key: str, api: Api) -> None:
    def page(seen: Seen) -> tuple[int, Any]:
        item = {"call_id": f"r-{len(api.seen)}", "start_timestamp": 1_790_000_000_000}
        return 200, {"items": [item], "has_more": True, "pagination_key": "same"}

    api.routes[("POST", "/v3/list-calls")] = page
    ran = pull(api.url, tmp_path / "calls", "retell")
    assert ran.code == 2, ran.out + ran.err
    assert "pagination_key it gave before" in ran.err
    assert len(api.seen) == 2


def test_a_vapi_page_that_is_not_older_stops_the_pull(tmp_path: Path, key: str, api: Api) -> None:
    api.routes[("GET", "/call")] = (200, _vapi("v-1", "v-2"))
    ran = pull(api.url, tmp_path / "calls", "vapi", "--page-size", "2")
    assert ran.code == 2, ran.out + ran.err
    assert "not older than the last" in ran.err
    assert len(api.seen) == 2


def test_call_ids_that_are_paths_stay_inside_out_each_in_its_own_folder(
    tmp_path: Path, key: str, api: Api
) -> None:
    ids = ["..", ".", "a/b", "a_b", "../../escape", ".hidden", "x%2Fy"]
    api.routes[("GET", "/call")] = (200, _vapi(*ids))
    out = tmp_path / "deep" / "calls"
    ran = pull(api.url, out)
    assert ran.code == 0, ran.out + ran.err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["deep"]
    assert sorted(p.name for p in (tmp_path / "deep").iterdir()) == ["calls"]
    folders = sorted(p.name for p in out.iterdir() if p.is_dir())
    assert len(folders) == len(ids)
    assert "a_b" in folders and "a%2Fb" in folders and "%2E." in folders
    import json

    rows = [json.loads(line) for line in (out / "calls.jsonl").read_text().splitlines()]
    assert sorted(r["call_id"] for r in rows) == sorted(ids)


def test_a_listed_call_with_no_id_is_a_refusal(tmp_path: Path, key: str, api: Api) -> None:
    api.routes[("GET", "/call")] = (200, [{"createdAt": "2026-11-01T10:00:00Z"}])
    ran = pull(api.url, tmp_path / "calls")
    assert ran.code == 2, ran.out + ran.err
    assert "a listed call has no id" in ran.err


def test_a_password_in_the_base_url_is_refused_and_never_shown(tmp_path: Path, key: str) -> None:
    ran = pull("https://user:hunter2-secret@api.example.com", tmp_path / "calls")
    assert ran.code == 2, ran.out + ran.err
    assert "must not carry a user or password" in ran.err
    assert "hunter2-secret" not in ran.out + ran.err


@pytest.mark.parametrize(
    ("value", "why"),
    [(KEY + "\n", "ends in a line break"), ("sk-clé", "non-ASCII")],
    ids=["trailing-newline", "non-ascii"],
)
def test_a_key_that_cannot_travel_is_refused_by_name_at_once(
    tmp_path: Path, api: Api, monkeypatch: pytest.MonkeyPatch, value: str, why: str
) -> None:
    monkeypatch.setenv(KEY_ENV, value)
    ran = pull(api.url, tmp_path / "calls")
    assert ran.code == 2, ran.out + ran.err
    assert KEY_ENV in ran.err and why in ran.err
    assert value.strip() not in ran.out + ran.err
    assert api.seen == []  # refused before any request, not after five retries


def test_out_under_a_file_is_a_refusal(tmp_path: Path, key: str, api: Api) -> None:
    (tmp_path / "file").write_text("x")
    ran = pull(api.url, tmp_path / "file" / "calls")
    assert ran.code == 2, ran.out + ran.err
    assert "cannot make the --out folder" in ran.err
