"""Trial-level issues the evidence adapter reports (TRACE-FORMAT §5.2; CONTRACT §9 Q6).

Every issue points at a trace (and a span when there is one), names the trial or run it
concerns, and ends with a one-line hint. Per-key problems (`W_UNKNOWN_CONTRACT_KEY`,
`W_CONTRACT_TYPE`) are reported once per key with an occurrence count, so a 100k-trial
export with one misspelt key yields one row, not 100k.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Final

import pyarrow as pa


class EvidenceCode(StrEnum):
    """Codes of §5.2 the trial layer owns, plus `W_UNKNOWN_AUTHORED_MODE` (CONTRACT Q6)."""

    W_TRIAL_ROOT_MISSING = "W_TRIAL_ROOT_MISSING"
    W_MULTIPLE_TRIAL_ROOTS = "W_MULTIPLE_TRIAL_ROOTS"
    W_MULTIPLE_ROOTS = "W_MULTIPLE_ROOTS"
    W_CONTRACT_TYPE = "W_CONTRACT_TYPE"
    W_UNKNOWN_CONTRACT_KEY = "W_UNKNOWN_CONTRACT_KEY"
    W_VERSION_AHEAD = "W_VERSION_AHEAD"
    W_RUN_INCOMPLETE_IN_EXPORT = "W_RUN_INCOMPLETE_IN_EXPORT"
    W_TRIAL_ID_CONFLICT = "W_TRIAL_ID_CONFLICT"
    W_TRANSPORT_ERROR_WITHOUT_CODE = "W_TRANSPORT_ERROR_WITHOUT_CODE"
    W_EVIDENCE_SPAN_UNRESOLVED = "W_EVIDENCE_SPAN_UNRESOLVED"
    W_UNKNOWN_AUTHORED_MODE = "W_UNKNOWN_AUTHORED_MODE"
    W_DUPLICATE_CONFLICT = "W_DUPLICATE_CONFLICT"
    E_PARENT_CYCLE = "E_PARENT_CYCLE"


HINTS: Final[dict[EvidenceCode, str]] = {
    EvidenceCode.W_TRIAL_ROOT_MISSING: (
        "the trace carries mcp.app.trial.* keys but no span with mcp.app.span.role = trial; "
        "no trial was formed"
    ),
    EvidenceCode.W_MULTIPLE_TRIAL_ROOTS: (
        "a trial is one trace with one trial root; both trials are integrity-excluded"
    ),
    EvidenceCode.W_MULTIPLE_ROOTS: "the trial takes the earliest root; the other roots are kept",
    EvidenceCode.W_CONTRACT_TYPE: (
        "the typed value reads as absent; a missing required key integrity-excludes the trial"
    ),
    EvidenceCode.W_UNKNOWN_CONTRACT_KEY: (
        "kept verbatim and interpreted by nobody; check the producer's contract version"
    ),
    EvidenceCode.W_VERSION_AHEAD: (
        "upgrade valuechain; trials are version-excluded and never coerced"
    ),
    EvidenceCode.W_RUN_INCOMPLETE_IN_EXPORT: (
        "import the rest of the run (another export page or file) before reading its funnel"
    ),
    EvidenceCode.W_TRIAL_ID_CONFLICT: (
        "one trial id in several traces: all of them are integrity-excluded"
    ),
    EvidenceCode.W_TRANSPORT_ERROR_WITHOUT_CODE: (
        "the exporter must put the SDK code (-32000/-32001) on transport errors; "
        "without one the failure reads as a domain error"
    ),
    EvidenceCode.W_EVIDENCE_SPAN_UNRESOLVED: (
        "the persisted chain cites a span the export does not carry; "
        "it is not used to upgrade reach"
    ),
    EvidenceCode.W_UNKNOWN_AUTHORED_MODE: (
        "mode must be model_driven or model_free; the authored case was inferred instead "
        "and the trial is integrity-excluded"
    ),
    EvidenceCode.W_DUPLICATE_CONFLICT: (
        "the trace holds conflicting copies of a span; its trials are integrity-excluded"
    ),
    EvidenceCode.E_PARENT_CYCLE: (
        "the span tree has a cycle; the trial takes the earliest span as root and is "
        "integrity-excluded"
    ),
}

# Codes that, on a trial, put it in exclusion class `version` rather than `integrity`.
VERSION_CODES: Final = frozenset({EvidenceCode.W_VERSION_AHEAD})

ISSUES_SCHEMA = pa.schema(
    [
        pa.field("severity", pa.string(), nullable=False),
        pa.field("code", pa.string(), nullable=False),
        pa.field("trace_id", pa.string()),
        pa.field("span_id", pa.string()),
        pa.field("trial_id", pa.string()),
        pa.field("run_id", pa.string()),
        pa.field("key", pa.string()),
        pa.field("message", pa.string(), nullable=False),
        pa.field("hint", pa.string(), nullable=False),
        pa.field("occurrences", pa.int64(), nullable=False),
    ]
)


@dataclass(slots=True)
class EvidenceIssue:
    """One issue row; `occurrences` > 1 when one row stands for repeats (per-key codes)."""

    code: EvidenceCode
    message: str
    trace_id: str | None = None
    span_id: str | None = None
    trial_id: str | None = None
    run_id: str | None = None
    key: str | None = None
    occurrences: int = 1

    @property
    def severity(self) -> str:
        return "error" if self.code.value.startswith("E_") else "warning"

    @property
    def hint(self) -> str:
        return HINTS[self.code]


@dataclass(slots=True)
class IssueLog:
    """The issues of one `build_trials` call, in the order they were found."""

    issues: list[EvidenceIssue] = field(default_factory=list)

    def add(self, issue: EvidenceIssue) -> None:
        self.issues.append(issue)

    def to_arrow(self) -> pa.Table:
        rows = self.issues
        return pa.table(
            {
                "severity": [i.severity for i in rows],
                "code": [i.code.value for i in rows],
                "trace_id": [i.trace_id for i in rows],
                "span_id": [i.span_id for i in rows],
                "trial_id": [i.trial_id for i in rows],
                "run_id": [i.run_id for i in rows],
                "key": [i.key for i in rows],
                "message": [i.message for i in rows],
                "hint": [i.hint for i in rows],
                "occurrences": [i.occurrences for i in rows],
            },
            schema=ISSUES_SCHEMA,
        )
