"""Writing a command's ``--output`` file: never onto a store, never half-written.

A store is evidence, so an output file may not be the store, its write-ahead log, or any other
DuckDB database (recognised by its file header, through symlinks and hard links alike). The
bytes go to a temporary file in the target's folder that is renamed over the target only once
complete: an interrupted write leaves the old file as it was.
"""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

import orjson

from valuechain.cli.messages import compact
from valuechain.errors import UsageError

# Every DuckDB database file carries these bytes after its 8-byte checksum (its main header).
_DUCKDB_MAGIC = b"DUCK"
_MAGIC_AT = 8
_WAL_SUFFIX = ".wal"


def write_json(payload: bytes | str | Any) -> None:
    """A JSON result on standard output as every command prints one: indented two spaces,
    or on one line with ``--compact`` (``payload``: JSON text, or what orjson encodes)."""
    document = orjson.loads(payload) if isinstance(payload, bytes | str) else payload
    sys.stdout.buffer.write(json_bytes(document) + b"\n")


def json_bytes(document: Any) -> bytes:
    """``document`` as JSON, indented two spaces unless ``--compact``."""
    return orjson.dumps(document, option=0 if compact() else orjson.OPT_INDENT_2)


def write_output(
    data: bytes, output: Path, store: Path, *, option: str = "--output", example: str = "result.csv"
) -> None:
    """Write ``data`` to ``output`` atomically, refusing any file that holds a database
    (``option`` and ``example`` name the command's option and a file name in the hint)."""
    target = output.resolve()  # a symlink's target is what the write would replace
    refuse_database_files(
        output, target, store, hint=f"give {option} a new file name, e.g. {example}"
    )
    try:
        _replace_atomically(data, target)
    except OSError as exc:
        raise UsageError(
            str(output),
            f"cannot write the output ({exc.strerror or exc})",
            "check that the folder exists and is writable",
        ) from exc


def refuse_database_files(
    output: Path,
    target: Path,
    store: Path,
    *,
    hint: str = "give --output a new file name, e.g. result.csv",
) -> None:
    """Refuse a ``target`` that is the store, its WAL, or any DuckDB database or its WAL."""
    store_file = store.resolve()
    store_files = (store_file, store_file.with_name(store_file.name + _WAL_SUFFIX))
    why: str | None = None
    if target in store_files or any(_same_file(target, f) for f in store_files):
        why = f"is the store {store} (or its write-ahead log)"
    elif _is_duckdb_file(target):
        why = "is a DuckDB database"
    elif target.name.endswith(_WAL_SUFFIX) and _is_duckdb_file(
        target.with_name(target.name.removesuffix(_WAL_SUFFIX))
    ):
        why = "is the write-ahead log of a DuckDB database"
    elif target.is_dir():
        why = "is a folder"
    if why is not None:
        raise UsageError(
            str(output),
            f"{why}; writing the output there would destroy it",
            hint,
        )


def _same_file(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:  # either does not exist (yet): not the same file
        return False


def _is_duckdb_file(path: Path) -> bool:
    try:
        with path.open("rb") as handle:
            head = handle.read(_MAGIC_AT + len(_DUCKDB_MAGIC))
    except OSError:  # absent, a folder or unreadable: not a database we could destroy
        return False
    return head[_MAGIC_AT:] == _DUCKDB_MAGIC


def _replace_atomically(data: bytes, target: Path) -> None:
    mode = _mode_for(target)
    fd, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".part")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def _mode_for(target: Path) -> int:
    """The permissions the output gets: the old file's, else what a plain open would give."""
    try:
        return target.stat().st_mode & 0o7777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask
