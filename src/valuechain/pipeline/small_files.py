"""Importing many small files: read, hashed and decoded one by one, committed as a group.

Each source of an import used to be its own transaction: some 25 statements and a commit, about
70 ms however small the file, and the native decoder's ~15 ms of set-up on top, so a folder of
10,000 tiny files imported at ~10 files/s. A run of consecutive small files is now gathered into
groups (at most ``GROUP_FILES`` files and ``GROUP_BYTES`` bytes, `import_group`), each written by
`store.source_group.write_sources`: one transaction, one pass of the statements. Each file stays
its own source — its ledger row and sha256, its issues, quarantine and accounting, `unchanged`
when its bytes are stored — and a group is all or nothing: an interrupted one is undone whole,
and the message names it (`imports`). A small document is decoded by msgspec first (~3 ms for
24 KB, where the native path's set-up alone takes ~15; it wins from ~1.5 MB on).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from valuechain.contract.issues import Code
from valuechain.ingest.source.decoded import DecodedSource
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
from valuechain.store.source_group import WholeSource, stored_sha256s, write_sources

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
    whole: list[tuple[int, WholeSource, SourceResult, DecodedSource]] = []
    decode = replace(options.decode, native_parts=False)  # a small document: msgspec first
    for item in taken:
        name = str(item.path)
        if item.data is None:
            results.append(rejected(name, Code.E_UNREADABLE, item.problem))
        elif item.sha256 in stored:
            results.append(unchanged(db, name, item.sha256, len(item.data), options))
        else:
            sdk = sdk_results_for(item.path)
            stream = SourceStream([item.data], name, decode, sdk=sdk)
            batches = list(stream)
            decoded = stream.result
            result = verdict(decoded, options)
            results.append(result)
            if result.error is None:
                source = WholeSource(
                    name,
                    concatenated([b.tables for b in batches]),
                    [issue for b in batches for issue in b.issues],
                    stream.merger.closing_issues(),
                    decoded.ledger(),
                    tuple(sorted(stream.merger.trace_ids)),
                )
                whole.append((len(results) - 1, source, result, decoded))
    if whole:
        progress.start(Phase.COMMIT, None, label)
        sources = [source for _, source, _, _ in whole]
        committed = write_sources(db, import_id, sources, options.analyzer)
        for (k, source, result, decoded), done in zip(whole, committed, strict=True):
            results[k] = committed_result(result, decoded, done, source.trace_ids)
    return results, list(paths[len(taken) :])
