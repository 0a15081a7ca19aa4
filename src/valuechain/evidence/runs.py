"""The runs pass: runs with fewer trials in the export than they expect (TRACE-FORMAT §5.2)."""

from __future__ import annotations

from dataclasses import replace

import polars as pl

from valuechain.contract.issues import Code
from valuechain.evidence.evidence_frame import EvidenceFrame, need
from valuechain.evidence.issues import EvidenceIssue, TrialLog


def runs_pass(frame: EvidenceFrame) -> EvidenceFrame:
    """Adds `W_RUN_INCOMPLETE_IN_EXPORT` of each run short of trials."""
    log = TrialLog()
    report_runs(need(frame.roots, "roots"), log)
    return replace(frame, issues=frame.logged(log))


def report_runs(roots: pl.DataFrame, log: TrialLog) -> None:
    """`W_RUN_INCOMPLETE_IN_EXPORT`: fewer trials than `mcp.app.run.trials_expected` (§5.2)."""
    runs = (
        roots.filter(pl.col("contract") & pl.col("mcp.app.run.id").is_not_null())
        .group_by("run_id", maintain_order=True)
        .agg(
            pl.col("trial_id").n_unique().alias("found"),
            pl.col("mcp.app.run.trials_expected").max().alias("expected"),
            pl.col("mcp.app.trial.status")
            .is_in(("pending", "skipped"))
            .sum()
            .alias("not_attempted"),
            pl.col("trace").first(),
            pl.col("root_span").first(),
        )
        .filter(pl.col("expected").is_not_null() & (pl.col("found") < pl.col("expected")))
    )
    for run_id, found, expected, not_attempted, trace, span in runs.iter_rows():
        log.add(
            EvidenceIssue(
                Code.W_RUN_INCOMPLETE_IN_EXPORT,
                f"{found} of {expected} trials are in this export ({expected - found} missing); "
                f"{not_attempted} of those found were marked pending or skipped by the producer",
                trace_id=trace,
                span_id=span,
                run_id=run_id,
                key="mcp.app.run.trials_expected",
                occurrences=expected - found,
            )
        )
