"""Which case failed, on which model, and why: one run's failing cases and failing trials.

Read through the query layer: `query.trials.run_trials` (each trial's case, variant, first
failed link, reason and category), `query.trial.trial_view` (one trial's chain with its
evidence), and two report reads of ``sql/query`` — the names beside the ids (case id, suite
name) and the tool calls expected against those made, with the export's matcher result.
Nothing is re-derived: a state, reason or category here is the derived chain's, and a case's
verdict is its `CaseAggregation` in the run's decision summary (`query.verdict`, what
`valuechain verdict` prints), matched by case id and provider/model.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any, Final

import duckdb
import orjson
import polars as pl

from valuechain.contract.verdict import CaseAggregation
from valuechain.contract.vocab import Stage
from valuechain.query.statements import query_rows
from valuechain.query.trial import TrialView, trial_view
from valuechain.query.trials import run_trials
from valuechain.query.verdict import VerdictView
from valuechain.report.verdict import case_variant

# Chains rendered per run at most: the file stays small; the rest are named by a command.
TRIAL_CAP: Final = 50
_STAGE_ORDER: Final = {stage.value: i for i, stage in enumerate(Stage)}


@dataclass(frozen=True, slots=True)
class ToolCalls:
    """A trial's tool calls: expected, made (in start order), and the matcher's diff."""

    expected: list[dict[str, Any]] | None  # None: the trial records no expectation
    actual: list[dict[str, Any]]  # {"tool", "arguments", "outcome"}
    matched: bool  # whether a matcher result was recorded at all
    missing: list[dict[str, Any]]
    unexpected: list[dict[str, Any]]
    out_of_order: list[dict[str, Any]]
    mismatches: list[dict[str, Any]]  # {"toolName", "expectedArgs", "actualArgs"}


@dataclass(frozen=True, slots=True)
class FailingTrial:
    """One trial with a failed link: its chain and its tool calls."""

    trial_id: str
    case: str
    case_id: str | None
    variant: str | None
    view: TrialView
    tools: ToolCalls | None

    @property
    def failed_stages(self) -> list[str]:
        return [r["stage"] for r in self.view.chain if r["state"] == "failed"]

    def failed_reasons(self) -> list[tuple[str, str | None]]:
        return [(r["stage"], r["reason"]) for r in self.view.chain if r["state"] == "failed"]


@dataclass(frozen=True, slots=True)
class FailingCase:
    """One case × variant with at least one failing trial."""

    case: str
    case_id: str | None
    variant: str | None
    trials: int
    failed: int
    statuses: dict[str, int]  # the export's own trial status → trials
    stage: str | None  # the most common first failed link
    reason: str | None
    category: str | None
    trial_ids: tuple[str, ...]  # the failing trials, by id
    verdict: CaseAggregation | None = None  # None: the decision (if any) does not decide it


@dataclass(frozen=True, slots=True)
class RunFailures:
    """A run's failing cases, the failing trials rendered (at most `TRIAL_CAP`), the rest."""

    suite_name: str | None
    cases: tuple[FailingCase, ...]
    trials: tuple[FailingTrial, ...]
    not_shown: int  # failing trials beyond the cap


def _json_list(texts: list[str] | None) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    for text in texts or ():
        try:
            value = orjson.loads(text)
        except orjson.JSONDecodeError:
            continue
        if isinstance(value, list):
            found.extend(v if isinstance(v, dict) else {"toolName": str(v)} for v in value)
    return found


def _tool_calls(row: dict[str, Any]) -> ToolCalls:
    expected = _json_list([row["expected"]]) if row["expected"] is not None else None
    return ToolCalls(
        expected=expected,
        actual=list(row["actual"] or ()),
        matched=row["missing"] is not None,
        missing=_json_list(row["missing"]),
        unexpected=_json_list(row["unexpected"]),
        out_of_order=_json_list(row["out_of_order"]),
        mismatches=_json_list(row["mismatches"]),
    )


def _mode(values: list[Any]) -> Any:
    counted = Counter(v for v in values if v is not None)
    return counted.most_common(1)[0][0] if counted else None


def case_verdicts(
    verdict: VerdictView | None,
) -> dict[tuple[str, str | None], CaseAggregation]:
    """(case id, variant) → the case's aggregation in the run's decision; empty when the run
    has no decision (no summary, or one that records none: undecided, a legacy result)."""
    if verdict is None:
        return {}
    return {(case.case_id, case_variant(case) or None): case for case, _ in verdict.statistics}


def _cases(
    trials: pl.DataFrame,
    case_ids: dict[str, str | None],
    verdicts: dict[tuple[str, str | None], CaseAggregation],
) -> tuple[FailingCase, ...]:
    found: list[FailingCase] = []
    for (case, model), group in trials.group_by(["case", "variant"], maintain_order=True):
        failing = group.filter(pl.col("failed"))
        if failing.is_empty():
            continue
        first = failing.sort("first_failed_order")
        stage = _mode(first["first_failed_stage"].to_list())
        at_stage = first.filter(
            pl.col("first_failed_stage").is_null()
            if stage is None
            else pl.col("first_failed_stage") == stage
        )
        ids = tuple(str(t) for t in failing["trial_id"])
        case_id = case_ids.get(ids[0])
        variant = None if model is None else str(model)
        found.append(
            FailingCase(
                case=str(case),
                case_id=case_id,
                variant=variant,
                trials=group.height,
                failed=failing.height,
                statuses=dict(Counter(str(s) for s in group["status"].fill_null("not recorded"))),
                stage=stage,
                reason=_mode(at_stage["reason"].to_list()),
                category=_mode(at_stage["category"].to_list()),
                trial_ids=ids,
                verdict=None if case_id is None else verdicts.get((case_id, variant)),
            )
        )
    return tuple(sorted(found, key=lambda c: (-c.failed, c.case, c.variant or "")))


def run_failures(
    con: duckdb.DuckDBPyConnection,
    run_id: str,
    *,
    verdict: VerdictView | None = None,
    cap: int = TRIAL_CAP,
) -> RunFailures:
    """The run's failing cases and trials (a trial fails when any link of its derived chain
    failed); chains and tool calls for the first ``cap`` failing trials, by failed link.
    ``verdict``: the run's decision summary, whose case verdicts the failing cases carry."""
    names = query_rows(con, "query/report_trial_names.sql", {"run_id": run_id})
    case_ids = {str(r["trial_id"]): r["case_id"] for r in names}
    suite_name = _mode([r["suite_name"] for r in names])
    frame = run_trials(con, run_id)
    failed_ids = {str(t) for t in run_trials(con, run_id, state="failed")["trial_id"]}
    frame = frame.with_columns(
        pl.col("trial_id").is_in(sorted(failed_ids)).alias("failed"),
        pl.col("first_failed_stage")
        .replace_strict(_STAGE_ORDER, default=len(_STAGE_ORDER), return_dtype=pl.Int64)
        .alias("first_failed_order"),
    )
    failing = frame.filter(pl.col("failed")).sort(
        "first_failed_order", "case", "variant", "repetition", "trial_id", nulls_last=True
    )
    shown = failing.head(cap)
    ids = [str(t) for t in shown["trial_id"]]
    tools = {
        str(r["trial_id"]): _tool_calls(r)
        for r in query_rows(con, "query/report_tool_calls.sql", {"trials": ids})
    }
    trials = tuple(
        FailingTrial(
            trial_id=str(r["trial_id"]),
            case=str(r["case"]),
            case_id=case_ids.get(str(r["trial_id"])),
            variant=r["variant"],
            view=trial_view(con, str(r["trial_id"])),
            tools=tools.get(str(r["trial_id"])),
        )
        for r in shown.iter_rows(named=True)
    )
    return RunFailures(
        suite_name,
        _cases(frame, case_ids, case_verdicts(verdict)),
        trials,
        failing.height - shown.height,
    )
