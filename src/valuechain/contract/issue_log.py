"""The one issue accumulator of the project: issues in the order found, some codes counted.

Ingest (a source's decode issues, ``contract.issues.Issue``) and evidence (a batch's trial
issues, ``evidence.issues.EvidenceIssue``) both collect through `IssueLog`, so ``add`` means
one thing wherever it is called on an issue log: record this issue. A code in ``aggregated``
stands once, on the row of its first issue, whose ``occurrences`` counts the later ones
(TRACE-FORMAT §5.1: one row per source or batch for per-key or flavour notes).
"""

from __future__ import annotations

from typing import Generic, Protocol, TypeVar

from valuechain.contract.issues import Code


class Counted(Protocol):
    """What an issue row has for the log: its code and how many repeats it stands for."""

    code: Code
    occurrences: int


IssueT = TypeVar("IssueT", bound=Counted)


class IssueLog(Generic[IssueT]):
    """Issues in the order they were found; `add` records one."""

    __slots__ = ("_first", "aggregated", "issues")

    def __init__(self, aggregated: frozenset[Code] = frozenset()) -> None:
        self.issues: list[IssueT] = []
        self.aggregated = aggregated
        self._first: dict[Code, IssueT] = {}

    def counted(self, code: Code) -> bool:
        """Whether an issue of `code` would only count on an earlier row; if so, count it
        there. Lets a caller skip building an issue row that `add` would not keep."""
        first = self._first.get(code)
        if first is None:
            return False
        first.occurrences += 1
        return True

    def add(self, issue: IssueT) -> None:
        """Record `issue`; a repeat of an aggregated code only counts on its first row."""
        if issue.code in self.aggregated:
            first = self._first.get(issue.code)
            if first is not None:
                first.occurrences += issue.occurrences
                return
            self._first[issue.code] = issue
        self.issues.append(issue)
