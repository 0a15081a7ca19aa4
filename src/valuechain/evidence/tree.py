"""The span tree's notes of TRACE-FORMAT §5.2: orphans and children outside their parent.

An **orphan** is a span whose parent id names no span of its trace (`W_ORPHAN_SPAN`): it is
kept, the view `spans` marks it `is_orphan`, and it acts as a local root — a foreign trace
without a parentless span is rooted at its earliest orphan (`grouping`). A **child outside its
parent's window** starts before its parent starts or ends after it ends (`I_CHILD_OUTSIDE_PARENT`,
information only: clocks of different hosts, millisecond rounding). Both are reported once per
trace, with the number of spans and the first few named.

"The batch" of §5.2 is every span of the trace the store holds: the evidence adapter always
reads whole traces (spans of one trace arriving in several files or imports are merged
first, and a trace that gains spans is derived again, replacing its issues), so a parent that
arrives in a later import clears the warning instead of leaving a stale one.
"""

from __future__ import annotations

from dataclasses import replace

import polars as pl

from valuechain.contract.issues import Code
from valuechain.evidence.evidence_frame import EvidenceFrame, need
from valuechain.evidence.grouping import named
from valuechain.evidence.issues import EvidenceIssue, TrialLog


def tree_pass(frame: EvidenceFrame) -> EvidenceFrame:
    """Adds the span tree's issues of every span read."""
    log = TrialLog()
    report_tree(need(frame.spans, "spans"), log)
    return replace(frame, issues=frame.logged(log))


def report_tree(spans: pl.DataFrame, log: TrialLog) -> None:
    """Add the orphan and outside-the-window issues of normalised spans (`trace`, `span`,
    `parent`, `start_ns`, `end_ns`, `span_row`)."""
    # A span stored more than once (a conflicting duplicate) is one span of the tree. Only the
    # tree's columns are carried: the normalised spans hold every wide attribute column too.
    nodes = (
        spans.select("trace", "span", "parent", "start_ns", "end_ns", "span_row")
        .sort("span_row")
        .unique(["trace", "span"], keep="first", maintain_order=True)
    )
    children = nodes.filter(pl.col("parent").is_not_null())
    parents = nodes.select(
        "trace",
        pl.col("span").alias("parent"),
        pl.col("start_ns").alias("p_start"),
        pl.col("end_ns").alias("p_end"),
    )
    orphans = children.join(parents, on=["trace", "parent"], how="anti")
    for trace, span_ids in _per_trace(orphans):
        log.add(
            EvidenceIssue(
                Code.W_ORPHAN_SPAN,
                f"{_count(span_ids)} whose parent is not in the trace ({named(span_ids)}); "
                "kept, each roots its own subtree",
                trace_id=trace,
                span_id=span_ids[0],
                occurrences=len(span_ids),
            )
        )
    known = pl.col("start_ns") > 0, pl.col("end_ns") > 0, pl.col("p_start") > 0
    outside = (
        children.join(parents, on=["trace", "parent"], how="inner")
        .filter(*known, pl.col("p_end") >= pl.col("p_start"))
        .filter((pl.col("start_ns") < pl.col("p_start")) | (pl.col("end_ns") > pl.col("p_end")))
    )
    for trace, span_ids in _per_trace(outside):
        log.add(
            EvidenceIssue(
                Code.I_CHILD_OUTSIDE_PARENT,
                f"{_count(span_ids)} starting before or ending after the parent "
                f"({named(span_ids)}); times kept as sent",
                trace_id=trace,
                span_id=span_ids[0],
                occurrences=len(span_ids),
            )
        )


def _per_trace(frame: pl.DataFrame) -> list[tuple[str, list[str]]]:
    grouped = (
        frame.sort("trace", "span_row")
        .group_by("trace", maintain_order=True)
        .agg(pl.col("span"))
        .iter_rows()
    )
    return [(trace, list(spans)) for trace, spans in grouped]


def _count(span_ids: list[str]) -> str:
    return "1 span" if len(span_ids) == 1 else f"{len(span_ids)} spans"
