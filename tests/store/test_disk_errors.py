"""DuckDB's errors about the store file, each as the one `StoreError` that names the fix:
a block found damaged mid-command is no traceback, a newer DuckDB's file no "check the path"."""

from __future__ import annotations

import duckdb

from valuechain.store.disk import cannot_open, storage_error

# DuckDB 2.0's words, as it raises them
CORRUPT_BLOCK = (
    "Corrupt database file: computed checksum 14587144652413681391 does not match stored "
    "checksum 5944988357160070568 in block at location 274432"
)
NEWER_FORMAT = (
    "IO Error: Trying to read a database file with storage version number 9999, but we can "
    "only read storage versions between 64 and 69. The database file was created with a newer "
    "version of DuckDB. Newer DuckDB version might introduce backward incompatible changes"
)


def test_a_block_found_damaged_mid_command_is_a_damaged_store() -> None:
    found = storage_error(duckdb.Error(CORRUPT_BLOCK), "s.duckdb")  # a plain duckdb.Error
    assert found is not None
    assert found.problem.startswith("the store file is damaged (Corrupt database file")
    assert found.hint is not None and "restore a copy of the store" in found.hint


def test_a_users_error_that_names_a_checksum_is_not_a_damaged_store() -> None:
    said = 'Binder Error: Referenced column "checksum" not found'
    assert storage_error(duckdb.BinderException(said), "s.duckdb") is None


def test_a_store_in_a_newer_duckdb_format_says_upgrade() -> None:
    error = cannot_open("s.duckdb", duckdb.IOException(NEWER_FORMAT))
    assert error.problem.startswith("cannot open the store (IO Error: Trying to read")
    assert error.hint is not None
    assert error.hint.startswith("the store was written by a newer DuckDB")
    assert "upgrade valuechain" in error.hint and "check the path" not in error.hint
