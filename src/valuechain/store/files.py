"""Store files on disk: sizes, the write-ahead log beside a store, durable renames."""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import duckdb

from valuechain.errors import StoreError
from valuechain.store.disk import damage


def file_size(path: Path) -> int:
    """The file's size in bytes; 0 when there is none."""
    try:
        return path.stat().st_size
    except FileNotFoundError:
        return 0


def wal_path(path: Path) -> Path:
    """DuckDB's write-ahead log of the store at ``path``."""
    return path.with_name(path.name + ".wal")


def store_bytes(path: Path) -> int:
    """The store's file and its write-ahead log, in bytes."""
    return file_size(path) + file_size(wal_path(path))


def remove_store_file(path: Path) -> None:
    """Remove a (work) store file and its write-ahead log, if there."""
    for p in (path, wal_path(path)):
        with contextlib.suppress(FileNotFoundError):
            p.unlink()


def fsync(path: Path) -> None:
    """Flush a file (or a directory's entries) to disk, where the platform allows."""
    flags = os.O_RDONLY | (os.O_DIRECTORY if path.is_dir() else 0)
    try:
        fd = os.open(path, flags)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def replace_durably(work: Path, path: Path) -> None:
    """Rename the finished ``work`` file over ``path``, flushed before and after."""
    fsync(work)
    os.replace(work, path)
    fsync(path.parent)


def copy_durably(source: Path, target: Path) -> None:
    """A durable copy of a closed store file (a backup)."""
    shutil.copyfile(source, target)
    fsync(target)


@contextlib.contextmanager
def work_file(path: Path, purpose: str, failed: str, hint: str) -> Iterator[Path]:
    """A work file beside the store (``.NAME.purpose``) for a new version of it; the caller
    swaps it in (`replace_durably`) when complete. On any failure the work file goes and
    the store stays as it was; an I/O or engine error is a `StoreError` saying so."""
    work = path.with_name(f".{path.name}.{purpose}")
    remove_store_file(work)
    try:
        yield work
    except BaseException as exc:
        remove_store_file(work)
        found = damage(exc, str(path))  # the store's blocks, met while copying them
        if found is not None:
            raise found from exc
        if isinstance(exc, duckdb.Error | OSError):
            raise StoreError(
                str(path), f"{failed} ({exc}); the store was not changed", hint
            ) from exc
        raise
