"""One trial, as a reader sees it: identity, the chosen chain, its outcome, observations.

Readers see valuechain's own derived chain at the current analyzer unless they ask for
another analyzer version or for the producer's chain — never a mix (DESIGN.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import duckdb
import orjson

from valuechain.contract.labels import CATEGORY_LABELS, REASON_LABELS, STATE_LABELS
from valuechain.contract.versions import STAGE_ANALYZER_VERSION
from valuechain.contract.vocab import FailureCategory, StageReason, StageState
from valuechain.contract.vocab_rules import FALLBACK_NEXT_ACTION, NEXT_ACTIONS
from valuechain.errors import UsageError
from valuechain.query.runs import store_contents
from valuechain.query.statements import query_rows


@dataclass(frozen=True, slots=True)
class TrialView:
    """Everything the ``trial`` command shows."""

    identity: dict[str, Any]
    source: str
    analyzer_version: int
    chain: list[dict[str, Any]]
    first_failed_stage: str | None
    failure_category: str | None
    chain_verified: bool | None
    observations: list[dict[str, Any]]
    store_has_eval_run: bool = True

    @property
    def eval_trial(self) -> bool:
        """Whether the trial carries the mcp.app contract (else: one plain trace, §3.8)."""
        return bool(self.identity.get("contract", True))

    @property
    def next_action(self) -> str:
        if self.failure_category is None:
            return FALLBACK_NEXT_ACTION
        return NEXT_ACTIONS[FailureCategory(self.failure_category)]

    def to_json(self) -> dict[str, Any]:
        """camelCase, per DESIGN.md's JSON conventions; absent keys omitted."""
        doc: dict[str, Any] = {
            "trialId": self.identity["trial_id"],
            "traceId": self.identity["trace_id"],
            "runId": self.identity["run_id"],
            "chainSource": self.source,
            "stageAnalyzerVersion": self.analyzer_version,
            "evalRun": self.eval_trial,
            "stageResults": [
                {_camel(k): v for k, v in row.items() if v is not None} for row in self.chain
            ],
        }
        for key, value in (
            ("caseTitle", self.identity.get("case_title")),
            ("model", self.identity.get("model")),
            ("status", self.identity.get("status")),
            ("firstFailedStage", self.first_failed_stage),
            ("failureCategory", self.failure_category),
        ):
            if value is not None:
                doc[key] = value
        if self.failure_category is not None or self.first_failed_stage is not None:
            doc["nextAction"] = self.next_action
        doc["observations"] = self.observations
        return doc


def trial_view(
    con: duckdb.DuckDBPyConnection,
    trial_id: str,
    *,
    chains: str = "derived",
    analyzer: int | None = None,
) -> TrialView:
    """The trial's chain; raises ``UsageError`` naming what exists when it cannot be shown."""
    identity = query_rows(con, "query/trial_identity.sql", {"trial_id": trial_id})
    if not identity:
        contents = store_contents(con)
        raise UsageError(
            f"trial {trial_id}",
            "no such trial in this store"
            + ("" if contents.has_eval_run else "; no eval run in this store either"),
            'list trials with: valuechain sql "SELECT trial_id FROM trials"'
            + (
                ""
                if contents.has_eval_run
                else f" (its {contents.traces} traces are plain traces: a trial id is a trace id)"
            ),
        )
    versions = query_rows(con, "query/trial_versions.sql", {"trial_id": trial_id})
    wanted = [
        v
        for v in versions
        if v["source"] == chains and (analyzer is None or v["analyzer_version"] == analyzer)
    ]
    if chains == "derived" and analyzer is None:
        wanted = [v for v in wanted if v["analyzer_version"] == STAGE_ANALYZER_VERSION] or wanted
    if not wanted:
        have = ", ".join(f"{v['source']}@{v['analyzer_version']}" for v in versions) or "none"
        raise UsageError(
            f"trial {trial_id}",
            f"no {chains} chain"
            + (f" at analyzer {analyzer}" if analyzer else "")
            + f" (chains stored: {have})",
            "derive it with: valuechain derive [--analyzer N]",
        )
    chosen = wanted[0]
    chain = query_rows(
        con,
        "query/trial_chain.sql",
        {"trial_id": trial_id, "source": chosen["source"], "analyzer": chosen["analyzer_version"]},
    )
    for row in chain:
        row["evidence"] = orjson.loads(row["evidence"]) if row["evidence"] else None
        row["stateLabel"] = STATE_LABELS[StageState(row["state"])]
        if row["reason"]:
            row["reasonLabel"] = REASON_LABELS[StageReason(row["reason"])]
    observations = query_rows(con, "query/trial_observations.sql", {"trial_id": trial_id})
    return TrialView(
        identity[0],
        chosen["source"],
        chosen["analyzer_version"],
        chain,
        chosen["first_failed_stage"],
        chosen["failure_category"],
        chosen["chain_verified"],
        observations,
        store_has_eval_run=bool(identity[0]["contract"]) or store_contents(con).has_eval_run,
    )


def first_failing_trial(con: duckdb.DuckDBPyConnection) -> str | None:
    """The first trial (by id) whose derived chain failed a stage; None when none did."""
    rows = query_rows(con, "query/first_failing_trial.sql")
    return str(rows[0]["trial_id"]) if rows else None


def category_label(category: str | None) -> str | None:
    return CATEGORY_LABELS[FailureCategory(category)] if category else None


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)
