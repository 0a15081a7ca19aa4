"""The run decision summary, `EvalRunDecisionSummary` v1 (CONTRACT §6.6), and its shape.

It explains a decision; it never makes one. `verdict` is the v2 decision's (source
`policyV2`, counts per `caseVariant`), a legacy run's stored `result` (source `legacy`, counts
per `trial` when the stored summary has them), or `notEstablished` (source `none`) with the
reason no decision exists — never a failure, never a regression. The diagnostics beside it
are one page of trial-level evidence (§6.7, `verdict_diagnostics.py`): an empty complete page
means "nothing failed", an empty partial page means "we did not look".

The validator of §6.6 runs on every summary built or parsed: `policyV2` ⇔ a decision, a
verdict equal to it and `caseVariant` counts equal to the tally of its cases; `legacy` ⇒
`passed`/`failed`, `trial` counts if any; `none` ⇒ `notEstablished` with `undecided`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated, Any, Final, Literal

from pydantic import MISSING, ConfigDict, Field, ValidationError, model_validator

from valuechain.contract.tallies import Count, NonEmpty, StrictModel
from valuechain.contract.verdict import VerdictDecision
from valuechain.contract.verdict_diagnostics import Diagnostics
from valuechain.contract.vocab import UndecidedReason, Verdict, VerdictSource

EVAL_RUN_DECISION_SUMMARY_SCHEMA_ID: Final = (
    "https://mcpjam.com/schemas/eval-run-decision-summary/v1.json"
)
TERMINAL_RUN_STATUSES: Final = frozenset({"completed", "failed", "cancelled", "timed_out"})
_STOPPED: Final = frozenset({"cancelled", "timed_out", "failed"})

VerdictField = Annotated[Verdict, Field(strict=False)]
SourceField = Annotated[VerdictSource, Field(strict=False)]
UndecidedField = Annotated[UndecidedReason, Field(strict=False)]


class CaseVariantCounts(StrictModel):
    """Cases (× execution variant) per verdict, tallied from the decision."""

    measurement_unit: Literal["caseVariant"]
    total: Count
    passed: Count
    failed: Count
    inconclusive: Count


class TrialCounts(StrictModel):
    """A legacy run's stored summary: each count copied only when it is an integer ≥ 0."""

    measurement_unit: Literal["trial"]
    total: Count | MISSING = MISSING
    passed: Count | MISSING = MISSING
    failed: Count | MISSING = MISSING


Counts = Annotated[CaseVariantCounts | TrialCounts, Field(discriminator="measurement_unit")]


class Undecided(StrictModel):
    reason: UndecidedField
    detail: NonEmpty | MISSING = MISSING  # the platform's own message, never synthesised


class DecisionSummary(StrictModel):
    """`EvalRunDecisionSummary` (schema version 1)."""

    model_config = ConfigDict(
        title="EvalRunDecisionSummary",
        json_schema_extra={"$id": EVAL_RUN_DECISION_SUMMARY_SCHEMA_ID},
    )

    schema_version: Literal[1]
    run_id: NonEmpty
    run_status: str
    verdict: VerdictField
    verdict_source: SourceField
    counts: Counts | MISSING = MISSING
    decision: VerdictDecision | MISSING = MISSING
    undecided: Undecided | MISSING = MISSING
    diagnostics: Diagnostics

    @model_validator(mode="after")
    def _source(self) -> DecisionSummary:
        source, counts = self.verdict_source, self.counts
        if source is VerdictSource.POLICY_V2:
            decision = self.decision
            if decision is MISSING or self.undecided is not MISSING:
                raise ValueError("a policyV2 summary carries its decision and no undecided")
            if self.verdict.value != decision.verdict:
                raise ValueError("a policyV2 verdict is the decision's verdict")
            if counts != case_variant_counts(decision):
                raise ValueError("policyV2 counts are the caseVariant tally of the decision")
        elif source is VerdictSource.LEGACY:
            if self.verdict not in (Verdict.PASSED, Verdict.FAILED):
                raise ValueError("a legacy verdict is passed or failed")
            if self.decision is not MISSING or self.undecided is not MISSING:
                raise ValueError("a legacy summary has no decision and no undecided")
            if counts is not MISSING and not isinstance(counts, TrialCounts):
                raise ValueError("legacy counts are per trial")
        else:
            if self.verdict is not Verdict.NOT_ESTABLISHED or self.undecided is MISSING:
                raise ValueError("source none is notEstablished with an undecided reason")
            if counts is not MISSING or self.decision is not MISSING:
                raise ValueError("an undecided summary has no counts and no decision")
        return self

    def to_json(self) -> str:
        """The canonical stored form: compact, camelCase, absent keys omitted."""
        return self.model_dump_json(by_alias=True)

    @classmethod
    def from_json(cls, text: str | bytes) -> DecisionSummary:
        return cls.model_validate_json(text)


def case_variant_counts(decision: VerdictDecision) -> CaseVariantCounts:
    verdicts = [c.verdict for c in decision.cases]
    return CaseVariantCounts(
        measurement_unit="caseVariant",
        total=len(verdicts),
        passed=verdicts.count("passed"),
        failed=verdicts.count("failed"),
        inconclusive=verdicts.count("inconclusive"),
    )


@dataclass(frozen=True, slots=True)
class RunRecord:
    """What §6.6 reads of a run: `{id, status, result?, summary?, verdictPolicyVersion?,
    verdictSummary?, verdictPolicyIntegrityError?}` (None = absent)."""

    id: str
    status: str
    result: str | None = None
    summary: Mapping[str, object] | None = None
    verdict_policy_version: object = None
    verdict_summary: object = None
    verdict_policy_integrity_error: str | None = None


def _undecided(reason: UndecidedReason, detail: str | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"reason": reason}
    if detail:
        out["detail"] = detail
    return {
        "verdict": Verdict.NOT_ESTABLISHED,
        "verdict_source": VerdictSource.NONE,
        "undecided": Undecided(**out),
    }


def _decision(value: object) -> VerdictDecision | None:
    if isinstance(value, VerdictDecision):
        return value
    try:
        if isinstance(value, str | bytes):
            return VerdictDecision.model_validate_json(value)
        return VerdictDecision.model_validate(value, strict=False)
    except ValidationError:
        return None


def _legacy_counts(summary: Mapping[str, object] | None) -> dict[str, Any]:
    fields: dict[str, Any] = {}
    for key in ("total", "passed", "failed"):
        value = None if summary is None else summary.get(key)
        if type(value) is int and value >= 0:
            fields[key] = value
    return {"counts": TrialCounts(measurement_unit="trial", **fields)} if fields else {}


def assemble_decision_summary(run: RunRecord, diagnostics: Diagnostics) -> DecisionSummary:
    """`assembleEvalRunDecisionSummary` (§6.6 steps 1–5) over one page of diagnostics."""
    fields: dict[str, Any]
    if run.status not in TERMINAL_RUN_STATUSES:
        fields = _undecided(UndecidedReason.RUN_NOT_TERMINAL)
    elif run.verdict_policy_version == 2 and type(run.verdict_policy_version) is int:
        decision = _decision(run.verdict_summary)
        if decision is None:
            fields = _undecided(
                UndecidedReason.VERDICT_SUMMARY_UNAVAILABLE, run.verdict_policy_integrity_error
            )
        else:
            fields = {
                "verdict": Verdict(decision.verdict),
                "verdict_source": VerdictSource.POLICY_V2,
                "counts": case_variant_counts(decision),
                "decision": decision,
            }
    elif run.status in _STOPPED:
        fields = _undecided(UndecidedReason.RUN_STATUS_NOT_A_VERDICT)
    elif run.result not in ("passed", "failed"):
        fields = _undecided(UndecidedReason.RUN_RESULT_NOT_A_VERDICT)
    else:
        fields = {
            "verdict": Verdict(run.result),
            "verdict_source": VerdictSource.LEGACY,
            **_legacy_counts(run.summary),
        }
    return DecisionSummary(
        schema_version=1,
        run_id=run.id,
        run_status=run.status,
        diagnostics=diagnostics,
        **fields,
    )


def decision_summary_json_schema() -> dict[str, Any]:
    """JSON Schema (2020-12) of `EvalRunDecisionSummary`, generated from the model."""
    schema = DecisionSummary.model_json_schema(by_alias=True, mode="validation")
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": EVAL_RUN_DECISION_SUMMARY_SCHEMA_ID,
        **schema,
    }
