"""The run listing and what a store holds, in words a reader cannot misread.

A run without a document says why (CONTRACT §5.1, §5.10) instead of showing an empty cell; a
source-only run of plain traces says it is not an eval run (TRACE-FORMAT §3.8); a run the
store holds only part of says how much ("16 of 720 trials in the store", §5.2); a store
without any eval run, or without anything at all, says so in one line.
"""

from __future__ import annotations

from typing import Final

import polars as pl

from valuechain.query.runs import RunCompleteness, StoreContents
from valuechain.report.columns import Col

NOT_AN_EVAL_RUN: Final = "not an eval run: no suite id"
NO_EVAL_RUN: Final = "no eval run in this store"
# Why a run has no document, by `runs.document_blocker` (sql/analytics/020_run_facts.sql).
BLOCKER_TEXT: Final = {
    "runIdEmpty": "no document: the run id is empty",
    "suiteIdMissing": "no document: no suite id",
    "suiteIdConflict": "no document: its trials name several suite ids",
}
NO_FUNNEL: Final = "no funnel: not an eval run"
NOT_MATERIALIZED: Final = "no document yet: run valuechain materialize"
OLDER_ANALYZER_ONLY: Final = "older analyzer only: run valuechain recompute"


def _count(n: int, noun: str) -> str:
    return f"{n:,} {noun}{'s' * (n != 1)}"


def contents_text(contents: StoreContents) -> str:
    """``3 traces and 17 spans``."""
    return f"{_count(contents.traces, 'trace')} and {_count(contents.spans, 'span')}"


def store_note(contents: StoreContents) -> str | None:
    """The one line a run listing needs beside (or instead of) its rows; None when all runs
    are eval runs."""
    if contents.traces == 0:
        return "this store holds no trace yet: import an export with valuechain import PATH"
    if contents.runs == 0:
        return f"no runs derived yet from its {contents_text(contents)}: run valuechain derive"
    if not contents.has_eval_run:
        return (
            f"{NO_EVAL_RUN}: it holds {contents_text(contents)} of plain OpenTelemetry / "
            "OpenInference traces (no mcp.app contract), one source-only run per import source"
        )
    others = contents.runs - contents.eval_runs
    if others:
        return (
            f"{others} of {contents.runs} runs are not eval runs: source-only runs of plain "
            "traces, with chains but no funnel"
        )
    return None


def no_eval_run_hint(contents: StoreContents) -> str:
    """The hint of a funnel or trial asked of a store that holds no eval run."""
    return (
        f"it holds {contents_text(contents)} without the mcp.app eval contract; funnels need "
        "an eval export (TRACE-FORMAT §3.4); list what it holds with valuechain runs, or query "
        "it with valuechain sql"
    )


def completeness_text(c: RunCompleteness) -> str | None:
    """``16 of 720 trials in the store (704 missing from the export); 2 marked pending …``;
    None when the run states no expected count and nothing was marked."""
    parts: list[str] = []
    if c.expected is not None:
        text = f"{c.in_store:,} of {c.expected:,} trials in the store"
        if c.missing:
            text += f" ({c.missing:,} missing from the imported exports)"
        parts.append(text)
    marked = [f"{n:,} {word}" for n, word in ((c.pending, "pending"), (c.skipped, "skipped")) if n]
    if marked:
        parts.append(f"marked by the producer: {', '.join(marked)}")
    return "; ".join(parts) or None


def _in_store() -> pl.Expr:
    expected = pl.col("trials_expected")
    count = pl.col("trials_in_store").cast(pl.String)
    text = (
        pl.when(expected.is_null())
        .then(count)
        .otherwise(pl.format("{} of {}", "trials_in_store", "trials_expected"))
    )
    missing = pl.when(pl.col("trials_missing") > 0).then(
        pl.format(" ({} missing)", "trials_missing")
    )
    return pl.concat_str([text, missing.otherwise(pl.lit(""))]).alias("trials in store")


def runs_table(frame: pl.DataFrame) -> pl.DataFrame:
    """The columns a person compares runs by, every empty cell replaced by its reason."""
    no_document = pl.col("included_trials").is_null()
    reason = (
        pl.when(~pl.col("eval_run"))
        .then(pl.lit(NO_FUNNEL))
        .when(pl.col("stale") & (pl.col("document_analyzer_versions").list.len() > 0))
        .then(pl.lit(OLDER_ANALYZER_ONLY))
        .otherwise(
            pl.col("document_blocker")
            .replace_strict(BLOCKER_TEXT, default=None, return_dtype=pl.String)
            .fill_null(NOT_MATERIALIZED)
        )
    )
    return frame.select(
        "run_id",
        pl.when(pl.col("suite_id").is_not_null())
        .then(pl.col("suite_id"))
        .when(~pl.col("eval_run"))
        .then(pl.lit(NOT_AN_EVAL_RUN))
        .otherwise(pl.lit("missing"))
        .alias("suite_id"),
        "completed_at",
        pl.when(no_document)
        .then(reason)
        .otherwise(pl.format("{}/{}", "included_trials", "total_trials"))
        .alias("trials in/total"),
        _in_store(),
        pl.concat_str(
            ["run_group_id", "config_revision", "case_set_fingerprint"],
            separator=" · ",
            ignore_nulls=False,
        )
        .fill_null("missing")
        .alias("parity (group · config · case set)"),
        pl.col("stage_analyzer_version").cast(pl.String).fill_null("—").alias("analyzer"),
        pl.concat_str(  # which versions it has documents at; stale: `recompute` would touch it
            pl.col("document_analyzer_versions")
            .list.eval(pl.element().cast(pl.String))
            .list.join(","),
            pl.when(pl.col("stale")).then(pl.lit(" stale")).otherwise(pl.lit("")),
        ).alias("documents"),
        pl.col("materialization_state").fill_null("unmeasured").alias("state"),
    )


# `runs_table` at 80 columns: the id and the counts in line, the long parity triple under.
RUNS_COLUMNS: Final = (
    Col("run_id", "run"),
    Col("trials in/total", "in/total", keep=1),
    Col("state", keep=1),
    Col("analyzer", keep=2),
    Col("documents", keep=2),
    Col("completed_at", "completed", keep=3),
    Col("trials in store", "in store", keep=3),
    Col("suite_id", "suite", keep=4),
    Col("parity (group · config · case set)", "parity", under=True),
)


def not_an_eval_run_text(run_id: str) -> str:
    """Why a source-only run has a chain per trial but no funnel."""
    return (
        f"run {run_id} is {NOT_AN_EVAL_RUN}: a source-only run of plain traces "
        "(TRACE-FORMAT §3.8) has one chain per trace (valuechain trial TRACE_ID) and no funnel, "
        "which needs a suite id (CONTRACT §5.1)"
    )
