"""Calls on S3: the manifest and the files behind s3:// URLs, read through fsspec from a local
S3 server (moto's server mode on 127.0.0.1), graded like the same calls on disk."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.fleet.conftest import make_fleet, table_rows

from hotato.fleet.grade import FleetRequest, grade_fleet


@pytest.fixture
def s3(monkeypatch: pytest.MonkeyPatch) -> Iterator[object]:
    from moto.server import ThreadedMotoServer

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    for key, value in {
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_ENDPOINT_URL": f"http://127.0.0.1:{port}",
    }.items():
        monkeypatch.setenv(key, value)
    import boto3
    import s3fs

    s3fs.S3FileSystem.clear_instance_cache()
    client = boto3.client("s3")
    client.create_bucket(Bucket="night")
    try:
        yield client
    finally:
        s3fs.S3FileSystem.clear_instance_cache()
        server.stop()


@pytest.mark.slow  # a local S3 server
def test_a_manifest_on_s3_grades_like_the_same_calls_on_disk(s3: object, tmp_path: Path) -> None:
    fleet = make_fleet(tmp_path / "fleet", calls=6)
    rows = fleet.rows()
    rows[5]["trace"] = "files/gone.jsonl"  # missing on S3: that call alone is refused
    fleet.manifest.write_text("".join(json.dumps(r) + "\n" for r in rows))
    for path in [fleet.manifest, *sorted((fleet.root / "files").iterdir())]:
        key = path.relative_to(fleet.root).as_posix()
        s3.put_object(Bucket="night", Key=f"2026-11-01/{key}", Body=path.read_bytes())  # type: ignore[attr-defined]
    common = dict(assertions=str(fleet.assertions), state=str(fleet.state), workers=1)
    done = grade_fleet(
        FleetRequest(calls="s3://night/2026-11-01/calls.jsonl", out=str(tmp_path / "s3"), **common)
    )
    grade_fleet(FleetRequest(calls=str(fleet.manifest), out=str(tmp_path / "disk"), **common))
    assert done.totals is not None and (done.totals.graded, done.totals.refused) == (5, 1)
    calls = {c["call_id"]: c for c in table_rows(tmp_path / "s3", "calls")}
    assert "s3://night/2026-11-01/files/gone.jsonl" in calls["c005"]["message"]

    def rows_of(out: Path) -> list[tuple[object, ...]]:
        table = table_rows(out, "results")
        return sorted(
            (r["call_id"], r["assertion_id"], r["status"], r["input_digest"]) for r in table
        )

    # same bytes, same keys: the input digest is of the content, not of where it was read
    assert rows_of(tmp_path / "s3") == rows_of(tmp_path / "disk")
