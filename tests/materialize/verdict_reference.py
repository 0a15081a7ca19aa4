"""The diagnostics pages as the Python reference builds them (CONTRACT §6.7), over the same
temporary tables the SQL path reads (``v_keys``, ``v_pages``, ``v_page_chains``,
``v_page_details``): each page's trials become `Iteration`s exactly as the store holds them
(the chain keys of §2.1 as stored, the newest of a producer's chains), and
`contract.verdict_diagnostics.diagnostics_page` decides everything else. The oracle
sql/verdict/046 is checked against (imported by basename).
"""

from __future__ import annotations

import json
from collections import defaultdict
from typing import Any

import duckdb

from valuechain.contract.verdict_diagnostics import Diagnostics, Iteration, diagnostics_page
from valuechain.contract.versions import STAGE_ANALYZER_VERSION
from valuechain.materialize.verdict import encode_cursor


def _rows(con: duckdb.DuckDBPyConnection, sql: str) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = con.sql(sql).to_arrow_table().to_pylist()
    return rows


def _metadata(chains: list[dict[str, Any]]) -> dict[str, object]:
    """The chain keys of one trial as stored; of a producer's chains, the newest."""
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


def reference_pages(
    con: duckdb.DuckDBPyConnection, *, first: bool, limit: int
) -> dict[tuple[str, str, int], Diagnostics]:
    """Every key's page, built in Python from the temporary tables."""
    trials: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in _rows(con, "SELECT * FROM v_pages ORDER BY run_id, position"):
        trials[row["run_id"]].append(row)
    chains: dict[tuple[str, str, int], dict[str, list[dict[str, Any]]]] = defaultdict(
        lambda: defaultdict(list)
    )
    for row in _rows(con, "SELECT * FROM v_page_chains"):
        producer = row["source"] == "producer"
        version = STAGE_ANALYZER_VERSION if producer else row["analyzer_version"]
        chains[(row["run_id"], row["source"], version)][row["trial_id"]].append(row)
    details: dict[str, dict[str, dict[str, Any]]] = defaultdict(dict)
    for row in _rows(con, "SELECT * FROM v_page_details"):
        details[row["run_id"]][row["trial_id"]] = row
    out: dict[tuple[str, str, int], Diagnostics] = {}
    for key in _rows(con, "SELECT * FROM v_keys"):
        run_id = key["run_id"]
        k = (run_id, key["chain_source"], key["analyzer_version"])
        page = trials.get(run_id, [])
        more = len(page) > limit
        page = page[:limit]
        cursor = (
            encode_cursor(run_id, page[-1]["iteration_number"], page[-1]["trial_id"])
            if more and page
            else None
        )
        iterations = []
        for t in page:
            d = details[run_id].get(t["trial_id"], {})
            rows = chains[k].get(t["trial_id"])
            iterations.append(
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
        out[k] = diagnostics_page(
            iterations,
            run_id=run_id,
            project_id=key["project_id"],
            complete=first and not more,
            next_cursor=cursor,
        )
    return out
