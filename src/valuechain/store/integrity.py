"""Whether a store file is whole, checked before anything is written to it.

Two checks, by cost:

- ``check_length`` (every open, well under a millisecond): DuckDB's file starts with a main
  header and two database headers of 4 KiB each; the newer database header counts the blocks
  the file holds after them. A file shorter than that count says was cut short (a copy that
  stopped, a full disk during a copy). DuckDB itself would open it and only fail when a read
  reaches the missing part — and a writable open would first grow the file and write to it.
- ``scan`` (cost grows with the store: 3–10 ms per MB on a loaded 2-core machine, so tens of
  seconds for a 4 GB store): read every column of every table, so DuckDB checks the checksum
  of every block that holds table data. Only a read
  finds a damaged block; the blocks a command never reads are found by nothing else. It runs
  before a writable open changes anything by itself: the replay of a write-ahead log that a
  killed process left, the set-up of a store a new valuechain opens first, the undoing of an
  interrupted import.
"""

from __future__ import annotations

import struct
from pathlib import Path

import duckdb

from valuechain.store.disk import damage, damaged

# DuckDB's file layout (storage/single_file_block_manager.cpp): the magic bytes after the main
# header's checksum; two database headers, each a checksum then (iteration, meta block, free
# list, block count, block allocation size); blocks after the three headers.
_HEADER = 4096
_MAGIC = b"DUCK"
_MAGIC_AT = 8
_FIELDS = struct.Struct("<8xQQQQQ")  # checksum skipped
_BLOCKS_AT = 3 * _HEADER
_DEFAULT_BLOCK = 262144  # a header written before block sizes were recorded says 0
_LARGEST_BLOCK = 1 << 30  # anything larger is no block size: DuckDB's header checksum says so


def check_length(path: Path) -> None:
    """Refuse (`damaged`) a DuckDB file shorter than its own header says; a file that is no
    DuckDB file, or absent, is left to DuckDB (it refuses the one, creates the other)."""
    try:
        with path.open("rb") as file:
            head = file.read(_BLOCKS_AT)
            size = file.seek(0, 2)
    except (FileNotFoundError, IsADirectoryError):
        return
    if head[_MAGIC_AT : _MAGIC_AT + len(_MAGIC)] != _MAGIC:
        return
    if size < _BLOCKS_AT:
        raise damaged(str(path), f"cut short: {size} bytes, less than its {_BLOCKS_AT} of headers")
    expected = _expected_size(head)
    if expected is not None and size < expected:
        raise damaged(
            str(path), f"cut short: {size} bytes where its header counts {expected} bytes"
        )


def _expected_size(head: bytes) -> int | None:
    """The size the active database header implies; None when its fields make no sense (a
    damaged header, which DuckDB's own checksum refuses)."""
    first = _FIELDS.unpack_from(head, _HEADER)
    second = _FIELDS.unpack_from(head, 2 * _HEADER)
    _, _, _, blocks, block_size = first if first[0] > second[0] else second  # DuckDB's pick
    block_size = block_size or _DEFAULT_BLOCK
    if block_size > _LARGEST_BLOCK or block_size & (block_size - 1):
        return None
    return _BLOCKS_AT + int(blocks) * int(block_size)


def scan(con: duckdb.DuckDBPyConnection, where: str) -> None:
    """Read every stored value of every table of the store behind ``con`` (hashing each column
    makes DuckDB read, and so checksum, every block of it); `damaged` at the first bad block."""
    tables = con.execute(
        "SELECT schema_name, table_name FROM duckdb_tables() "
        "WHERE database_name = current_database() AND NOT internal"
    ).fetchall()
    try:
        for schema, table in tables:
            con.execute(f'SELECT bit_xor(hash(COLUMNS(*))) FROM "{schema}"."{table}"').fetchall()
    except duckdb.Error as exc:
        found = damage(exc, where)
        if found is None:
            raise
        raise found from exc
