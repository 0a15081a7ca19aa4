"""The verdict inputs of stored runs, read set-based (TRACE-FORMAT §3.7.2, CONTRACT §6.2).

Two reads over the target runs (``sql/verdict/010``, ``011``): the trials with their status,
result, configured execution variant and evaluator-error flag, and the verdict keys of their
trial roots, long and typed. Per run they become a `RunInputs`: the run record §6.6 reads,
and — for a v2 run — the cases to aggregate, or the refusal that stops the aggregation.

Refusals (item 8): a run-level key carrying two values across the run's trials, a value of the
wrong type or out of range (item 6: a threshold of 1.2, a floor of 0), configured trials that
differ within one case × variant or are absent, a case with no threshold at all, and
everything §6.2–§6.3 refuses. A refused v2 run reads `notEstablished` /
`verdictSummaryUnavailable` with the refusal as `detail`, never a legacy fallback.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

import duckdb

from valuechain.contract.verdict import ExecutionVariant, ValidityPolicy
from valuechain.contract.verdict_aggregate import (
    CaseTrials,
    Trial,
    VerdictAggregationError,
    observe_trial,
)
from valuechain.contract.verdict_policy import VerdictPolicyFile
from valuechain.contract.verdict_summary import RunRecord
from valuechain.store import sqlfiles

_K: Final = "mcp.app."
POLICY_VERSION: Final = _K + "run.verdict_policy_version"
SUITE_THRESHOLD: Final = _K + "suite.default_pass_threshold"
CASE_THRESHOLD: Final = _K + "case.pass_threshold"
MIN_ELIGIBLE: Final = _K + "suite.validity.min_eligible_trials"
MIN_COMPLETION: Final = _K + "suite.validity.min_completion_rate"
MAX_EVALUATOR: Final = _K + "suite.validity.max_evaluator_error_rate"
RUN_VERDICT: Final = _K + "run.verdict"
SUMMARY: Final = {k: f"{_K}run.summary.{k}" for k in ("total", "passed", "failed")}
CONFIGURED: Final = _K + "trial.repetitions_configured"
RUN_KEYS: Final = (
    POLICY_VERSION,
    SUITE_THRESHOLD,
    MIN_ELIGIBLE,
    MIN_COMPLETION,
    MAX_EVALUATOR,
    RUN_VERDICT,
    *SUMMARY.values(),
)


@dataclass(slots=True)
class RunInputs:
    """One run's verdict inputs: the record §6.6 reads and, for v2, its cases or refusal."""

    record: RunRecord
    project_id: str
    cases: list[CaseTrials] = field(default_factory=list)
    policy: ValidityPolicy | None = None
    refusal: str | None = None


def _typed(row: Mapping[str, Any]) -> object:
    kind = row["value_type"]
    if kind == "int":
        return int(row["int_value"])
    if kind == "double":
        return float(row["double_value"])
    if kind == "bool":
        return bool(row["bool_value"])
    return row["string_value"]


def _one(values: Sequence[object], key: str) -> object:
    """The one value a run-level key carries across the run's trials (None = absent)."""
    distinct = list(dict.fromkeys(repr(v) for v in values))
    if len(distinct) > 1:
        raise VerdictAggregationError(
            f"{key} carries {len(distinct)} values across the run's trials "
            f"({', '.join(distinct[:3])})"
        )
    return values[0] if values else None


def _fraction(value: object, key: str) -> float | None:
    if value is None:
        return None
    if not isinstance(value, int | float) or isinstance(value, bool):
        raise VerdictAggregationError(f"{key} is {value!r}, not a fraction in [0,1]")
    if not math.isfinite(value) or not 0 <= value <= 1:
        raise VerdictAggregationError(f"{key} is {value!r}, not a fraction in [0,1]")
    return float(value)


def _count(value: object, key: str, minimum: int) -> int | None:
    if value is None:
        return None
    if type(value) is not int or value < minimum:
        raise VerdictAggregationError(f"{key} is {value!r}, not an integer ≥ {minimum}")
    return value


def read_run_inputs(
    con: duckdb.DuckDBPyConnection,
    run_ids: Sequence[str] | None,
    policy_file: VerdictPolicyFile | None = None,
) -> dict[str, RunInputs]:
    """The verdict inputs of ``run_ids`` (None = every run), keyed by run id.

    Trials are read one by one only for runs that carry a policy version: a legacy run is
    decided from its run-level keys alone.
    """
    params = {"all_runs": run_ids is None, "run_ids": list(run_ids or ())}
    runs = _rows(con, sqlfiles.statement("verdict/012_run_keys.sql"), params)
    per_trial: dict[tuple[str, str, str], dict[str, object]] = defaultdict(dict)
    for row in _rows(con, sqlfiles.statement("verdict/011_root_keys.sql"), params):
        # the first copy of a key duplicated on one root wins (TRACE-FORMAT §5.2)
        per_trial[(row["run_id"], row["trial_id"], row["trace_id"])].setdefault(
            row["key"], _typed(row)
        )
    run_values: dict[str, dict[str, list[object]]] = defaultdict(lambda: defaultdict(list))
    for (run_id, _, _), values in per_trial.items():
        for key in RUN_KEYS:
            if key in values:
                run_values[run_id][key].append(values[key])
    versioned = [r["run_id"] for r in runs if r["versioned"]]
    trials: dict[str, list[dict[str, Any]]] = defaultdict(list)
    if versioned:
        only = {"all_runs": False, "run_ids": versioned}
        for row in _rows(con, sqlfiles.statement("verdict/010_trials.sql"), only):
            row["keys"] = per_trial.get((row["run_id"], row["trial_id"], row["trace_id"]), {})
            trials[row["run_id"]].append(row)
    return {
        r["run_id"]: _run_inputs(
            r["run_id"],
            r["run_status"] or "unknown",
            r["project_id"] or "",
            run_values[r["run_id"]],
            trials[r["run_id"]],
            policy_file,
        )
        for r in runs
    }


def _rows(con: duckdb.DuckDBPyConnection, sql: Any, params: dict[str, Any]) -> list[dict[str, Any]]:
    cursor = con.execute(sql.text, sql.bind(params))
    columns = [d[0] for d in cursor.description]
    return [dict(zip(columns, r, strict=True)) for r in cursor.fetchall()]


def _run_inputs(
    run_id: str,
    status: str,
    project_id: str,
    run_values: Mapping[str, list[object]],
    rows: list[dict[str, Any]],
    policy_file: VerdictPolicyFile | None,
) -> RunInputs:
    inputs = RunInputs(record=RunRecord(id=run_id, status=status), project_id=project_id)
    try:
        version = _one(run_values.get(POLICY_VERSION, []), POLICY_VERSION)
    except VerdictAggregationError as error:
        version, inputs.refusal = 2, str(error)
    if version == 2 and type(version) is int:
        if inputs.refusal is None:
            try:
                inputs.policy, inputs.cases = _v2_inputs(rows, run_values, policy_file)
            except VerdictAggregationError as error:
                inputs.refusal = str(error)
        inputs.record = RunRecord(
            id=run_id,
            status=status,
            verdict_policy_version=2,
            verdict_policy_integrity_error=inputs.refusal,
        )
        return inputs
    result, summary = _legacy(run_values)
    inputs.record = RunRecord(
        id=run_id, status=inputs.record.status, result=result, summary=summary
    )
    return inputs


def _legacy(run_values: Mapping[str, list[object]]) -> tuple[str | None, dict[str, object]]:
    """A legacy run's stored result and summary; a key with disagreeing copies is absent."""
    out: dict[str, object] = {}
    result: object = None
    try:
        result = _one(run_values[RUN_VERDICT], RUN_VERDICT)
    except VerdictAggregationError:
        result = None
    for name, key in SUMMARY.items():
        try:
            value = _one(run_values[key], key)
        except VerdictAggregationError:
            continue
        if value is not None:
            out[name] = value
    return (result if isinstance(result, str) else None), out


def _v2_inputs(
    rows: list[dict[str, Any]],
    run_values: Mapping[str, list[object]],
    policy_file: VerdictPolicyFile | None,
) -> tuple[ValidityPolicy, list[CaseTrials]]:
    """The resolved policy and the cases of a v2 run (raises on anything §3.7.2 refuses)."""
    o = policy_file.overrides() if policy_file is not None else {}
    suite_threshold = _fraction(_one(run_values[SUITE_THRESHOLD], SUITE_THRESHOLD), SUITE_THRESHOLD)
    policy = ValidityPolicy.resolve(
        o.get(
            "min_eligible_trials",
            _count(_one(run_values[MIN_ELIGIBLE], MIN_ELIGIBLE), MIN_ELIGIBLE, 1),
        ),
        o.get(
            "min_completion_rate",
            _fraction(_one(run_values[MIN_COMPLETION], MIN_COMPLETION), MIN_COMPLETION),
        ),
        o.get(
            "max_evaluator_error_rate",
            _fraction(_one(run_values[MAX_EVALUATOR], MAX_EVALUATOR), MAX_EVALUATOR),
        ),
    )
    suite_threshold = o.get("default_pass_threshold", suite_threshold)
    per_case: dict[str, float] = o.get("case_pass_thresholds", {})
    groups: dict[tuple[str, str | None, str | None], list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        if row["case_id"] is None:
            raise VerdictAggregationError(f"trial {row['trial_id']} has no mcp.app.case.id")
        groups[(row["case_id"], row["provider"], row["model"])].append(row)
    cases: list[CaseTrials] = []
    for (case_id, provider, model), trials in groups.items():
        where = f"case {case_id}" + (f" ({provider or ''}/{model})" if model else "")
        configured_values = [t["keys"].get(CONFIGURED) for t in trials]
        configured = _count(
            _one([v for v in configured_values if v is not None], CONFIGURED), CONFIGURED, 1
        )
        if configured is None or None in configured_values:
            raise VerdictAggregationError(
                f"{where}: {CONFIGURED} is absent: configured trials unknown"
            )
        case_threshold = _fraction(
            _one(
                [t["keys"][CASE_THRESHOLD] for t in trials if CASE_THRESHOLD in t["keys"]],
                CASE_THRESHOLD,
            ),
            CASE_THRESHOLD,
        )
        threshold = per_case.get(
            case_id, case_threshold if case_threshold is not None else suite_threshold
        )
        if threshold is None:
            raise VerdictAggregationError(
                f"{where}: neither {CASE_THRESHOLD} nor {SUITE_THRESHOLD}: no pass threshold"
            )
        variant = (
            ExecutionVariant(model=model, **({"provider": provider} if provider else {}))
            if model
            else None
        )
        if variant is None and provider:
            raise VerdictAggregationError(
                f"{where}: a provider without a model is no execution variant"
            )
        cases.append(
            CaseTrials(
                case_id=case_id,
                configured_trials=configured,
                pass_threshold=threshold,
                trials=[_trial(t) for t in trials],
                variant=variant,
            )
        )
    return policy, cases


def _trial(row: Mapping[str, Any]) -> Trial:
    try:
        return observe_trial(row["status"], row["trial_result"], bool(row["evaluator_errored"]))
    except VerdictAggregationError as error:
        raise VerdictAggregationError(f"trial {row['trial_id']}: {error}") from None
