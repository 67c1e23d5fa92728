"""What `--state SOURCE` may be, told apart by scheme or content; and closing a run's source."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from hotato.adapters import open_state
from hotato.adapters.cache import CachedReader
from hotato.model.errors import InputError
from hotato.model.state import StateSource, StateUnavailable


def test_a_sqlite_file_is_recognised_by_its_header_whatever_its_name(tmp_path: Path) -> None:
    path = tmp_path / "shop.json"  # a misleading name
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE orders (id INTEGER PRIMARY KEY, status TEXT)")
        conn.execute("INSERT INTO orders VALUES (1, 'none')")
    with open_state(str(path)) as state:
        assert isinstance(state, StateSource)
        assert state.after.query("orders", {"id": 1}) == {"id": 1, "status": "none"}
        assert "read-only" in state.description


def test_a_missing_sqlite_path_is_refused_and_never_created(tmp_path: Path) -> None:
    for source in (str(tmp_path / "shop.db"), f"sqlite:///{tmp_path / 'shop.db'}"):
        with pytest.raises(InputError, match="does not exist"):
            open_state(source)
    assert not (tmp_path / "shop.db").exists()


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("https://api.example.com/v1", "adapter file"),
        ("ftp://x/y", "unsupported state source scheme"),
        ("redis://x/0", "unsupported state source scheme"),
    ],
)
def test_urls_that_are_not_databases(source: str, message: str) -> None:
    with pytest.raises(InputError, match=message):
        open_state(source)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "empty"),
        (b"   \n", "empty"),
        (b"{not json", "not valid JSON"),
        (b"\xff\xfe\x00garbage", "neither SQLite, JSON nor YAML"),
    ],
)
def test_files_that_are_nothing_we_read(tmp_path: Path, content: bytes, message: str) -> None:
    path = tmp_path / ("state.json" if b"{" in content else "state.bin")
    path.write_bytes(content)
    with pytest.raises(InputError, match=message):
        open_state(str(path))


def test_a_folder_is_refused(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="folder"):
        open_state(str(tmp_path))


def test_nothing_connects_until_the_first_read() -> None:
    state = open_state("postgresql://nobody@127.0.0.1:1/none")  # a closed port: fine until read
    with pytest.raises(StateUnavailable):
        state.after.query("orders", {})
    state.close()
    state.close()  # closing twice is harmless


def test_the_after_reader_is_cached_for_the_run_and_close_releases_it(tmp_path: Path) -> None:
    path = tmp_path / "shop.db"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE t (id INTEGER PRIMARY KEY)")
    state = open_state(str(path))
    assert isinstance(state.after, CachedReader)
    state.after.query("t", {"id": 1})
    assert state.after.reader._conns  # type: ignore[attr-defined]
    state.close()
    assert not state.after.reader._conns  # type: ignore[attr-defined]
