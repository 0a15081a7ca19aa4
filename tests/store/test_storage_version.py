"""The docs' claim "any DuckDB client from 1.2.0 on reads the store" (issue 15), checked
from the file itself: its main header carries the storage version number DuckDB 1.2.0 reads
(65; DuckDB 2.0's own default, 999 in the header, is refused by every client before 2.0)."""

from __future__ import annotations

import struct
from pathlib import Path

import duckdb

import valuechain
from valuechain.store.sandbox import STORAGE_COMPATIBILITY

# DuckDB's storage version numbers, by the oldest release that reads them (its storage_info).
READABLE_FROM = {64: "v1.0.0", 65: "v1.2.0"}
MINIMUM_CLIENT = "1.2.0"  # as docs/getting-started/using-it.md states it


def _header_version(path: Path) -> int:
    """The storage version in a DuckDB file's main header: after the 8-byte checksum and the
    4 magic bytes ``DUCK``, a little-endian uint64."""
    head = path.read_bytes()[:20]
    assert head[8:12] == b"DUCK", "not a DuckDB file"
    (version,) = struct.unpack("<Q", head[12:20])
    return int(version)


def test_a_new_store_is_written_in_the_format_the_oldest_named_client_reads(
    tmp_path: Path,
) -> None:
    path = tmp_path / "s.duckdb"
    with valuechain.open(path) as store:
        store.sql("SELECT 1")
    assert READABLE_FROM[_header_version(path)] == f"v{MINIMUM_CLIENT}" == STORAGE_COMPATIBILITY
    con = duckdb.connect(str(path), read_only=True)
    try:
        (tags,) = con.sql(
            "SELECT tags FROM duckdb_databases() WHERE database_name = 's'"
        ).fetchall()[0]
    finally:
        con.close()
    assert tags["storage_version"] == f"{STORAGE_COMPATIBILITY}+"


def test_the_docs_name_the_same_minimum() -> None:
    page = Path(__file__).resolve().parents[2] / "docs/getting-started/using-it.md"
    assert f"DuckDB client from {MINIMUM_CLIENT} on" in page.read_text()
