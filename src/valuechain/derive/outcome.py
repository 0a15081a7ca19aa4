"""First failed stage, failure category and FINALIZE (CONTRACT §2.7 step 9, §2.11).

`failureCategory` means "why there is no good outcome", not "which stage failed": it may be
present with no failed stage (setup aborts, lifecycle stops, evaluator and provider errors).
"""

from __future__ import annotations

from collections.abc import Sequence

from valuechain.contract.chain import StageDerivation, StageEvidenceRefs, StageResult
from valuechain.contract.derivation import MetadataAttribution
from valuechain.contract.vocab import FailureCategory, Stage, StageReason, StageState
from valuechain.derive.facts import Facts, bounded_reasons, slot_setter
from valuechain.derive.stages import withdraw_provider

_SELECTION_INDEX = 2
_CALL_INDEX = 3
_SET_RESULTS = slot_setter(StageDerivation, "stage_results")
_SET_VERSION = slot_setter(StageDerivation, "stage_analyzer_version")
_SET_FIRST_FAILED = slot_setter(StageDerivation, "first_failed_stage")
_SET_CATEGORY = slot_setter(StageDerivation, "failure_category")


def _attribution_reasons(attribution: MetadataAttribution | None) -> tuple[str, ...]:
    return () if attribution is None else bounded_reasons(attribution.reasons)


def category_for(
    first_failed: Stage | None, rows: Sequence[StageResult], f: Facts
) -> FailureCategory | None:
    """`categoryFor` (CONTRACT §2.11), when no category was forced."""
    if first_failed is None:
        # `evaluator` is only reachable when nothing failed: it never launders a failure.
        if f.evaluator_errored:
            return FailureCategory.EVALUATOR
        if f.step_error_model:
            return FailureCategory.SETUP
        return None
    if first_failed in (Stage.CONNECTION, Stage.DISCOVERY):
        return FailureCategory.SETUP  # also a v12 catalog-check failure (§9 Q12)
    if first_failed is Stage.SELECTION:
        # Only the attribution judge, scored + attributed + quoted evidence, makes `metadata`.
        attribution = f.evidence.metadata_attribution
        attributed = (
            attribution is not None
            and attribution.status == "scored"
            and attribution.attributed is True
            and bool(_attribution_reasons(attribution))
        )
        return FailureCategory.METADATA if attributed else FailureCategory.SELECTION
    if first_failed is Stage.CALL:
        if rows[_CALL_INDEX].reason is StageReason.ARGUMENT_MISMATCH:
            return FailureCategory.ARGUMENTS
        # A transport-local code on ANY span is our side, not the server's.
        return FailureCategory.SETUP if f.any_transport_local_code else FailureCategory.SERVER_DATA
    if first_failed is Stage.RESPONSE:
        return FailureCategory.SERVER_DATA
    return FailureCategory.USER_VALUE


def _merge_attribution(rows: list[StageResult], f: Facts) -> list[StageResult]:
    """Attribution reasons replace the selection row's `predicateReasons`; state and reason
    are never changed by the attribution judge (CONTRACT §2.11)."""
    reasons = _attribution_reasons(f.evidence.metadata_attribution)
    if not reasons:
        return rows
    row = rows[_SELECTION_INDEX]
    old = row.evidence or StageEvidenceRefs()
    refs = StageEvidenceRefs(old.span_ids, old.prompt_indexes, reasons)
    rows[_SELECTION_INDEX] = StageResult(row.stage, row.state, row.reason, refs)
    return rows


def finalize(
    rows: list[StageResult], f: Facts, *, force_setup: bool, analyzer: int
) -> StageDerivation:
    """FINALIZE (CONTRACT §2.7 step 9), shared by every path."""
    rows = withdraw_provider(rows, f)  # again: the early paths never reached step 7
    first_failed = None
    for row in rows:
        if row.state is StageState.FAILED:
            first_failed = row.stage
            break
    category = FailureCategory.SETUP if force_setup else category_for(first_failed, rows, f)
    if category is FailureCategory.METADATA:
        rows = _merge_attribution(rows, f)
    # StageDerivation(stage_results, analyzer, first_failed, category), built fast (facts.py).
    derivation: StageDerivation = object.__new__(StageDerivation)
    _SET_RESULTS(derivation, tuple(rows))
    _SET_VERSION(derivation, analyzer)
    _SET_FIRST_FAILED(derivation, first_failed)
    _SET_CATEGORY(derivation, category)
    return derivation
