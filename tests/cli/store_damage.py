"""Damage a store file the way disks and copies do (imported by basename)."""

from __future__ import annotations

from pathlib import Path

import duckdb


def flipped(path: Path, table: str) -> bytes:
    """The bytes of the store at ``path`` with one byte of ``table``'s (``core.TABLE``) first
    block of data inverted, so that block's checksum no longer matches."""
    data = path.read_bytes()
    with duckdb.connect(str(path), read_only=True) as con:
        block_size = con.execute("SELECT block_size FROM pragma_database_size()").fetchall()[0][0]
        block, offset = con.execute(
            f"SELECT block_id, block_offset FROM pragma_storage_info('core.{table}') "
            "WHERE block_id >= 0 ORDER BY row_group_id, column_id LIMIT 1"
        ).fetchall()[0]
    at = 3 * 4096 + block * block_size + 8 + offset  # after the headers and the block checksum
    changed = bytearray(data)
    changed[at] ^= 0xFF
    return bytes(changed)
