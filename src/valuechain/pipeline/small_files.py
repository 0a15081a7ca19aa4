"""Importing many small files: read, hashed and decoded one by one, committed as a group.

Each source of an import used to be its own transaction: some 25 statements and a commit, about
70 ms however small the file, and the native decoder's ~15 ms of set-up on top, so a folder of
10,000 tiny files imported at ~10 files/s. A run of consecutive small files is now gathered into
groups (at most ``GROUP_FILES`` files and ``GROUP_BYTES`` bytes, `import_group`), each written by
`store.source_group.write_sources`: one transaction, one pass of the statements. Each file stays
its own source — its ledger row and sha256, its issues, quarantine and accounting, `unchanged`
when its bytes are stored — and a group is all or nothing: an interrupted one is undone whole,
and the message names it (`imports`).

A group decodes its canonical single documents together (`ingest.source.documents`): msgspec
into one set of columns, the Arrow tables built once — decoded file by file they cost ~2 ms
of set-up each beyond their decoding (the part decoder, nine tables built and conformed, the
merger), as much again as a 24 KB document's decoding. Any other small file (compressed,
NDJSON, several documents, anything the fast path leaves to the reference decoder) is decoded
on its own, msgspec first (~3 ms for 24 KB, where the native path's set-up alone takes ~15; it
wins from ~1.5 MB on); the group commits them in order, as runs (`store.source_group`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import pyarrow as pa

from valuechain.contract.issues import Code
from valuechain.ingest.source.decoded import DecodedSource
from valuechain.ingest.source.documents import DocumentGroup, Taken
from valuechain.ingest.source.stream import SourceStream
from valuechain.pipeline.progress import ImportProgress, Phase
from valuechain.pipeline.sdk_sources import sdk_results_for
from valuechain.pipeline.source_results import (
    ImportOptions,
    SourceResult,
    committed_result,
    rejected,
    unchanged,
    verdict,
)
from valuechain.store import Database, concatenated
from valuechain.store.source_group import (
    GroupSource,
    SourceRun,
    stored_sha256s,
    whole_source,
    write_sources,
)

# A file this small is grouped: its own transaction would cost several times its decoding.
# Larger files keep theirs, so an interruption loses at most a group of tiny files.
SMALL_FILE_BYTES = 64 << 10
# A group's bounds: its rows stay far below one commit group's (`store.writer.COMMIT_ROWS`).
GROUP_FILES = 1_000
GROUP_BYTES = 32 << 20


@dataclass(slots=True)
class _Read:
    path: Path
    data: bytes | None  # None: unreadable
    sha256: str = ""
    problem: str = ""


def is_small(size: int | None, options: ImportOptions) -> bool:
    """Whether a file of ``size`` bytes (None: not a regular file) joins a group: small, and a
    single batch of the decoder (``batch_bytes``)."""
    return size is not None and size <= min(SMALL_FILE_BYTES, options.decode.batch_bytes)


def import_group(
    db: Database,
    paths: Sequence[Path],
    import_id: int,
    options: ImportOptions,
    read: Callable[[Path], bytes],
    progress: ImportProgress,
    label: str,
) -> tuple[list[SourceResult], list[Path]]:
    """Import a leading run of ``paths`` as one group: the results of the files it took, in
    order, and the paths it left for the next group (a byte bound reached, or a file whose
    bytes equal an earlier one's of the group: the next group sees that one stored)."""
    taken: list[_Read] = []
    hashes: set[str] = set()
    size = 0
    progress.start(Phase.DECODE, None, label)
    for path in paths:
        try:
            data = read(path)
        except OSError as exc:
            taken.append(_Read(path, None, problem=f"cannot read the file ({exc.strerror})"))
            continue
        sha256 = hashlib.sha256(data).hexdigest()
        if sha256 in hashes or (taken and size + len(data) > GROUP_BYTES):
            break
        hashes.add(sha256)
        size += len(data)
        taken.append(_Read(path, data, sha256))
    stored = stored_sha256s(db, sorted(hashes))
    results: list[SourceResult] = []
    # per source to commit, in order: its result's index, and its run (None: a document of
    # the group's, in ``group.taken``) or what decoded it on its own
    pending: list[tuple[int, DecodedSource, SourceRun | None]] = []
    group = DocumentGroup(options.decode)
    decode = replace(options.decode, native_parts=False)  # a small document: msgspec first
    for item in taken:
        name = str(item.path)
        if item.data is None:
            results.append(rejected(name, Code.E_UNREADABLE, item.problem))
        elif item.sha256 in stored:
            results.append(unchanged(db, name, item.sha256, len(item.data), options))
        elif (document := group.take(name, item.data, item.sha256)) is not None:
            # no issue, no rejection: its rows, already among the group's, are committed
            results.append(verdict(document.decoded, options))
            pending.append((len(results) - 1, document.decoded, None))
        else:
            sdk = sdk_results_for(item.path)
            stream = SourceStream([item.data], name, decode, sdk=sdk)
            batches = list(stream)
            decoded = stream.result
            result = verdict(decoded, options)
            results.append(result)
            if result.error is None:
                run = whole_source(
                    name,
                    concatenated([b.tables for b in batches]),
                    [issue for b in batches for issue in b.issues],
                    stream.merger.closing_issues(),
                    decoded.ledger(),
                    tuple(sorted(stream.merger.trace_ids)),
                )
                pending.append((len(results) - 1, decoded, run))
    if pending:
        progress.start(Phase.COMMIT, None, label)
        runs = _runs(group, [run for _, _, run in pending])
        committed = write_sources(db, import_id, runs, options.analyzer)
        sources = [source for run in runs for source in run.sources]
        for (k, decoded, _), source, done in zip(pending, sources, committed, strict=True):
            results[k] = committed_result(results[k], decoded, done, source.trace_ids)
    return results, list(paths[len(taken) :])


def _runs(group: DocumentGroup, own: list[SourceRun | None]) -> list[SourceRun]:
    """The sources to commit as runs, in order: each decoded on its own is a run of its own,
    and the documents the group decoded between two of them one run — a slice of the group's
    tables, built once."""
    if not group.taken:
        return [run for run in own if run is not None]
    tables = group.tables()
    trace_ids = tables["spans"]["trace_id"].to_pylist()
    documents = iter(group.taken)
    runs: list[SourceRun] = []
    following: list[Taken] = []  # documents of the group's since the last run
    for run in own:
        if run is None:
            following.append(next(documents))
            continue
        if following:
            runs.append(_documents(tables, following, trace_ids))
            following = []
        runs.append(run)
    if following:
        runs.append(_documents(tables, following, trace_ids))
    return runs


def _documents(
    tables: dict[str, pa.Table], taken: list[Taken], trace_ids: list[bytes]
) -> SourceRun:
    """Consecutive documents of a group's as one run: their slice of its tables."""
    base, last = taken[0].first, taken[-1]
    rows = {
        name: table.slice(base[name], last.first[name] + last.rows[name] - base[name])
        for name, table in tables.items()
    }
    sources = [
        GroupSource(
            document.decoded.source,
            document.rows,
            [],
            [],
            document.decoded.ledger(),
            _trace_ids(trace_ids, document.first["spans"], document.rows["spans"]),
        )
        for document in taken
    ]
    return SourceRun(rows, sources, base)


def _trace_ids(trace_ids: list[bytes], first: int, rows: int) -> tuple[bytes, ...]:
    return tuple(sorted(set(trace_ids[first : first + rows])))
