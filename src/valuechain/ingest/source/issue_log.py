"""The issue log of one source being decoded: where each issue is, flavour notes aggregated.

The vocabulary (codes, severities, hints, the ``Issue`` row) is ``contract.issues``; ``pointer``
renders where an issue is the way an error message leads with it (STYLE habit 5).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from valuechain.contract.issues import AGGREGATED, Code, Issue, excerpt


@dataclass(slots=True)
class Where:
    """Where the record being decoded sits in its source."""

    record_index: int | None = None
    line: int | None = None
    byte_offset: int | None = None


@dataclass(slots=True)
class IssueLog:
    """Issues of one source, in the order they were found."""

    issues: list[Issue] = field(default_factory=list)
    _aggregated: dict[Code, Issue] = field(default_factory=dict)

    def add(
        self,
        code: Code,
        message: str,
        where: Where,
        json_path: str | None = None,
        value: Any = None,
        span_row: int | None = None,
    ) -> None:
        if code in AGGREGATED:
            first = self._aggregated.get(code)
            if first is not None:
                first.occurrences += 1
                return
        issue = Issue(
            code,
            message,
            where.record_index,
            where.line,
            where.byte_offset,
            json_path,
            excerpt(value),
            span_row,
        )
        if code in AGGREGATED:
            self._aggregated[code] = issue
        self.issues.append(issue)


def pointer(issue: Issue) -> str | None:
    """Where an issue is, as an error message leads with it: ``line 42: resourceSpans[0]…``
    (``line 42, column 7: …`` inside a multi-line document)."""
    line = f"line {issue.line}" if issue.line is not None else None
    if line and issue.column is not None:
        line += f", column {issue.column}"
    parts = [line, issue.json_path]
    return ": ".join(p for p in parts if p) or None
