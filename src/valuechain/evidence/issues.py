"""Trial-level issues the evidence adapter reports (TRACE-FORMAT §5.2; CONTRACT §9 Q6).

Every issue points at a trace (and a span when there is one), names the trial or run it
concerns, and ends with a one-line hint. Per-key problems (`W_UNKNOWN_CONTRACT_KEY`,
`W_CONTRACT_TYPE`) are reported once per key with an occurrence count, so a 100k-trial
export with one misspelt key yields one row, not 100k.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pyarrow as pa

from valuechain.contract.issues import TRIAL_HINTS, Code
from valuechain.contract.tables import TRIAL_ISSUES


@dataclass(slots=True)
class EvidenceIssue:
    """One issue row; `occurrences` > 1 when one row stands for repeats (per-key codes)."""

    code: Code
    message: str
    trace_id: str | None = None
    span_id: str | None = None
    trial_id: str | None = None
    run_id: str | None = None
    key: str | None = None
    occurrences: int = 1

    @property
    def severity(self) -> str:
        return self.code.severity.value

    @property
    def hint(self) -> str:
        return TRIAL_HINTS[self.code]


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
            schema=TRIAL_ISSUES,
        )
