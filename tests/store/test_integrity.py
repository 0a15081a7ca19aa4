"""Nothing is written to a store before it is known whole (issue 38.3): the length its header
counts, an open of a current store that writes nothing, a store with a write-ahead log read
back before a writable open, and the one damaged-store error from the Python API too."""

from __future__ import annotations

import hashlib
import struct
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import duckdb
import pytest
from store_damage import flipped

import valuechain
from valuechain.errors import StoreError
from valuechain.store import Database
from valuechain.store.files import wal_path
from valuechain.store.integrity import check_length

Write = Callable[[str, bytes | dict[str, Any]], Path]


@pytest.fixture
def store(tmp_path: Path, otlp: SimpleNamespace, write: Write) -> Path:
    path = tmp_path / "s.duckdb"
    with valuechain.open(path) as opened:
        spans = [otlp.span(n, name=f"s{n}") for n in range(1, 40)]
        assert opened.import_paths([write("a.json", otlp.request(*spans))]).ok
    return path


def _state(path: Path) -> tuple[str, int, bool]:
    return (
        hashlib.sha256(path.read_bytes()).hexdigest(),
        path.stat().st_size,
        wal_path(path).exists(),
    )


def test_opening_a_current_store_for_writing_writes_nothing(store: Path) -> None:
    before = _state(store)
    Database(store).close()
    assert _state(store) == before


def test_a_store_another_valuechain_set_up_is_set_up_again(store: Path) -> None:
    with Database(store) as db:
        db.con.execute("UPDATE core.meta SET value = 'other' WHERE key = 'setup_digest'")
        db.con.execute("DROP VIEW main.spans")
    with Database(store) as db:
        assert db.fetch_one("SELECT count(*) FROM spans") == (39,)


CUTS: dict[str, Callable[[int], int]] = {
    "half": lambda size: size // 2,
    "one byte short": lambda size: size - 1,
    "within its headers": lambda size: 5000,
}


@pytest.mark.parametrize("cut", sorted(CUTS))
def test_a_file_shorter_than_its_header_counts_is_damaged(store: Path, cut: str) -> None:
    data = store.read_bytes()
    store.write_bytes(data[: CUTS[cut](len(data))])
    with pytest.raises(StoreError, match=r"the store file is damaged \(cut short: "):
        check_length(store)


def test_a_file_duckdb_cut_its_free_blocks_off_is_whole(tmp_path: Path) -> None:
    """DuckDB truncates free blocks off the end of the file, and its header still counts them:
    only the blocks in use (the header's count less the free list's tail) must be there."""
    path = tmp_path / "shrunk.duckdb"
    with duckdb.connect(str(path)) as con:
        con.execute("CREATE TABLE kept AS SELECT range AS i FROM range(1000)")
        con.execute("CHECKPOINT")
        con.execute("CREATE TABLE dropped AS SELECT range AS i, md5(i::VARCHAR) FROM range(300000)")
        con.execute("CHECKPOINT")
        con.execute("DROP TABLE dropped")
        con.execute("CHECKPOINT")
    head = path.read_bytes()[: 3 * 4096]
    headers = [struct.unpack_from("<8xQQQQQ", head, at) for at in (4096, 2 * 4096)]
    _, _, _, blocks, block_size = max(headers)  # the active one: the later iteration
    assert path.stat().st_size < 3 * 4096 + blocks * block_size  # shorter than its count says
    check_length(path)
    path.write_bytes(path.read_bytes()[: path.stat().st_size - 1])
    with pytest.raises(StoreError, match=r"the store file is damaged \(cut short: "):
        check_length(path)


def test_a_whole_file_and_no_duckdb_file_pass_the_length_check(store: Path) -> None:
    check_length(store)
    other = store.with_name("notes.txt")
    other.write_text("hello")
    check_length(other)  # DuckDB's own refusal names it
    check_length(store.with_name("absent.duckdb"))


def _leave_a_write_ahead_log(path: Path) -> None:
    """A process that commits to the store and is killed before it checkpoints."""
    script = (
        "import os, sys, duckdb\n"
        "con = duckdb.connect(sys.argv[1])\n"
        "con.execute(\"SET checkpoint_threshold = '1GB'\")\n"
        "con.execute(\"INSERT INTO core.meta VALUES ('left', 'by a killed writer')\")\n"
        "os._exit(0)\n"
    )
    subprocess.run([sys.executable, "-c", script, str(path)], check=True)
    assert wal_path(path).exists()


def test_a_store_with_a_log_is_read_back_before_it_is_opened_for_writing(store: Path) -> None:
    store.write_bytes(flipped(store, "attributes"))  # a block no open reads
    _leave_a_write_ahead_log(store)
    before, log = _state(store), wal_path(store).read_bytes()
    with pytest.raises(StoreError, match=r"the store file is damaged \(Corrupt database file"):
        Database(store)
    assert _state(store) == before and wal_path(store).read_bytes() == log


def test_a_whole_store_with_a_log_opens_and_keeps_what_was_committed(store: Path) -> None:
    _leave_a_write_ahead_log(store)
    with Database(store) as db:
        assert db.fetch_one("SELECT value FROM core.meta WHERE key = 'left'") == (
            "by a killed writer",
        )


def test_the_python_api_says_damaged_too(store: Path) -> None:
    data = store.read_bytes()
    store.write_bytes(flipped(store, "meta"))  # read by every open
    with pytest.raises(StoreError, match=r"the store file is damaged \(Corrupt database file"):
        valuechain.open(store)
    store.write_bytes(data)
    store.write_bytes(flipped(store, "spans"))
    with (
        valuechain.open(store, read_only=True) as opened,
        pytest.raises(StoreError, match=r"the store file is damaged \(Corrupt database file"),
    ):
        opened.sql("SELECT * FROM spans")
