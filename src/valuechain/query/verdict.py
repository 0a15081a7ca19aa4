"""`valuechain verdict RUN`: a run's decision summary, its cases' statistics, a diagnostics page.

Which summary (DESIGN.md): the one stored for the run's derived chains at the current
analyzer unless the caller names another chain source or analyzer. It is decided on read —
from the same stored trials, by the same functions, nothing written — when the caller gives a
policy file (the decision then says which policy it was decided under), asks for a later
diagnostics page (`page`, a cursor from the previous page), or the store holds no summary for
the run yet (a store migrated from an older version before its next `materialize`).

Trial statistics (CONTRACT §6.5) describe each case of a v2 decision; they never decide.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import duckdb
from pydantic import MISSING

from valuechain.contract.verdict import CaseAggregation
from valuechain.contract.verdict_aggregate import TrialStatistics, trial_statistics
from valuechain.contract.verdict_policy import VerdictPolicyFile
from valuechain.contract.verdict_summary import DecisionSummary
from valuechain.contract.versions import STAGE_ANALYZER_VERSION
from valuechain.errors import UsageError
from valuechain.materialize.verdict import CursorError, decision_summaries
from valuechain.query.funnel import require_run
from valuechain.query.statements import query_rows


@dataclass(frozen=True, slots=True)
class VerdictView:
    """A run's decision summary and what a reader needs beside it."""

    summary: DecisionSummary
    chains: str
    analyzer: int
    stored: bool  # read from core.decision_summaries (False: decided on read)
    policy_file: bool  # decided under a caller's policy file
    page: str | None  # the cursor this page was asked for (None: the first page)
    statistics: tuple[tuple[CaseAggregation, TrialStatistics], ...]
    variants: Mapping[str, str] = field(default_factory=dict)  # trial id → provider/model


def verdict_view(
    con: duckdb.DuckDBPyConnection,
    run_id: str,
    *,
    chains: str = "derived",
    analyzer: int | None = None,
    policy: VerdictPolicyFile | None = None,
    page: str | None = None,
) -> VerdictView:
    """The decision summary of ``run_id`` (raises `UsageError` for an unknown run or cursor)."""
    require_run(con, run_id)
    version = STAGE_ANALYZER_VERSION if analyzer is None or chains == "producer" else analyzer
    summary: DecisionSummary | None = None
    if policy is None and page is None:
        rows = query_rows(
            con,
            "query/decision_summary.sql",
            {"run_id": run_id, "source": chains, "analyzer": version},
        )
        summary = DecisionSummary.from_json(rows[0]["document"]) if rows else None
    stored = summary is not None
    if summary is None:
        try:
            built = decision_summaries(
                con, [run_id], keys=[(chains, version)], policy_file=policy, cursor=page
            )
        except CursorError as error:
            raise UsageError(
                f"--page {page}", str(error), "use the nextCursor the previous page printed"
            ) from None
        if (run_id, chains, version) not in built:
            raise UsageError(
                f"run {run_id!r}",
                "a run without a run id has no decision summary (CONTRACT §6.6 needs one)",
                "the export's trials lack mcp.app.run.id; see valuechain runs",
            )
        summary = built[(run_id, chains, version)]
    decision = summary.decision
    statistics = (
        ()
        if decision is MISSING
        else tuple((case, trial_statistics(case)) for case in decision.cases)
    )
    return VerdictView(
        summary=summary,
        chains=chains,
        analyzer=version,
        stored=stored,
        policy_file=policy is not None,
        page=page,
        statistics=statistics,
        variants={
            r["trial_id"]: r["variant"]
            for r in query_rows(con, "query/trial_variants.sql", {"run_id": run_id})
            if r["variant"] is not None
        },
    )
