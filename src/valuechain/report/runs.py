"""The run listing and what a store holds, in words a reader cannot misread.

A run without a document says why (CONTRACT §5.1, §5.10) instead of showing an empty cell; a
source-only run of plain traces says it is not an eval run (TRACE-FORMAT §3.8); a run the
store holds only part of says how much ("16 of 720 trials in the store", §5.2); a store
without any eval run, or without anything at all, says so in one line.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final

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


def _in_store(run: dict[str, Any]) -> str:
    """``16 of 720 (704 missing)``, or the count alone when the run states no expected one."""
    expected, missing = run["trials_expected"], run["trials_missing"]
    text = str(run["trials_in_store"])
    if expected is not None:
        text = f"{text} of {expected}"
    return f"{text} ({missing} missing)" if missing is not None and missing > 0 else text


def _no_document_reason(run: dict[str, Any]) -> str:
    if not run["eval_run"]:
        return NO_FUNNEL
    if run["stale"] and run["document_analyzer_versions"]:
        return OLDER_ANALYZER_ONLY
    return BLOCKER_TEXT.get(run["document_blocker"], NOT_MATERIALIZED)


def _suite(run: dict[str, Any]) -> str:
    if run["suite_id"] is not None:
        return str(run["suite_id"])
    return "missing" if run["eval_run"] else NOT_AN_EVAL_RUN


def _parity(run: dict[str, Any]) -> str:
    keys = (run["run_group_id"], run["config_revision"], run["case_set_fingerprint"])
    return "missing" if None in keys else " · ".join(keys)


def _documents(run: dict[str, Any]) -> str:
    """Which versions it has documents at; stale: `recompute` would touch it."""
    versions = ",".join(str(v) for v in run["document_analyzer_versions"])
    return f"{versions} stale" if run["stale"] else versions


def runs_table(runs: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """The columns a person compares runs by (rows of `query.runs.run_rows`), every empty
    cell replaced by its reason."""
    return [
        {
            "run_id": run["run_id"],
            "suite_id": _suite(run),
            "completed_at": run["completed_at"],
            "trials in/total": _no_document_reason(run)
            if run["included_trials"] is None
            else f"{run['included_trials']}/{run['total_trials']}",
            "trials in store": _in_store(run),
            "parity (group · config · case set)": _parity(run),
            "analyzer": "—"
            if run["stage_analyzer_version"] is None
            else str(run["stage_analyzer_version"]),
            "documents": _documents(run),
            "state": run["materialization_state"] or "unmeasured",
        }
        for run in runs
    ]


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
