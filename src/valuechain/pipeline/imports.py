"""Orchestration of an import: paths → sources → decode → one transaction per source.

Each source stands alone: a rejected source (not OTLP, unreadable, truncated without salvage,
or any error-severity issue under ``strict``) writes nothing, and the other sources of the same
call still import. Bytes already in the ledger are skipped as ``unchanged``. A committed source
awaits its derivation until the call's derive step is done (``derive_pending``); what an
earlier, interrupted call left underived is derived first.
"""

from __future__ import annotations

import hashlib
import stat
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from tempfile import TemporaryDirectory

import duckdb

from valuechain.contract.issues import Code
from valuechain.errors import Interrupted
from valuechain.ingest.bytes.items import SPANS, DocumentRefused
from valuechain.ingest.source.read import READ_CHUNK, Missing, Skipped, expand_paths, file_chunks
from valuechain.ingest.source.stream import SourceStream
from valuechain.pipeline import small_files
from valuechain.pipeline.decode_pool import DecodePool
from valuechain.pipeline.derive import DeriveSummary, derive_pending
from valuechain.pipeline.progress import BytesDecoded, ImportProgress, Phase, Silent
from valuechain.pipeline.sdk_sources import reporter_runs, sdk_results_for
from valuechain.pipeline.source_results import (
    ImportOptions,
    SourceResult,
    committed_result,
    rejected,
    unchanged,
    verdict,
)
from valuechain.store import Database, PendingDerivation, SourceWriter
from valuechain.store.interrupt import is_interruption

__all__ = [
    "ImportOptions",
    "ImportReport",
    "ProgressFn",
    "SourceResult",
    "import_file",
    "import_paths",
    "plan",
    "range_chunks",
]

ProgressFn = Callable[[int], None]  # bytes decoded (the simple watcher: `BytesDecoded`)


@dataclass(slots=True)
class ImportReport:
    """What one import call did, source by source."""

    sources: list[SourceResult] = field(default_factory=list)
    derived: DeriveSummary | None = None
    completed: DeriveSummary | None = None  # what earlier imports had left underived
    pending: PendingDerivation | None = None  # still underived at the end (--no-derive)
    skipped: list[Skipped] = field(default_factory=list)  # in named directories, and why

    @property
    def rejected(self) -> list[SourceResult]:
        return [s for s in self.sources if s.outcome == "rejected"]

    @property
    def ok(self) -> bool:
        return not self.rejected

    def total(self, attribute: str) -> int:
        return sum(int(getattr(s, attribute)) for s in self.sources)

    @property
    def traces(self) -> int:
        """Distinct traces the import touched (a trace spread over sources counts once)."""
        return len({t for source in self.sources for t in source.trace_ids})

    def issue_counts(self, *, stored: bool | None = None) -> Counter[str]:
        """Issue occurrences by code, of every source; with ``stored``, only of the sources
        the store kept (True: what ``issues`` lists) or of the rejected ones (False)."""
        counts: Counter[str] = Counter()
        for source in self.sources:
            if stored is None or stored == (source.outcome != "rejected"):
                counts.update(source.issue_counts())
        return counts


def plan(
    paths: Iterable[str | Path], *, pipes: bool = False
) -> tuple[list[Path], list[SourceResult], list[Skipped]]:
    """The files to read (named pipes too, with ``pipes``), a rejected result for every
    pattern that matched nothing, and the entries of named directories that are not read
    (not an export's name, a dangling link)."""
    files: list[Path] = []
    missing: list[SourceResult] = []
    skipped: list[Skipped] = []
    for item in expand_paths(paths, pipes=pipes):
        if isinstance(item, Missing):
            missing.append(rejected(item.pattern, Code.E_UNREADABLE, item.why, item.hint))
        elif isinstance(item, Skipped):
            skipped.append(item)
        else:
            files.append(item)
    return files, missing, skipped


def import_paths(
    db: Database,
    paths: Iterable[str | Path],
    options: ImportOptions | None = None,
    on_progress: ProgressFn | ImportProgress | None = None,
) -> ImportReport:
    """Import every file named by ``paths`` into ``db``; never raises on bad input.

    With ``options.derive``, first derives what earlier imports left underived, then, once
    every source is in, the traces of the sources this call committed. ``on_progress`` hears
    of every phase (`ImportProgress`), or is called with the bytes decoded (a plain function).
    """
    options = options or ImportOptions()
    progress = _watcher(on_progress)
    files, missing, skipped = plan(paths, pipes=True)
    report = ImportReport(sources=missing, skipped=skipped)
    first = len(missing)  # the results of ``files`` follow
    step = "derive"  # what an earlier import left underived comes first
    reading: list[Path] = []  # the file being imported, or the group of small files
    try:
        if options.derive:
            report.completed = derive_pending(db, progress)
        step = "read"
        import_id = db.next_import_id()
        decode = options.decode
        threads = decode.native_parts and decode.fast and not decode.worker_processes
        with DecodePool(decode.workers, threads=threads) as pool, TemporaryDirectory() as tmp:
            sources = reporter_runs(files, Path(tmp))  # an SDK reporter's bodies: one source
            k = 0
            while k < len(sources):
                path, name = sources[k]
                reading = _small_run(sources, k, options) or [path]
                label = f"{k + 1}/{len(sources)} {path.name if name is None else name}"
                if name is None and small_files.is_small(_stat_size(path), options):
                    results, _ = small_files.import_group(
                        db, reading, import_id, options, _read_whole(progress), progress, label
                    )
                    report.sources.extend(results)
                    k += len(results)
                    continue
                report.sources.append(
                    import_file(
                        db,
                        path,
                        import_id,
                        options,
                        pool,
                        name=name,
                        progress=progress,
                        label=label,
                    )
                )
                k += 1
        step, reading = "derive", []
        if options.derive:  # exactly the traces of the sources committed above
            report.derived = derive_pending(db, progress)
    except BaseException as exc:
        if is_interruption(exc):  # Ctrl-C: say what stays
            done = report.sources[first:]
            raise Interrupted(_kept(done, files, reading, step == "derive")) from exc
        raise
    report.pending = db.pending_derivation()
    return report


def _small_run(
    sources: list[tuple[Path, str | None]], k: int, options: ImportOptions
) -> list[Path]:
    """The small files from ``sources[k]`` on, up to a group's worth (`small_files`); a
    source under another name (joined reporter bodies) is imported on its own."""
    run: list[Path] = []
    for path, name in sources[k : k + small_files.GROUP_FILES]:
        if name is not None or not small_files.is_small(_stat_size(path), options):
            break
        run.append(path)
    return run


def _stat_size(path: Path) -> int | None:
    try:
        return _size(path)
    except OSError:  # import_file says why
        return None


def _read_whole(progress: ImportProgress) -> Callable[[Path], bytes]:
    """How a small file is read: whole, through ``file_chunks`` as every file is."""
    return lambda path: b"".join(file_chunks(path, READ_CHUNK, progress.advance))


def _kept(done: list[SourceResult], files: list[Path], reading: list[Path], deriving: bool) -> str:
    """What an import stopped by Ctrl-C keeps: every source it committed (each is its own
    transaction, a group of small files one together), not the one or the group it was
    reading; a derivation cut short is recorded as pending (`derive_pending`), and every
    writing command completes it first."""
    kept = sum(s.outcome in ("imported", "partial") for s in done)
    said = [f"{kept} of {len(files)} files imported and kept"]
    for outcome in ("unchanged", "rejected"):
        if count := sum(s.outcome == outcome for s in done):
            said.append(f"{count} {outcome}")
    if len(reading) == 1:
        said.append(f"{reading[0].name} undone (nothing of it was written)")
    elif reading:
        said.append(
            f"the group of {len(reading)} small files {reading[0].name} … {reading[-1].name} "
            "undone (nothing of them was written)"
        )
    if reading and (left := len(files) - len(done) - len(reading)):
        said.append(f"{left} not read")
    if deriving or kept:
        said.append("the next writing command (import, derive) derives what is not derived yet")
    return "; ".join(said)


def _watcher(on_progress: ProgressFn | ImportProgress | None) -> ImportProgress:
    if on_progress is None:
        return Silent()
    if hasattr(on_progress, "start") and hasattr(on_progress, "advance"):
        return on_progress
    return BytesDecoded(on_progress)


def import_file(
    db: Database,
    path: Path,
    import_id: int,
    options: ImportOptions,
    pool: DecodePool | None = None,
    *,
    byte_range: tuple[int, int] | None = None,
    name: str | None = None,
    then: Callable[[duckdb.DuckDBPyConnection], object] | None = None,
    progress: ImportProgress | None = None,
    label: str = "",
) -> SourceResult:
    """Import one file, all or nothing, streaming it through the decoder batch by batch.

    ``byte_range`` (start, end) imports only those bytes of the file as a source (``name``
    it in the ledger); ``then`` writes in the transaction that commits the source (``import
    --follow`` records how far it read).

    The bytes are read once: hashed, decompressed, framed and decoded a part at a time;
    batches are written and committed in groups of ``COMMIT_ROWS`` rows (``SourceWriter``).
    Only when the store holds a source of the same size (the same bytes would have it) is the
    file hashed first, so that a re-import of the same bytes is ``unchanged`` at the cost of
    one read rather than a decode. A source that turns out rejected (or fails ``strict``),
    already stored after all, or any failure on the way, undoes every batch already written.
    A single document larger than a batch streams in runs of its spans; in the rare case that
    a run cannot be cut or decoded natively (spans or items in another field order, a
    ``null``, a schema URL after its list …), its batches are undone and the file is read a
    second time, whole.
    """
    name = name or str(path)
    progress = progress or Silent()
    try:
        size = _size(path) if byte_range is None else byte_range[1] - byte_range[0]
        sdk = sdk_results_for(path)
        if size is not None and db.has_source_of_size(size):
            progress.start(Phase.HASH, size, label or path.name)
            sha256, size = _digest(path, progress.advance, byte_range)
            if db.has_source(sha256):
                return unchanged(db, name, sha256, size, options)
    except OSError as exc:
        return rejected(name, Code.E_UNREADABLE, f"cannot read the file ({exc.strerror})")
    executor = pool.executor_for(size, options.decode) if pool is not None else None
    piece = min(options.decode.batch_bytes, READ_CHUNK)
    shown = label or path.name
    documents = SPANS if size is not None else ""  # a pipe cannot be read again: read whole
    while True:
        progress.start(Phase.DECODE, size, shown)
        chunks = _chunks(path, byte_range, piece, progress.advance)
        stream = SourceStream(chunks, name, options.decode, executor, documents=documents, sdk=sdk)
        try:
            return _write_source(db, stream, size, import_id, options, then, progress, shown)
        except DocumentRefused as refused:  # every batch written is undone: read it again
            documents = refused.again  # in runs of whole items, or whole
        except OSError as exc:
            return rejected(name, Code.E_UNREADABLE, f"cannot read the file ({exc.strerror})")


def _write_source(
    db: Database,
    stream: SourceStream,
    size: int | None,
    import_id: int,
    options: ImportOptions,
    then: Callable[[duckdb.DuckDBPyConnection], object] | None,
    progress: ImportProgress,
    label: str,
) -> SourceResult:
    """Write one source's batches as the stream decodes them, then commit or undo it."""
    name = stream.merger.out.source
    with SourceWriter(db, name, import_id) as writer:
        for batch in stream:
            writer.gather(batch.tables, batch.issues)
        decoded = stream.result
        if db.has_source(decoded.sha256):  # the file grew or shrank to stored bytes
            writer.abort()
            return unchanged(db, name, decoded.sha256, decoded.bytes_raw, options)
        if size is None:  # a pipe: its path names no bytes, its hash does
            name = decoded.source = writer.path = f"{name} (pipe {decoded.sha256[:12]})"
        result = verdict(decoded, options)
        if result.error is not None:
            writer.abort()
            return result
        trace_ids = tuple(sorted(stream.merger.trace_ids))
        progress.start(Phase.COMMIT, None, label)
        committed = writer.finish(
            decoded.ledger(),
            stream.merger.closing_issues(),
            trace_ids,
            options.analyzer,
            then=then,
        )
    return committed_result(result, decoded, committed, trace_ids)


def _size(path: Path) -> int | None:
    """The file's size; None for a stream that can be read only once (a pipe: ``<(zcat …)``,
    ``/dev/stdin``), which is never hashed first. Raises OSError when it cannot be read."""
    status = path.stat()
    return status.st_size if stat.S_ISREG(status.st_mode) else None


def _digest(
    path: Path, on_read: ProgressFn, byte_range: tuple[int, int] | None = None
) -> tuple[str, int]:
    digest = hashlib.sha256()
    size = 0
    for piece in _chunks(path, byte_range, READ_CHUNK, on_read):
        digest.update(piece)
        size += len(piece)
    return digest.hexdigest(), size


def _chunks(
    path: Path, byte_range: tuple[int, int] | None, size: int, on_read: ProgressFn
) -> Iterator[bytes]:
    """The whole file, or only ``byte_range`` of it (a followed file's new records)."""
    if byte_range is None:
        return file_chunks(path, size, on_read)
    return range_chunks(path, byte_range, size, on_read)


def range_chunks(
    path: Path,
    byte_range: tuple[int, int],
    size: int = READ_CHUNK,
    on_read: ProgressFn | None = None,
) -> Iterator[bytes]:
    """The bytes ``start`` to ``end`` of the file at ``path``, ``size`` at a time."""
    start, end = byte_range
    with path.open("rb") as handle:
        handle.seek(start)
        left = end - start
        while left > 0 and (piece := handle.read(min(size, left))):
            left -= len(piece)
            if on_read is not None:
                on_read(len(piece))
            yield piece
