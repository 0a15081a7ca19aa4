"""What happened to each source of an import (`SourceResult`), and the options it ran with.

Shared by the per-file import (`imports`) and the grouped import of small files
(`small_files`): both judge a decoded source the same way and report it in the same shape.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from valuechain.contract.issues import HINTS, Code, Issue, Severity
from valuechain.contract.versions import STAGE_ANALYZER_VERSION
from valuechain.contract.words import plural
from valuechain.errors import IngestError
from valuechain.ingest.source.decoded import DecodedSource, DecodeOptions
from valuechain.ingest.source.issue_log import pointer
from valuechain.store import Committed, Database


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


def unchanged(
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
        f"already in the store, accepted as {status} with {plural(errors, 'error issue')}; "
        f"the first "
        f"{code}: {message} (--strict)",
        "the stored copy is kept as it is (`valuechain issues --source` lists its issues); "
        "import a whole export to pass the gate",
        code=code,
    )
    return SourceResult(name, "rejected", bytes=size, error=error)


def verdict(decoded: DecodedSource, options: ImportOptions) -> SourceResult:
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


def committed_result(
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


def rejected(path: str, code: Code, problem: str, hint: str | None = None) -> SourceResult:
    error = IngestError(path, None, problem, hint or HINTS[code], code=code.value)
    return SourceResult(path, "rejected", issues=[Issue(code, problem)], error=error)
