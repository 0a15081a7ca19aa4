"""Run decision summaries: decided from the stored trials, written to core.decision_summaries.

Per run (CONTRACT §6): the inputs are read set-based (`verdict_inputs.py`), a v2 run is
aggregated per case × execution variant and decided in two phases (`aggregate_verdict`; a
refusal becomes `notEstablished` / `verdictSummaryUnavailable` with the refusal as detail),
and the summary is assembled (§6.6) over the first page of diagnostics (§6.7). One summary
per run, chain source and reader analyzer version — the verdict is the same in each, the
chains under the diagnostics differ (derived at that version, or the producer's).

Pages are keyset pages over (iteration number, trial id) of `PAGE_SIZE` trials; a cursor is
an opaque token naming the run and the last trial of its page. The first page of a run that
fits on it is `complete`; any page reached by a cursor is not (it is not the whole set).
"""

from __future__ import annotations

import base64
import binascii
import json
from collections import defaultdict
from collections.abc import Sequence
from typing import Any, Final

import duckdb
import pyarrow as pa
from pydantic import MISSING

from valuechain.contract.tables import DECISION_SUMMARIES
from valuechain.contract.verdict import VerdictDecision
from valuechain.contract.verdict_aggregate import VerdictAggregationError, aggregate_verdict
from valuechain.contract.verdict_diagnostics import Diagnostics, Iteration, diagnostics_page
from valuechain.contract.verdict_policy import VerdictPolicyFile
from valuechain.contract.verdict_summary import (
    DecisionSummary,
    RunRecord,
    assemble_decision_summary,
)
from valuechain.contract.versions import STAGE_ANALYZER_VERSION
from valuechain.materialize.verdict_inputs import RunInputs, read_run_inputs
from valuechain.store import sqlfiles

PAGE_SIZE: Final = 50
_CURSOR_PREFIX: Final = "vc1."


class CursorError(ValueError):
    """A `--page` token that is not a cursor of this run."""


def encode_cursor(run_id: str, iteration_number: int, trial_id: str) -> str:
    raw = json.dumps([run_id, iteration_number, trial_id], separators=(",", ":")).encode()
    return _CURSOR_PREFIX + base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(run_id: str, cursor: str) -> tuple[int, str]:
    """The (iteration number, trial id) a cursor resumes after; it must name ``run_id``."""
    if not cursor.startswith(_CURSOR_PREFIX):
        raise CursorError("not a diagnostics cursor (they start with 'vc1.')")
    body = cursor[len(_CURSOR_PREFIX) :]
    try:
        value = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
    except (binascii.Error, ValueError):
        raise CursorError("the cursor is damaged") from None
    if (
        not isinstance(value, list)
        or len(value) != 3
        or type(value[1]) is not int
        or not all(isinstance(v, str) for v in (value[0], value[2]))
    ):
        raise CursorError("the cursor is damaged")
    if value[0] != run_id:
        raise CursorError(f"the cursor belongs to run {value[0]}")
    return value[1], value[2]


def decide(inputs: RunInputs) -> RunRecord:
    """The run record with its v2 decision (or the refusal that stops it) filled in."""
    record = inputs.record
    if record.verdict_policy_version != 2 or inputs.refusal is not None or inputs.policy is None:
        return record
    try:
        decision: VerdictDecision | None = aggregate_verdict(inputs.cases, inputs.policy)
        error = None
    except VerdictAggregationError as refused:
        decision, error = None, str(refused)
    return RunRecord(
        id=record.id,
        status=record.status,
        verdict_policy_version=2,
        verdict_summary=decision,
        verdict_policy_integrity_error=error,
    )


def _run(
    con: duckdb.DuckDBPyConnection, name: str, params: dict[str, Any], *, fetch: bool = True
) -> list[dict[str, Any]]:
    sql = sqlfiles.statement(f"verdict/{name}")
    if not fetch:
        con.execute(sql.text, sql.bind(params))
        return []
    # Through Arrow: the pages' nested chain rows convert ~40% faster than row tuples do.
    rows: list[dict[str, Any]] = (
        con.sql(sql.text, params=sql.bind(params)).to_arrow_table().to_pylist()
    )
    return rows


def _metadata(chains: list[dict[str, Any]]) -> dict[str, object]:
    """The chain keys of one trial as stored (§2.1 shape; the validator decides later); of a
    producer's chains at several versions, the newest."""
    chain = max(chains, key=lambda c: c["analyzer_version"])
    stage_results: list[dict[str, object]] = []
    for r in chain["stage_rows"]:
        row: dict[str, object] = {"stage": r["stage"], "state": r["state"]}
        if r["reason"] is not None:
            row["reason"] = r["reason"]
        if r["evidence"] is not None:
            row["evidence"] = json.loads(r["evidence"])
        stage_results.append(row)
    out: dict[str, object] = {
        "stageResults": stage_results,
        "stageAnalyzerVersion": chain["analyzer_version"],
    }
    if chain["first_failed_stage"] is not None:
        out["firstFailedStage"] = chain["first_failed_stage"]
    if chain["failure_category"] is not None:
        out["failureCategory"] = chain["failure_category"]
    return out


def _calls(text: str | None) -> list[dict[str, object]]:
    try:
        value = json.loads(text) if text else []
    except ValueError:
        return []
    return [c for c in value if isinstance(c, dict)] if isinstance(value, list) else []


def _iterations(
    trials: list[dict[str, Any]],
    chains: dict[str, list[dict[str, Any]]],
    details: dict[str, dict[str, Any]],
) -> list[Iteration]:
    """A page's trials as §6.7 reads them; chain and details only where they were fetched."""
    out = []
    for t in trials:
        d = details.get(t["trial_id"], {})
        rows = chains.get(t["trial_id"])
        out.append(
            Iteration(
                id=t["trial_id"],
                iteration_number=t["iteration_number"],
                status=t["status"] or "unknown",
                result=t["trial_result"],
                case_id=t["case_id"],
                test_case_id=t["case_key"],
                title=t["case_title"],
                metadata=_metadata(rows) if rows else {},
                expected_tool_calls=_calls(d.get("expect_tool_calls")),
                actual_tool_calls=[{"toolName": n} for n in d.get("tool_names") or []],
                error=d.get("error"),
            )
        )
    return out


def _page(
    run_id: str,
    project_id: str,
    trials: list[dict[str, Any]],
    chains: dict[str, list[dict[str, Any]]],
    details: dict[str, dict[str, Any]],
    *,
    first: bool,
    limit: int,
) -> Diagnostics:
    more = len(trials) > limit
    trials = trials[:limit]
    last = trials[-1] if trials else None
    next_cursor = (
        encode_cursor(run_id, last["iteration_number"], last["trial_id"]) if more and last else None
    )
    return diagnostics_page(
        _iterations(trials, chains, details),
        run_id=run_id,
        project_id=project_id,
        complete=first and not more,
        next_cursor=next_cursor,
    )


def read_page(
    con: duckdb.DuckDBPyConnection,
    run_id: str,
    *,
    project_id: str,
    source: str = "derived",
    analyzer: int = STAGE_ANALYZER_VERSION,
    cursor: str | None = None,
    limit: int = PAGE_SIZE,
) -> Diagnostics:
    """One page of a run's diagnostics under the chains of ``source`` at ``analyzer``."""
    if cursor is None:
        pages = read_pages(
            con, [run_id], {run_id: {(source, analyzer)}}, {run_id: project_id}, limit=limit
        )
        return pages[(run_id, source, analyzer)]
    after = decode_cursor(run_id, cursor)
    params = {"run_id": run_id, "after_number": after[0], "after_id": after[1], "limit": limit}
    _run(con, "020_page_trials.sql", params, fetch=False)
    return _pages(
        con, {run_id: {(source, analyzer)}}, {run_id: project_id}, first=False, limit=limit
    )[(run_id, source, analyzer)]


def read_pages(
    con: duckdb.DuckDBPyConnection,
    run_ids: Sequence[str] | None,
    wanted: dict[str, set[tuple[str, int]]],
    projects: dict[str, str],
    *,
    limit: int = PAGE_SIZE,
) -> dict[tuple[str, str, int], Diagnostics]:
    """The first page of every target run under each (chain source, version) it wants, read
    set-based: the same four statements for all the runs together, not four per run."""
    params = {"all_runs": run_ids is None, "run_ids": list(run_ids or ()), "limit": limit}
    _run(con, "040_first_pages.sql", params, fetch=False)
    return _pages(con, wanted, projects, first=True, limit=limit)


def _pages(
    con: duckdb.DuckDBPyConnection,
    wanted: dict[str, set[tuple[str, int]]],
    projects: dict[str, str],
    *,
    first: bool,
    limit: int,
) -> dict[tuple[str, str, int], Diagnostics]:
    """The pages held in v_pages (040 or 020), then the table released."""
    try:
        trials: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for row in _run(con, "041_page_trials.sql", {}):
            trials[row["run_id"]].append(row)
        chains: dict[tuple[str, str, int], dict[str, list[dict[str, Any]]]] = defaultdict(
            lambda: defaultdict(list)
        )
        for row in _run(con, "042_page_chains.sql", {}):
            producer = row["source"] == "producer"
            version = STAGE_ANALYZER_VERSION if producer else row["analyzer_version"]
            chains[(row["run_id"], row["source"], version)][row["trial_id"]].append(row)
        details: dict[str, dict[str, dict[str, Any]]] = defaultdict(dict)
        for row in _run(con, "043_page_details.sql", {}):
            details[row["run_id"]][row["trial_id"]] = row
    finally:
        _run(con, "044_drop_pages.sql", {}, fetch=False)
    out: dict[tuple[str, str, int], Diagnostics] = {}
    for run_id, pairs in wanted.items():
        for source, version in pairs:
            key = (run_id, source, version)
            out[key] = _page(
                run_id,
                projects.get(run_id, ""),
                trials.get(run_id, []),
                chains.get(key, {}),
                details.get(run_id, {}),
                first=first,
                limit=limit,
            )
    return out


def decision_summaries(
    con: duckdb.DuckDBPyConnection,
    run_ids: Sequence[str] | None,
    *,
    keys: Sequence[tuple[str, int]] | None = None,
    policy_file: VerdictPolicyFile | None = None,
    cursor: str | None = None,
) -> dict[tuple[str, str, int], DecisionSummary]:
    """The summaries of ``run_ids`` (None = all) per (run, chain source, analyzer version).

    ``keys`` names the (chain source, version) pairs wanted for every run; by default each
    run gets one per pair it has chains for, plus (`derived`, current analyzer) always.
    """
    inputs = read_run_inputs(con, run_ids, policy_file)
    wanted: dict[str, set[tuple[str, int]]] = defaultdict(set)
    if keys is None:
        params = {
            "all_runs": run_ids is None,
            "run_ids": list(run_ids or ()),
            "reader_version": STAGE_ANALYZER_VERSION,
        }
        for row in _run(con, "030_chain_keys.sql", params):
            wanted[row["run_id"]].add((row["chain_source"], row["analyzer_version"]))
    pairs: dict[str, set[tuple[str, int]]] = {}
    for run_id in inputs:
        if run_id:  # `runId` is a non-empty id (§6.6): such trials carry no run to decide
            default = wanted[run_id] | {("derived", STAGE_ANALYZER_VERSION)}
            pairs[run_id] = set(keys) if keys is not None else default
    projects = {run_id: run.project_id for run_id, run in inputs.items()}
    if cursor is None:
        pages = read_pages(con, run_ids, pairs, projects)
    else:
        pages = {
            (run_id, source, version): read_page(
                con,
                run_id,
                project_id=projects[run_id],
                source=source,
                analyzer=version,
                cursor=cursor,
            )
            for run_id, run_pairs in pairs.items()
            for source, version in run_pairs
        }
    out: dict[tuple[str, str, int], DecisionSummary] = {}
    for run_id, run_pairs in pairs.items():
        record = decide(inputs[run_id])
        for source, version in sorted(run_pairs):
            key = (run_id, source, version)
            out[key] = assemble_decision_summary(record, pages[key])
    return out


def _row(key: tuple[str, str, int], summary: DecisionSummary) -> dict[str, Any]:
    counts = {} if summary.counts is MISSING else summary.counts.model_dump()
    decision = None if summary.decision is MISSING else summary.decision
    undecided = None if summary.undecided is MISSING else summary.undecided
    return {
        "run_id": key[0],
        "chain_source": key[1],
        "analyzer_version": key[2],
        "run_status": summary.run_status,
        "verdict": summary.verdict.value,
        "verdict_source": summary.verdict_source.value,
        "undecided_reason": None if undecided is None else undecided.reason.value,
        "measurement_unit": counts.get("measurementUnit"),
        "counted_total": counts.get("total"),
        "counted_passed": counts.get("passed"),
        "counted_failed": counts.get("failed"),
        "counted_inconclusive": counts.get("inconclusive"),
        "reasons": None if decision is None else [r.value for r in decision.reasons],
        "diagnostics_complete": summary.diagnostics.complete,
        "diagnostics_items": len(summary.diagnostics.items),
        "scanned_iterations": summary.diagnostics.scanned_iterations,
        "document": summary.to_json(),
    }


def write_decision_summaries(con: duckdb.DuckDBPyConnection, run_ids: Sequence[str] | None) -> int:
    """Replace the decision summaries of ``run_ids`` (None = all) inside the caller's open
    transaction; a listed run without trials loses its rows. Returns the rows written."""
    summaries = decision_summaries(con, run_ids)
    rows = [_row(key, s) for key, s in summaries.items()]
    table = pa.Table.from_pylist(rows, schema=DECISION_SUMMARIES)
    params = {"all_runs": run_ids is None, "run_ids": list(run_ids or ())}
    for sql in sqlfiles.folder("verdict"):
        if sql.name >= "verdict/200_":
            con.register("v_decision_summaries", table)
            try:
                con.execute(sql.text, sql.bind(params))
            finally:
                con.unregister("v_decision_summaries")
    return len(rows)
