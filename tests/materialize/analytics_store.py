"""Build ``core.*`` input rows directly (no OTLP, no derivation) for the analytics tests.

A trial is a `TrialSpec`; its chain is written in the compact notation of CONTRACT §0.2:
six comma-separated rows ``P | F | NM | NR | NA`` each with an optional ``:reason``
(``P`` ⇒ observed, ``F`` ⇒ the stage's usual failure, ``NM`` ⇒ noEvidenceCaptured,
``NR`` ⇒ earlierStageFailed, ``NA`` ⇒ notAuthored). Measurements default to the reach each
state projects (§4); ``reach`` / ``latency`` / ``measurement_stage`` override one index.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import duckdb

from valuechain.contract.documents import StageAnalyticsV1
from valuechain.contract.vocab_rules import STAGES
from valuechain.materialize.analytics import materialize_runs
from valuechain.store import Database

STATES = {
    "P": "passed",
    "F": "failed",
    "NM": "notMeasured",
    "NR": "notReached",
    "NA": "notApplicable",
}
DEFAULT_REASONS = {
    "P": "observed",
    "NM": "noEvidenceCaptured",
    "NR": "earlierStageFailed",
    "NA": "notAuthored",
}
FAILURE_REASONS = (
    "connectFailed",
    "toolsListFailed",
    "missingToolCall",
    "argumentMismatch",
    "toolError",
    "predicateFailed",
)
PROJECTION = {
    "passed": "reached",
    "failed": "reached",
    "notReached": "notReached",
    "notApplicable": "notApplicable",
}
ALL_PASSED = "P,P,P,P,P,P"
T0 = datetime(2026, 1, 1, tzinfo=UTC)


def parse_chain(text: str) -> list[tuple[str, str]]:
    """``"P,P,F:argumentMismatch,NR,NR,NR"`` → [(state, reason), …] (six rows, or fewer)."""
    rows: list[tuple[str, str]] = []
    for index, part in enumerate(p.strip() for p in text.split(",")):
        code, _, reason = part.partition(":")
        default = FAILURE_REASONS[index] if code == "F" else DEFAULT_REASONS[code]
        rows.append((STATES[code], reason or default))
    return rows


@dataclass
class TrialSpec:
    """One trial row of ``core.trials`` and its chain, outcome and measurements."""

    trial_id: str
    run_id: str = "run-1"
    status: str | None = "completed"
    chain: str | None = ALL_PASSED
    source: str = "derived"
    analyzer: int = 12
    outcome: bool = True
    chain_verified: bool | None = True
    measurements: bool = True
    measurements_verified: bool | None = True
    measurements_agree: bool | None = None  # valuechain's own check (None: not checked)
    measurements_schema: int | None = 1
    measurements_analyzer: int | None = None  # default: the chain's analyzer
    reach: Mapping[int, str] = field(default_factory=dict)
    latency: Mapping[int, float] = field(default_factory=dict)
    measurement_stage: Mapping[int, str] = field(default_factory=dict)
    failure_category: str | None = None
    evaluator_errored: bool | None = None
    intent: str | None = None
    provider: str | None = None
    model: str | None = None
    host_key: str | None = None
    host_name: str | None = None
    execution_engine: str | None = None
    iteration: int | None = None
    trace: str | None = None  # trace id seed (default: the trial id)
    suite_id: str | None = "suite-1"
    run_group_id: str | None = "group-1"
    config_revision: str | None = "config-1"
    case_set_fingerprint: str | None = "cases-1"
    run_status: str | None = "completed"
    materialization_state: str | None = None
    run_completed_at: datetime | None = None
    ended_at: datetime | None = T0
    input_tokens: int | None = 10
    output_tokens: int | None = 5
    exclusion_class: str | None = None  # the evidence adapter's trial-level verdict
    trial_row: bool = True  # False: only another chain of a trial written by an earlier spec


@dataclass
class SetupCopy:
    """One per-trial copy of a setup signal (CONTRACT §5.6)."""

    trial_id: str
    phase: str = "connection"
    outcome: str = "ok"
    attribution: str | None = None
    egress_verified: bool | None = None
    duration_ms: float | None = None
    run_id: str = "run-1"


def trace_id(seed: str) -> bytes:
    return hashlib.md5(seed.encode()).digest()


def insert_trials(con: duckdb.DuckDBPyConnection, trials: Iterable[TrialSpec]) -> None:
    """Write the trials' rows to core.trials, core.trial_flags and, per chain, the chain,
    outcome and measurement tables (one batch insert per table)."""
    rows: dict[str, list[dict[str, Any]]] = {name: [] for name in _COLUMNS}
    for t in trials:
        if not t.trial_row:
            _chain_rows(t, rows)
            continue
        rows["trials"].append(
            {
                "trial_id": t.trial_id,
                "trace_id": trace_id(t.trace or t.trial_id),
                "run_id": t.run_id,
                "suite_id": t.suite_id,
                "intent": t.intent,
                "provider": t.provider,
                "model": t.model,
                "host_key": t.host_key,
                "host_name": t.host_name,
                "execution_engine": t.execution_engine,
                "status": t.status,
                "iteration_number": t.iteration,
                "run_group_id": t.run_group_id,
                "config_revision": t.config_revision,
                "case_set_fingerprint": t.case_set_fingerprint,
                "run_status": t.run_status,
                "materialization_state": t.materialization_state,
                "run_completed_at": t.run_completed_at,
                "started_at": None if t.ended_at is None else t.ended_at - timedelta(seconds=1),
                "ended_at": t.ended_at,
                "input_tokens": t.input_tokens,
                "output_tokens": t.output_tokens,
                "duration_ms": 1000.0,
                "evidence_incomplete": False,
                "integrity_codes": [],
                "exclusion_class": t.exclusion_class,
                "root_span_id": t.trial_id,
                "source_id": 1,
                "contract": True,
            }
        )
        if t.evaluator_errored is not None:
            rows["trial_flags"].append(
                {
                    "trial_id": t.trial_id,
                    "run_id": t.run_id,
                    "evaluator_errored": t.evaluator_errored,
                }
            )
        _chain_rows(t, rows)
    for table, columns in _COLUMNS.items():
        if rows[table]:
            _insert(con, table, columns, rows[table])


def _chain_rows(t: TrialSpec, rows: dict[str, list[dict[str, Any]]]) -> None:
    key = {
        "trial_id": t.trial_id,
        "run_id": t.run_id,
        "source": t.source,
        "analyzer_version": t.analyzer,
    }
    chain = parse_chain(t.chain) if t.chain is not None else []
    for index, (state, reason) in enumerate(chain):
        rows["stage_chain"].append(
            {
                **key,
                "stage_index": index,
                "stage": STAGES[index].value,
                "state": state,
                "reason": reason,
                "evidence": None,
            }
        )
    if t.outcome:
        measured = t.measurements
        rows["trial_outcome"].append(
            {
                **key,
                "first_failed_stage": None,
                "failure_category": t.failure_category,
                "chain_verified": t.chain_verified,
                "measurements_present": measured,
                "measurements_verified": t.measurements_verified if measured else None,
                "measurements_agree": t.measurements_agree if measured else None,
                "measurements_schema_version": t.measurements_schema if measured else None,
                "measurements_analyzer_version": (
                    (t.measurements_analyzer if t.measurements_analyzer is not None else t.analyzer)
                    if measured
                    else None
                ),
            }
        )
    if not t.measurements:
        return
    for index, (state, _) in enumerate(chain):
        rows["stage_measurements"].append(
            {
                **key,
                "stage_index": index,
                "stage": t.measurement_stage.get(index, STAGES[index].value),
                "reach": t.reach.get(index, PROJECTION.get(state, "unknown")),
                "latency_ms": t.latency.get(index),
            }
        )


def insert_setup(con: duckdb.DuckDBPyConnection, copies: Iterable[SetupCopy]) -> None:
    rows = [
        {
            "trial_id": c.trial_id,
            "run_id": c.run_id,
            "phase": c.phase,
            "outcome": c.outcome,
            "attribution": c.attribution,
            "egress_verified": c.egress_verified,
            "duration_ms": c.duration_ms,
        }
        for c in copies
    ]
    if rows:
        _insert(con, "setup_signals", _SETUP_COLUMNS, rows)


_COLUMNS: dict[str, str] = {
    "trials": "trial_id VARCHAR, trace_id BLOB, run_id VARCHAR, suite_id VARCHAR, "
    "intent VARCHAR, provider VARCHAR, model VARCHAR, host_key VARCHAR, host_name VARCHAR, "
    "execution_engine VARCHAR, status VARCHAR, iteration_number INTEGER, "
    "run_group_id VARCHAR, config_revision VARCHAR, case_set_fingerprint VARCHAR, "
    "run_status VARCHAR, materialization_state VARCHAR, run_completed_at TIMESTAMPTZ, "
    "started_at TIMESTAMPTZ, ended_at TIMESTAMPTZ, input_tokens BIGINT, output_tokens BIGINT, "
    "duration_ms DOUBLE, evidence_incomplete BOOLEAN, integrity_codes VARCHAR[], "
    "exclusion_class VARCHAR, root_span_id VARCHAR, source_id INTEGER, contract BOOLEAN",
    "trial_flags": "trial_id VARCHAR, run_id VARCHAR, evaluator_errored BOOLEAN",
    "stage_chain": "trial_id VARCHAR, run_id VARCHAR, source VARCHAR, analyzer_version INTEGER, "
    "stage_index TINYINT, stage VARCHAR, state VARCHAR, reason VARCHAR, evidence VARCHAR",
    "trial_outcome": "trial_id VARCHAR, run_id VARCHAR, source VARCHAR, "
    "analyzer_version INTEGER, first_failed_stage VARCHAR, failure_category VARCHAR, "
    "chain_verified BOOLEAN, measurements_present BOOLEAN, measurements_verified BOOLEAN, "
    "measurements_schema_version INTEGER, measurements_analyzer_version INTEGER, "
    "measurements_agree BOOLEAN",
    "stage_measurements": "trial_id VARCHAR, run_id VARCHAR, source VARCHAR, "
    "analyzer_version INTEGER, stage_index TINYINT, stage VARCHAR, reach VARCHAR, "
    "latency_ms DOUBLE",
}
_SETUP_COLUMNS = (
    "trial_id VARCHAR, run_id VARCHAR, phase VARCHAR, outcome VARCHAR, "
    "attribution VARCHAR, egress_verified BOOLEAN, duration_ms DOUBLE"
)


def _insert(
    con: duckdb.DuckDBPyConnection, table: str, columns: str, rows: list[dict[str, Any]]
) -> None:
    """One INSERT of ``rows`` (JSON-typed through a STRUCT list, so no per-row round trip)."""
    names = [c.split()[0] for c in columns.split(", ")]
    struct = ", ".join(f'"{c.split()[0]}" {c.split(maxsplit=1)[1]}' for c in columns.split(", "))
    con.execute(
        f"INSERT INTO core.{table} BY NAME "
        f"SELECT unnest(CAST($rows AS STRUCT({struct})[]), max_depth := 2)",
        {"rows": [{n: r.get(n) for n in names} for r in rows]},
    )


def fixed_clock(ms: int = 1_767_225_600_000) -> Any:
    """A clock frozen at ``ms`` epoch milliseconds (2026-01-01T00:00:00Z by default)."""
    moment = datetime(1970, 1, 1, tzinfo=UTC) + timedelta(milliseconds=ms)
    return lambda: moment


NOW_MS = 1_767_225_600_000


# Every table a test writes or materialization fills: emptied between tests that share a store.
TABLES = (
    "trials",
    "stage_chain",
    "trial_outcome",
    "stage_measurements",
    "setup_signals",
    "trial_flags",
    "run_summary",
    "analytics_runs",
    "analytics_documents",
    "analytics_slices",
    "stage_funnel",
)


class Funnels:
    """Write trials, materialize, read documents back — the SQL path end to end."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self.con = db.con

    def reset(self) -> Funnels:
        """Empty the store (cheaper than opening a new one)."""
        for table in TABLES:
            self.con.execute(f"DELETE FROM core.{table}")
        return self

    def add(self, *trials: TrialSpec) -> Funnels:
        insert_trials(self.con, trials)
        return self

    def setup(self, *copies: SetupCopy) -> Funnels:
        insert_setup(self.con, copies)
        return self

    def materialize(self, run_ids: list[str] | None = None, now_ms: int = NOW_MS) -> int:
        return materialize_runs(self.con, run_ids, clock=fixed_clock(now_ms))

    def text(self, run_id: str = "run-1", chains: str = "derived", analyzer: int = 12) -> str:
        rows = self.con.execute(
            "SELECT document FROM analytics_documents WHERE run_id = $r AND chain_source = $c "
            "AND analyzer_version = $v",
            {"r": run_id, "c": chains, "v": analyzer},
        ).fetchall()
        assert len(rows) == 1, f"expected one document for {run_id}/{chains}/{analyzer}"
        return str(rows[0][0])

    def doc(self, run_id: str = "run-1", chains: str = "derived", analyzer: int = 12) -> Any:
        """The stored document as a dict, after checking it is valid and canonical."""
        text = self.text(run_id, chains, analyzer)
        assert StageAnalyticsV1.from_json(text).to_json() == text
        return json.loads(text)

    def tally(self, stage: str, slice_index: int = 0, **keys: Any) -> Any:
        slice_row = self.doc(**keys)["slices"][slice_index]
        return next(t for t in slice_row["stages"] if t["stage"] == stage)
