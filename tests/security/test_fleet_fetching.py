"""Fleet grading fetches only what the user allows. A manifest row naming a file behind a URL
(the metadata-service trick: `trace: http://HOST/...`) is refused before anything is requested,
unless its place is the manifest's own or one `--allow-remote` names; plain http is never
implied. A Dask scheduler off this machine is TLS, or plaintext only when asked; a malformed
or unconfigured address is a refusal, never an exit 3."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from tests.adapters.conftest import Api
from tests.conftest import Ran, hotato
from tests.fleet.conftest import DEMO, make_fleet

pytest.importorskip("pyarrow")


def grade(manifest: Path, assertions: Path, out: Path, *extra: str) -> Ran:
    return hotato(
        "fleet", "grade", str(manifest), "--assertions", str(assertions), "--out", str(out),
        "--workers", "1", *extra,
    )  # fmt: skip


def _remote_row(tmp_path: Path, url: str) -> tuple[Path, Path]:
    fleet = make_fleet(tmp_path / "fleet", calls=2)
    rows = fleet.rows()
    rows[1]["trace"] = url
    fleet.manifest.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return fleet.manifest, fleet.assertions


def test_a_manifest_row_cannot_make_hotato_request_a_host_it_names(
    tmp_path: Path, api: Api
) -> None:
    manifest, assertions = _remote_row(tmp_path, f"{api.url}/latest/meta-data/iam")
    ran = grade(manifest, assertions, tmp_path / "out")
    assert ran.code == 2, ran.out + ran.err
    assert f"{manifest}:2" in ran.err
    assert f"--allow-remote http://127.0.0.1:{api.port}" in ran.err
    assert api.seen == []
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    "url",
    ["simplecache::http://127.0.0.1:1/t.jsonl", "https://169.254.169.254/latest/meta-data"],
    ids=["chained", "https-elsewhere"],
)
def test_other_remote_rows_are_refused_too(tmp_path: Path, url: str) -> None:
    manifest, assertions = _remote_row(tmp_path, url)
    ran = grade(manifest, assertions, tmp_path / "out")
    assert ran.code == 2, ran.out + ran.err
    assert f"{manifest}:2" in ran.err


def test_a_place_the_user_allows_is_read(tmp_path: Path, api: Api) -> None:
    api.routes[("GET", "/t.jsonl")] = (200, (DEMO / "trace.jsonl").read_bytes())
    manifest, assertions = _remote_row(tmp_path, f"{api.url}/t.jsonl")
    ran = grade(manifest, assertions, tmp_path / "out", "--allow-remote", api.url)
    assert ran.code in (0, 1), ran.out + ran.err
    assert "2 graded, 0 refused" in ran.out
    assert [s.path for s in api.seen if s.method == "GET"][:1] == ["/t.jsonl"]


def test_allow_remote_must_be_a_scheme_and_host(tmp_path: Path) -> None:
    manifest, assertions = _remote_row(tmp_path, "files/trace.jsonl")
    ran = grade(manifest, assertions, tmp_path / "out", "--allow-remote", "s3")
    assert ran.code == 2 and "is not SCHEME://HOST" in ran.err, ran.out + ran.err


@pytest.mark.parametrize(
    ("address", "says"),
    [
        ("tcp://203.0.113.7:8786", "plaintext to another machine"),
        ("203.0.113.7:8786", "plaintext to another machine"),
        ("tcp://127.0.0.1:notaport", "is not SCHEME://HOST:PORT"),
        ("gopher://127.0.0.1:8786", "unknown scheme"),
        ("tls://127.0.0.1:8786", "needs Dask's TLS configuration"),
    ],
    ids=["tcp-remote", "bare-remote", "bad-port", "unknown-scheme", "tls-unconfigured"],
)
def test_a_scheduler_address_is_checked_before_anything(
    tmp_path: Path, address: str, says: str
) -> None:
    pytest.importorskip("distributed")
    fleet = make_fleet(tmp_path / "fleet", calls=2)
    started = time.monotonic()
    ran = grade(fleet.manifest, fleet.assertions, tmp_path / "out", "--scheduler", address)
    assert ran.code == 2, ran.out + ran.err
    assert says in ran.err
    assert time.monotonic() - started < 10  # refused, not waited on
    assert not (tmp_path / "out").exists()
