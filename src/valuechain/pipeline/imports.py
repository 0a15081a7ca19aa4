"""Orchestration of an import: paths → sources → decode → one transaction per source.

Each source stands alone: a rejected source (not OTLP, unreadable, truncated without salvage,
or any error-severity issue under ``strict``) writes nothing, and the other sources of the same
call still import. Bytes already in the ledger are skipped as ``unchanged``. A committed source
awaits its derivation until the call's derive step is done (``derive_pending``); what an
earlier, interrupted call left underived is derived first.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from tempfile import TemporaryDirectory

import duckdb

from valuechain.contract.issues import HINTS, Code, Issue, Severity
from valuechain.contract.matching import MatchOptions, ToolCall, ToolCallMatch
from valuechain.contract.versions import STAGE_ANALYZER_VERSION
from valuechain.derive import evaluate_tool_calls
from valuechain.errors import IngestError, Interrupted
from valuechain.ingest.bytes.items import SPANS, DocumentRefused
from valuechain.ingest.mcpjam import SdkTranslator, looks_like_sdk
from valuechain.ingest.source.decoded import DecodedSource, DecodeOptions
from valuechain.ingest.source.issue_log import pointer
from valuechain.ingest.source.read import READ_CHUNK, Missing, Skipped, expand_paths, file_chunks
from valuechain.ingest.source.stream import SourceStream
from valuechain.pipeline.decode_pool import DecodePool
from valuechain.pipeline.derive import DeriveSummary, derive_pending
from valuechain.pipeline.progress import BytesDecoded, ImportProgress, Phase, Silent
from valuechain.store import Committed, Database, PendingDerivation, SourceWriter
from valuechain.store.interrupt import is_interruption

ProgressFn = Callable[[int], None]  # bytes decoded (the simple watcher: `BytesDecoded`)


def _sdk_matcher(
    expected: Sequence[ToolCall], actual: Sequence[ToolCall], options: MatchOptions, negative: bool
) -> ToolCallMatch:
    return evaluate_tool_calls(expected, actual, options, is_negative_test=negative)


# MCPJam SDK results are graded by derive's matcher as they are translated (ingest cannot
# import derive: the pipeline hands it over)
SDK_RESULTS = SdkTranslator(_sdk_matcher)


@dataclass(frozen=True, slots=True)
class ImportOptions:
    strict: bool = False
    decode: DecodeOptions = field(default_factory=DecodeOptions)
    derive: bool = True  # derive chains (and materialize funnels) for the traces touched
    analyzer: int = STAGE_ANALYZER_VERSION


@dataclass(slots=True)
class SourceResult:
    """What happened to one source."""

    path: str
    outcome: str  # imported | partial | unchanged | rejected
    bytes: int = 0
    spans: int = 0
    traces: int = 0
    spans_deduplicated: int = 0
    issues: list[Issue] = field(default_factory=list)
    error: IngestError | None = None
    trace_ids: tuple[str, ...] = ()  # lower-case hex, as everywhere else
    recorded: Counter[str] | None = None  # issue occurrences by code, as the store holds them

    def issue_counts(self) -> Counter[str]:
        """Issue occurrences by code: what the store recorded for a committed source (its
        conflicts and duplicates included), what decoding found for one that was not."""
        if self.recorded is not None:
            return Counter(self.recorded)
        counts: Counter[str] = Counter()
        for issue in self.issues:
            counts[issue.code.value] += issue.occurrences
        return counts


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

    def issue_counts(self) -> Counter[str]:
        counts: Counter[str] = Counter()
        for source in self.sources:
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
            missing.append(_rejected(item.pattern, Code.E_UNREADABLE, item.why, item.hint))
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
    reading: Path | None = None
    try:
        if options.derive:
            report.completed = derive_pending(db, progress)
        step = "read"
        import_id = db.next_import_id()
        decode = options.decode
        threads = decode.native_parts and decode.fast and not decode.worker_processes
        with DecodePool(decode.workers, threads=threads) as pool, TemporaryDirectory() as tmp:
            sources = reporter_runs(files, Path(tmp))
            for k, (reading, name) in enumerate(sources, 1):
                label = f"{k}/{len(sources)} {reading.name if name is None else name}"
                report.sources.append(
                    import_file(
                        db,
                        reading,
                        import_id,
                        options,
                        pool,
                        name=name,
                        progress=progress,
                        label=label,
                    )
                )
        step, reading = "derive", None
        if options.derive:  # exactly the traces of the sources committed above
            report.derived = derive_pending(db, progress)
    except BaseException as exc:
        if is_interruption(exc):  # Ctrl-C: say what stays
            done = report.sources[first:]
            raise Interrupted(_kept(done, files, reading, step == "derive")) from exc
        raise
    report.pending = db.pending_derivation()
    return report


def reporter_runs(files: list[Path], tmp: Path) -> list[tuple[Path, str | None]]:
    """The files to import, each with its ledger name (None: its own path). The MCPJam SDK
    streaming reporter's bodies saved one a file (``runs/start``, ``runs/iterations`` …,
    ``runs/finalize``, in name order in one folder) are one run: they are joined, as NDJSON,
    into one source named for the first (docs/mcpjam-sdk.md §2); a re-import of the same
    files joins the same bytes, so it changes nothing."""
    out: list[tuple[Path, str | None]] = []
    group: list[Path] = []

    def close() -> None:
        if len(group) <= 1:
            out.extend((p, None) for p in group)
        else:
            joined = tmp / f"{len(out)}.ndjson"
            joined.write_bytes(b"".join(p.read_bytes().strip() + b"\n" for p in group))
            first = group[0].stat()  # received when its first body was (`_received_ns`)
            os.utime(joined, ns=(first.st_atime_ns, first.st_mtime_ns))
            out.append((joined, f"{group[0]} (+{len(group) - 1} reporter bodies)"))
        group.clear()

    for path in files:
        kind = _reporter_body(path)
        if kind == "start" or kind is None or (group and path.parent != group[0].parent):
            close()
        if kind is None:
            out.append((path, None))
            continue
        if not group and kind != "start":
            out.append((path, None))
            continue
        group.append(path)
        if kind == "finalize":
            close()
    close()
    return out


_BODY_BYTES = 16 << 20  # a reporter body is one chunk of ≤ 1 MB results; larger: no body


def _reporter_body(path: Path) -> str | None:
    """``start`` / ``iterations`` / ``finalize`` for a file holding one streaming-reporter
    body (sdk/src/report-eval-results.ts ``startEvalRun`` … ``finalizeEvalRun``), else None."""
    try:
        if not path.is_file() or path.stat().st_size > _BODY_BYTES:
            return None
        with path.open("rb") as handle:
            head = handle.read(4096)
        if not looks_like_sdk(head) and b'"runId"' not in head:
            return None
        body = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return None
    if not isinstance(body, dict) or "resourceSpans" in body:
        return None
    if "suiteName" in body and "results" not in body:
        return "start"
    if "runId" in body and isinstance(body.get("results"), list):
        return "iterations"
    if "runId" in body and "externalRunId" in body and "results" not in body:
        return "finalize"
    return None


def _kept(done: list[SourceResult], files: list[Path], reading: Path | None, deriving: bool) -> str:
    """What an import stopped by Ctrl-C keeps: every source it committed (each is its own
    transaction), not the one it was reading; a derivation cut short is recorded as pending
    (`derive_pending`), and every writing command completes it first."""
    kept = sum(s.outcome in ("imported", "partial") for s in done)
    said = [f"{kept} of {len(files)} files imported and kept"]
    for outcome in ("unchanged", "rejected"):
        if count := sum(s.outcome == outcome for s in done):
            said.append(f"{count} {outcome}")
    if reading is not None:
        said.append(f"{reading.name} undone (nothing of it was written)")
        if left := len(files) - len(done) - 1:
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
        sdk = SDK_RESULTS.received(_received_ns(path))
        if size is not None and db.has_source_of_size(size):
            progress.start(Phase.HASH, size, label or path.name)
            sha256, size = _digest(path, progress.advance, byte_range)
            if db.has_source(sha256):
                return _unchanged(db, name, sha256, size, options)
    except OSError as exc:
        return _rejected(name, Code.E_UNREADABLE, f"cannot read the file ({exc.strerror})")
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
            return _rejected(name, Code.E_UNREADABLE, f"cannot read the file ({exc.strerror})")


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
            writer.add(batch.tables, batch.issues)
        decoded = stream.result
        if db.has_source(decoded.sha256):  # the file grew or shrank to stored bytes
            writer.abort()
            return _unchanged(db, name, decoded.sha256, decoded.bytes_raw, options)
        if size is None:  # a pipe: its path names no bytes, its hash does
            name = decoded.source = writer.path = f"{name} (pipe {decoded.sha256[:12]})"
        result = _verdict(decoded, options)
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
    return _committed(result, decoded, committed, trace_ids)


def _unchanged(
    db: Database, name: str, sha256: str, size: int, options: ImportOptions
) -> SourceResult:
    """Bytes already imported are not read again; a strict gate still fails on the error-severity
    issues they were accepted with (every partial source has one), though the store keeps them."""
    stored = db.stored_source(sha256) if options.strict else None
    status, code, message, errors = stored or ("", None, None, 0)
    if code is None:
        return SourceResult(name, "unchanged", bytes=size)
    error = IngestError(
        name,
        None,
        f"already in the store, accepted as {status} with {errors} error issue(s); the first "
        f"{code}: {message} (--strict)",
        "the stored copy is kept as it is (`valuechain issues --source` lists its issues); "
        "import a whole export to pass the gate",
        code=code,
    )
    return SourceResult(name, "rejected", bytes=size, error=error)


def _size(path: Path) -> int | None:
    """The file's size; None for a stream that can be read only once (a pipe: ``<(zcat …)``,
    ``/dev/stdin``), which is never hashed first. Raises OSError when it cannot be read."""
    status = path.stat()
    return status.st_size if stat.S_ISREG(status.st_mode) else None


def _received_ns(path: Path) -> int:
    """When the source was received: the start of an MCPJam SDK run whose payload says no
    time (docs/mcpjam-sdk.md §4.1) — a file's modification time; a pipe's, now."""
    status = path.stat()
    return status.st_mtime_ns if stat.S_ISREG(status.st_mode) else time.time_ns()


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


def _verdict(decoded: DecodedSource, options: ImportOptions) -> SourceResult:
    """The result of a decoded source, with the error that rejects it (if any)."""
    result = SourceResult(
        decoded.source,
        "rejected",
        bytes=decoded.bytes_raw,
        issues=decoded.issues,
        error=decoded.rejection,
    )
    if decoded.rejection is None and options.strict:
        first = next((i for i in decoded.issues if i.severity is Severity.ERROR), None)
        if first is not None:
            result.error = IngestError(
                decoded.source,
                pointer(first),
                f"{first.code.value}: {first.message} (--strict)",
                first.hint,
                code=first.code.value,
            )
    return result


def _committed(
    result: SourceResult,
    decoded: DecodedSource,
    committed: Committed,
    trace_ids: tuple[bytes, ...],
) -> SourceResult:
    result.outcome = "partial" if decoded.status == "partial" else "imported"
    result.spans = committed.span_rows
    result.spans_deduplicated = committed.spans_deduplicated
    result.trace_ids = tuple(t.hex() for t in trace_ids)
    result.traces = len(trace_ids)
    result.recorded = Counter(committed.issue_counts)
    if committed.spans_deduplicated:
        result.issues = [
            *result.issues,
            Issue(
                Code.I_DUPLICATE_IDENTICAL,
                "identical spans kept once",
                occurrences=committed.spans_deduplicated,
            ),
        ]
    return result


def _rejected(path: str, code: Code, problem: str, hint: str | None = None) -> SourceResult:
    error = IngestError(path, None, problem, hint or HINTS[code], code=code.value)
    return SourceResult(path, "rejected", issues=[Issue(code, problem)], error=error)
