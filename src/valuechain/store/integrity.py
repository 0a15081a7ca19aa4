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
from typing import BinaryIO

import duckdb

from valuechain.store.disk import damage, damaged

# DuckDB's file layout (storage/single_file_block_manager.cpp, metadata_manager.cpp): the magic
# bytes after the main header's checksum; two database headers, each a checksum then (iteration,
# meta block, free list, block count, block allocation size); blocks after the three headers.
_HEADER = 4096
_MAGIC = b"DUCK"
_MAGIC_AT = 8
_FIELDS = struct.Struct("<8xQQQQQ")  # checksum skipped
_BLOCKS_AT = 3 * _HEADER
_CHECKSUM = 8  # the checksum that starts every block
_PIECES = 64  # a metadata block holds 64 pieces
_BLOCK_MASK = (1 << 56) - 1  # a metadata pointer: the piece's index above the block id
_NO_POINTER = (1 << 64) - 1
_DEFAULT_BLOCK = 262144  # a header written before block sizes were recorded says 0
_LARGEST_BLOCK = 1 << 30  # anything larger is no block size: DuckDB's header checksum says so


def check_length(path: Path) -> None:
    """Refuse (`damaged`) a DuckDB file shorter than the blocks its header says are in use; a
    file that is no DuckDB file, or absent, is left to DuckDB (it refuses the one, creates the
    other)."""
    try:
        with path.open("rb") as file:
            size = file.seek(0, 2)
            file.seek(0)
            head = file.read(_BLOCKS_AT)
            if head[_MAGIC_AT : _MAGIC_AT + len(_MAGIC)] != _MAGIC:
                return
            if size < _BLOCKS_AT:
                raise damaged(
                    str(path), f"cut short: {size} bytes, less than its {_BLOCKS_AT} of headers"
                )
            expected = _size_in_use(file, head, size)
    except (FileNotFoundError, IsADirectoryError):
        return
    if expected is not None and size < expected:
        raise damaged(
            str(path), f"cut short: {size} bytes where its blocks in use end at {expected}"
        )


def _size_in_use(file: BinaryIO, head: bytes, size: int) -> int | None:
    """Where the last block in use ends, by the active database header and its free list
    (DuckDB cuts free blocks off the end of the file, yet still counts them); None when the
    header or the free list make no sense (damage DuckDB's own checksums refuse)."""
    first = _FIELDS.unpack_from(head, _HEADER)
    second = _FIELDS.unpack_from(head, 2 * _HEADER)
    _, _, free_list, blocks, block_size = first if first[0] > second[0] else second  # DuckDB's
    block_size = block_size or _DEFAULT_BLOCK
    if block_size > _LARGEST_BLOCK or block_size & (block_size - 1):
        return None
    free = _free_blocks(file, free_list, int(blocks), int(block_size), size)
    if free is None:
        return None
    last = next((b for b in range(int(blocks) - 1, -1, -1) if b not in free), -1)
    return _BLOCKS_AT + (last + 1) * int(block_size)


def _free_blocks(
    file: BinaryIO, pointer: int, blocks: int, block_size: int, size: int
) -> set[int] | None:
    """The free list the header points to: a count, then that many block ids, in a chain of
    metadata pieces (each starts with the pointer to the next). None when it cannot be read."""
    piece = (block_size - _CHECKSUM) // _PIECES // 8 * 8  # AlignValueFloor(block / 64)
    data = b""
    count: int | None = None
    for _ in range(blocks * _PIECES + 1):  # a chain longer than every piece loops
        if pointer == _NO_POINTER:
            break
        block, index = pointer & _BLOCK_MASK, pointer >> 56
        at = _BLOCKS_AT + block * block_size + _CHECKSUM + index * piece
        if block >= blocks or index >= _PIECES:
            return None
        if at + piece > size:
            return set()  # the free list's own block is cut off: count every block as in use
        file.seek(at)
        chunk = file.read(piece)
        pointer = int.from_bytes(chunk[:8], "little")
        data += chunk[8:]
        if count is None:
            count, data = int.from_bytes(data[:8], "little"), data[8:]
            if count > blocks:
                return None
        if len(data) >= 8 * count:
            return {
                int.from_bytes(data[i : i + 8], "little", signed=True)
                for i in range(0, 8 * count, 8)
            }
    return set() if count is None else None


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
