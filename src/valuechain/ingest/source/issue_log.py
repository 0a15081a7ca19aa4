"""The issue log of one source being decoded: where each issue is, flavour notes aggregated.

The vocabulary (codes, severities, hints, the ``Issue`` row) is ``contract.issues``; ``pointer``
renders where an issue is the way an error message leads with it (STYLE habit 5).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from valuechain.contract.issue_log import IssueLog as Log
from valuechain.contract.issues import AGGREGATED, Code, Issue, excerpt


@dataclass(slots=True)
class Where:
    """Where the record being decoded sits in its source."""

    record_index: int | None = None
    line: int | None = None
    byte_offset: int | None = None


class IssueLog:
    """Issues of one source, in the order they were found (`contract.issue_log.IssueLog`,
    whose aggregation it keeps); `add` builds the row from where the decoder stands."""

    __slots__ = ("_log",)

    def __init__(self) -> None:
        self._log: Log[Issue] = Log(AGGREGATED)

    @property
    def issues(self) -> list[Issue]:
        return self._log.issues

    def add(
        self,
        code: Code,
        message: str,
        where: Where,
        json_path: str | None = None,
        value: Any = None,
        span_row: int | None = None,
    ) -> None:
        if self._log.counted(code):  # an aggregated repeat: no row (nor excerpt) to build
            return
        self._log.add(
            Issue(
                code,
                message,
                where.record_index,
                where.line,
                where.byte_offset,
                json_path,
                excerpt(value),
                span_row,
            )
        )


def pointer(issue: Issue) -> str | None:
    """Where an issue is, as an error message leads with it: ``line 42: resourceSpans[0]…``
    (``line 42, column 7: …`` inside a multi-line document)."""
    line = f"line {issue.line}" if issue.line is not None else None
    if line and issue.column is not None:
        line += f", column {issue.column}"
    parts = [line, issue.json_path]
    return ": ".join(p for p in parts if p) or None
