"""Orchestration of an import: paths → sources → decode → one transaction per source.

Each source stands alone: a rejected source (not OTLP, unreadable, truncated without salvage,
or any error-severity issue under ``strict``) writes nothing, and the other sources of the same
call still import. Bytes already in the ledger are skipped as ``unchanged``.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow.compute as pc

from valuechain.chains import DeriveSummary, derive_traces
from valuechain.contract.versions import STAGE_ANALYZER_VERSION
from valuechain.errors import IngestError
from valuechain.ingest.decode import DecodedSource, DecodeOptions, decode_export, pointer
from valuechain.ingest.issues import HINTS, Code, Issue, Severity
from valuechain.ingest.read import Missing, expand_paths
from valuechain.store import Database

ProgressFn = Callable[[int], None]


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
    trace_ids: tuple[bytes, ...] = ()

    def issue_counts(self) -> Counter[str]:
        counts: Counter[str] = Counter()
        for issue in self.issues:
            counts[issue.code.value] += issue.occurrences
        return counts


@dataclass(slots=True)
class ImportReport:
    """What one import call did, source by source."""

    sources: list[SourceResult] = field(default_factory=list)
    derived: DeriveSummary | None = None

    @property
    def rejected(self) -> list[SourceResult]:
        return [s for s in self.sources if s.outcome == "rejected"]

    @property
    def ok(self) -> bool:
        return not self.rejected

    def total(self, attribute: str) -> int:
        return sum(int(getattr(s, attribute)) for s in self.sources)

    def issue_counts(self) -> Counter[str]:
        counts: Counter[str] = Counter()
        for source in self.sources:
            counts.update(source.issue_counts())
        return counts


def plan(paths: Iterable[str | Path]) -> tuple[list[Path], list[SourceResult]]:
    """The files to read, and a rejected result for every pattern that matched nothing."""
    files: list[Path] = []
    missing: list[SourceResult] = []
    for item in expand_paths(paths):
        if isinstance(item, Missing):
            missing.append(
                _rejected(
                    item.pattern, Code.E_UNREADABLE, "no such file, directory or matching glob"
                )
            )
        else:
            files.append(item)
    return files, missing


def import_paths(
    db: Database,
    paths: Iterable[str | Path],
    options: ImportOptions | None = None,
    on_progress: ProgressFn | None = None,
) -> ImportReport:
    """Import every file named by ``paths`` into ``db``; never raises on bad input."""
    options = options or ImportOptions()
    files, missing = plan(paths)
    report = ImportReport(sources=missing)
    import_id = db.next_import_id()
    for path in files:
        report.sources.append(import_file(db, path, import_id, options))
        if on_progress is not None:
            on_progress(report.sources[-1].bytes)
    touched = sorted({t for source in report.sources for t in source.trace_ids})
    if options.derive and touched:
        report.derived = derive_traces(db, touched, analyzer=options.analyzer)
    return report


def import_file(db: Database, path: Path, import_id: int, options: ImportOptions) -> SourceResult:
    """Import one file in one transaction."""
    name = str(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        return _rejected(name, Code.E_UNREADABLE, f"cannot read the file ({exc.strerror})")
    if db.has_source(hashlib.sha256(data).hexdigest()):
        return SourceResult(name, "unchanged", bytes=len(data))
    decoded = decode_export(data, name, options.decode)
    return commit(db, decoded, import_id, options)


def commit(
    db: Database, decoded: DecodedSource, import_id: int, options: ImportOptions
) -> SourceResult:
    """Commit a decoded source unless it was rejected (or is rejected by ``strict``)."""
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
    if result.error is not None:
        return result
    committed = db.commit_source(decoded, import_id)
    result.outcome = "partial" if decoded.status == "partial" else "imported"
    result.spans = committed.span_rows
    result.spans_deduplicated = committed.spans_deduplicated
    spans = decoded.tables["spans"]
    result.trace_ids = tuple(pc.unique(spans.column("trace_id")).to_pylist())
    result.traces = len(result.trace_ids)
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


def _rejected(path: str, code: Code, problem: str) -> SourceResult:
    error = IngestError(path, None, problem, HINTS[code], code=code.value)
    return SourceResult(path, "rejected", issues=[Issue(code, problem)], error=error)
