"""Trial-level issues the evidence adapter reports (TRACE-FORMAT §5.2; CONTRACT §9 Q6).

Every issue points at a trace (and a span when there is one), names the trial or run it
concerns, and ends with a one-line hint. Per-key problems (`W_UNKNOWN_CONTRACT_KEY`,
`W_CONTRACT_TYPE`) are reported once per key with an occurrence count, so a 100k-trial
export with one misspelt key yields one row, not 100k.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pyarrow as pa

from valuechain.contract.issue_log import IssueLog
from valuechain.contract.issues import TRIAL_HINTS, Code
from valuechain.contract.tables import TRIAL_ISSUES

ORIGIN_UNKNOWN_MESSAGE = (
    "tool span failed (status ERROR) with no JSON-RPC code, no error.type and no isError "
    "result, so the trace does not show the server caused it; read as a transport failure "
    "without a code (Tool call protocolError), no code invented"
)
TRANSPORT_MESSAGE = (
    "mcp.app.tool.outcome = transport_error without a numeric error code; "
    "passed through unchanged (it reads as a domain error)"
)


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


# The issues of one batch, in the order the passes found them (one `add`: record an issue).
TrialLog = IssueLog[EvidenceIssue]


def issues_arrow(rows: Sequence[EvidenceIssue]) -> pa.Table:
    """The `trial_issues` rows of a batch's issues (`contract.tables.TRIAL_ISSUES`)."""
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
