"""``import --follow DIR``: keep a store current with a collector's file-exporter directory.

Each round lists the directory's export files (group_by paths included: the whole tree) in
rotation order (TRACE-FORMAT §5.3: rotated files by their timestamp, then the live file) and
imports, per file, the complete records written since the last round as one source — the
file's name and byte range in the ledger — then derives and materializes the runs they
touched. A record is complete when its line has ended (NDJSON: the collector's ``json``) or
its length prefix is satisfied (``proto`` and legacy zstd); a live file's last line may still
be being written, so it waits for the next round. A rotated file is final: read to its end,
a truncated tail included (it is then a ``partial`` source, as any import would say). Files
compressed whole (gzip, native zstd) have no record boundaries to cut at: they are imported
once rotated.

How far each file was read is recorded in ``core.follow_files`` in the transaction that
commits those bytes, so a restart (or a crash) resumes exactly there. A file is recognised by
its first record, not its name: the collector renames the live file when it rotates, and the
renamed file carries on from the offset the live one had reached. A live file rotated while
its new records were being read is left for the next round (the path may by then name the
next live file, whose bytes were read instead): nothing of it is kept or recorded.

MCPJam SDK results (docs/spec/mcpjam-sdk.md) are refused, once a file and session: a run's keys
(its id without an SDK-made one, repetitions, case set, config revision, trials expected) are
decided from all its results, so a run read in appended slices would become several runs.
They are imported whole, by ``import``.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb

from valuechain.contract.issues import Code
from valuechain.errors import IngestError
from valuechain.ingest.mcpjam import SNIFF_BYTES, looks_like_sdk
from valuechain.ingest.source.read import expand_paths, rotated_name
from valuechain.pipeline.decode_pool import DecodePool
from valuechain.pipeline.derive import DeriveSummary, derive_pending
from valuechain.pipeline.imports import ImportOptions, SourceResult, import_file
from valuechain.store import Database, sqlfiles

_LOAD = "store/400_follow_files.sql"
_RECORD = "store/401_record_follow_offset.sql"
_WHOLE = (b"\x1f\x8b", b"\x28\xb5\x2f\xfd")  # gzip, zstd: compressed as one stream
_HEAD_MAX = 64 << 20  # a first record longer than this is not waited for: the file is whole


@dataclass(slots=True)
class FileState:
    """How far one file was read (``final``: a rotated file read to its end)."""

    offset: int = 0
    final: bool = False


@dataclass(slots=True)
class FollowRound:
    """What one round imported."""

    sources: list[SourceResult] = field(default_factory=list)
    derived: DeriveSummary | None = None
    waiting: list[str] = field(default_factory=list)  # files compressed whole, not rotated yet

    @property
    def changed(self) -> bool:
        return bool(self.sources)


class Follower:
    """Follow one directory into a store: call ``round()`` repeatedly (``run`` loops)."""

    def __init__(self, db: Database, directory: Path, options: ImportOptions) -> None:
        self.db = db
        self.directory = directory
        self.key = str(directory.resolve())
        self.options = options
        self.state: dict[str, FileState] = {}
        sql = sqlfiles.statement(_LOAD)
        for head, _path, offset, final in db.con.execute(
            sql.text, sql.bind({"directory": self.key})
        ).fetchall():
            self.state[str(head)] = FileState(int(offset), bool(final))

    def files(self) -> list[Path]:
        """The directory's export files in reading order (none yet is no error)."""
        return [p for p in expand_paths([self.directory]) if isinstance(p, Path)]

    def round(self, pool: DecodePool | None = None) -> FollowRound:
        """Import what every file gained since the last round, then derive what it touched."""
        done = FollowRound()
        import_id = self.db.next_import_id()
        for path in self.files():
            result = self._step(path, import_id, pool, done)
            if result is not None:
                done.sources.append(result)
        if done.sources and self.options.derive:
            done.derived = derive_pending(self.db)
        return done

    def _step(
        self, path: Path, import_id: int, pool: DecodePool | None, done: FollowRound
    ) -> SourceResult | None:
        try:
            seen = path.stat()
            size = seen.st_size
            head, kind = _head(path, size)
        except FileNotFoundError:  # rotated away or removed between listing and reading
            return None
        if head is None:
            return None
        state = self.state.setdefault(head, FileState())
        rotated = rotated_name(path)
        if state.final or (state.offset >= size and not rotated):
            return None
        if kind == "whole" and not rotated:
            done.waiting.append(str(path))
            return None
        if kind == "lines" and _sdk_results(path):
            state.final = True  # said once: the file is left as it is
            return SourceResult(str(path), "rejected", error=_sdk_refusal(path))
        end = size if rotated else _complete_end(path, state.offset, size, kind)
        if end <= state.offset:
            if rotated and not state.final:
                self._record(head, path, state.offset, True, None)
                state.final = True
            return None
        byte_range = (state.offset, end)
        final = bool(rotated)
        name = f"{path}#{byte_range[0]}-{byte_range[1]}"

        def replaced() -> bool:
            # only the live file's path is reused (by the collector's next live file); a
            # rotated file's is not, and one deleted after it was read keeps what was read
            return not rotated and not _same_file(path, seen)

        def then(con: duckdb.DuckDBPyConnection) -> None:
            if replaced():
                raise _ReplacedError  # the bytes read may be another file's: undo them
            self._record(head, path, end, final, con)

        try:
            result = import_file(
                self.db,
                path,
                import_id,
                self.options,
                pool,
                byte_range=byte_range,
                name=name,
                then=then,
            )
        except _ReplacedError:
            return None
        if result.outcome in ("unchanged", "rejected"):  # nothing committed: record it apart
            if replaced():  # the refusal may be of the next file's bytes
                return None
            self._record(head, path, end, final, None)
        state.offset, state.final = end, final
        return result

    def _record(
        self,
        head: str,
        path: Path,
        offset: int,
        final: bool,
        con: duckdb.DuckDBPyConnection | None,
    ) -> None:
        sql = sqlfiles.statement(_RECORD)
        params: dict[str, Any] = {
            "directory": self.key,
            "head_sha256": head,
            "path": str(path),
            "committed_bytes": offset,
            "final": final,
        }
        (con or self.db.con).execute(sql.text, sql.bind(params))


def follow(
    db: Database,
    directory: Path,
    options: ImportOptions,
    *,
    interval: float,
    stop: Callable[[float], bool],
    on_round: Callable[[FollowRound], None] | None = None,
) -> int:
    """Follow ``directory`` until ``stop(seconds)`` (it waits up to that long between rounds)
    says to stop; returns the rounds run. What was pending derivation is derived first."""
    if options.derive:
        derive_pending(db)
    follower = Follower(db, directory, options)
    rounds = 0
    with DecodePool(options.decode.workers) as pool:
        while True:
            result = follower.round(pool)
            rounds += 1
            if on_round is not None:
                on_round(result)
            if stop(interval):
                return rounds


class _ReplacedError(Exception):
    """The live file was rotated while its new records were read: the path now names the
    collector's next live file, so what was read may be that file's bytes. The round leaves
    the file; the next one reads the same range from the renamed file."""


def _same_file(path: Path, seen: os.stat_result) -> bool:
    """Whether ``path`` still names the file ``seen`` was taken of."""
    try:
        now = path.stat()
    except FileNotFoundError:
        return False
    return (now.st_dev, now.st_ino) == (seen.st_dev, seen.st_ino)


def _head(path: Path, size: int) -> tuple[str | None, str]:
    """The sha256 of the file's first complete record (None: none yet) and how the file is
    cut into records: ``lines``, ``prefixed`` (4-byte big-endian lengths) or ``whole``."""
    with path.open("rb") as handle:
        start = handle.read(4)
        if len(start) < 4:
            return None, "lines"
        if start.startswith(_WHOLE):
            handle.seek(0)
            return hashlib.sha256(handle.read(min(size, 1 << 16))).hexdigest(), "whole"
        if start[:1].isspace() or start[:1] in (b"{", b"[", b"\xef"):
            handle.seek(0)
            first = _read_line(handle, _HEAD_MAX)
            if first is None:
                return None, "lines"
            return hashlib.sha256(first).hexdigest(), "lines"
        length = int.from_bytes(start, "big")
        if 4 + length > size:
            return None, "prefixed"
        return hashlib.sha256(start + handle.read(length)).hexdigest(), "prefixed"


def _sdk_results(path: Path) -> bool:
    """Whether the file holds MCPJam SDK results (results, reports or reporter bodies)."""
    with path.open("rb") as handle:
        return looks_like_sdk(handle.read(SNIFF_BYTES))


def _sdk_refusal(path: Path) -> IngestError:
    return IngestError(
        str(path),
        None,
        "MCPJam SDK results are not followed: a run's keys need all its results, so a run "
        "read as it is appended would be split into several runs",
        f"import the file once its run is written: valuechain import {path}",
        code=Code.E_NOT_OTLP.value,
    )


def _read_line(handle: Any, limit: int) -> bytes | None:
    line: bytes = handle.readline(limit)
    return line if line.endswith(b"\n") else None


def _complete_end(path: Path, offset: int, size: int, kind: str) -> int:
    """Where the complete records written after ``offset`` end."""
    with path.open("rb") as handle:
        if kind == "prefixed":
            end = offset
            handle.seek(end)
            while (prefix := handle.read(4)) and len(prefix) == 4:
                length = int.from_bytes(prefix, "big")
                if end + 4 + length > size:
                    break
                end += 4 + length
                handle.seek(end)
            return end
        step = 1 << 20
        cursor = size
        while cursor > offset:
            start = max(offset, cursor - step)
            handle.seek(start)
            newline = handle.read(cursor - start).rfind(b"\n")
            if newline >= 0:
                return start + newline + 1
            cursor = start
        return offset
