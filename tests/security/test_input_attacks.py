"""Hostile inputs that must be refused or read plainly, never crash or pass: deep nesting, a
byte-order mark, signature envelopes stuffed with signatures, links in a trust folder, and a
SQLite query that would run past its timeout."""

from __future__ import annotations

import base64
import json
import sqlite3
from pathlib import Path

import pytest
from tests.conftest import CONFORMANCE, hotato

from hotato.adapters import open_state
from hotato.artifacts.signing import MalformedEnvelope, load_trust, verify
from hotato.model.errors import InputError
from hotato.model.state import StateUnavailable

CALL = CONFORMANCE / "fx-itc-zombie-assert-run"
PHRASE = "version: 1\nassertions:\n  - {id: p, kind: phrase, regex: Rivera, role: caller}\n"
TOOL = "version: 1\nassertions:\n  - {id: t, kind: tool_call, name: book_table}\n"
DEEP = b"[" * 1000 + b"]" * 1000


@pytest.mark.parametrize("what", ["transcript", "assertions", "state"])
def test_json_nested_a_thousand_deep_is_a_refusal(tmp_path: Path, what: str) -> None:
    (tmp_path / "a.yaml").write_text(PHRASE)
    (tmp_path / "t.json").write_text('[{"role": "caller", "text": "Rivera"}]')
    (tmp_path / "deep.json").write_bytes(DEEP)
    args = {"transcript": ["--assertions", "a.yaml", "--transcript", "deep.json"],
            "assertions": ["--assertions", "deep.json", "--transcript", "t.json"],
            "state": ["--assertions", "a.yaml", "--transcript", "t.json", "--state",
                      "deep.json"]}[what]  # fmt: skip
    ran = hotato("assert", "run", *args, cwd=tmp_path)
    assert ran.code == 2, ran.err


@pytest.mark.parametrize("what", ["transcript", "trace"])
def test_a_utf8_byte_order_mark_is_read_as_nothing(tmp_path: Path, what: str) -> None:
    name = "transcript.json" if what == "transcript" else "trace.jsonl"
    (tmp_path / name).write_bytes(b"\xef\xbb\xbf" + (CALL / name).read_bytes())
    (tmp_path / "a.yaml").write_text(PHRASE if what == "transcript" else TOOL)
    ran = hotato("assert", "run", "--assertions", "a.yaml", f"--{what}", name, cwd=tmp_path)
    assert ran.code == 0, ran.out + ran.err


def test_an_envelope_stuffed_with_signatures_is_refused(tmp_path: Path) -> None:
    from tests.artifacts.conftest import write_keypair

    keys = write_keypair(tmp_path / "k")
    bogus = {"keyid": "x", "sig": base64.b64encode(b"\0" * 64).decode()}
    envelope = {
        "payload": base64.b64encode(b"{}").decode(),
        "payloadType": "application/vnd.hotato.label+json",
        "signatures": [bogus] * 1000,  # each would be tried against every trusted key
    }
    with pytest.raises(MalformedEnvelope, match="at most"):
        verify(json.dumps(envelope).encode(), load_trust([keys.public]))


def test_a_trust_folder_never_follows_a_link_to_a_key_elsewhere(tmp_path: Path) -> None:
    from tests.artifacts.conftest import write_keypair

    elsewhere = write_keypair(tmp_path / "elsewhere", "stranger")
    mine = write_keypair(tmp_path / "trusted", "me")
    (mine.public.parent / "stranger.pub").symlink_to(elsewhere.public)
    with pytest.raises(InputError, match="holds a link"):
        load_trust([mine.public.parent])


def test_timeout_s_bounds_a_configured_sqlite_query(tmp_path: Path) -> None:
    db = tmp_path / "shop.db"
    with sqlite3.connect(db) as conn:
        conn.execute("CREATE TABLE orders (id INTEGER PRIMARY KEY)")
    # A recursive CTE that would count for hours; timeout_s is 0.3 s.
    forever = (
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) "
        "SELECT count(*) AS c FROM n WHERE i > :floor"
    )
    adapter = tmp_path / "db.yaml"
    adapter.write_text(
        f"adapter: sql\nurl: sqlite:///shop.db\ntimeout_s: 0.3\nresources:\n"
        f'  slow:\n    query: "{forever}"\n'
    )
    with open_state(str(adapter)) as state, pytest.raises(StateUnavailable) as caught:
        state.after.query("slow", {"floor": 0})
    assert caught.value.cause == "timeout"
