"""Diagnostics of a decision summary: one page of trial-level evidence (CONTRACT §6.7).

`items` are the page's iterations whose result is not `passed`; `scannedIterations` is how
many iterations the page looked at; `complete` is true only when the page is the run's whole
set (and then there is no cursor). An empty complete page means "nothing failed"; an empty
partial page means "we did not look" — never present one page as the run's failures, never
tally diagnostics into a verdict (a case can pass with failing trials).

Each item carries its chain (`verified` when the stored rows pass the §2.1 persisted-shape
validator, `unverified` when rows were offered but do not, else `absent`; a version ahead of
the reader is flagged, never rejected), the expected and observed tool names, a locator of
the evidence of the first failed stage only, and the next owner's action (§1.4, §6.7).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Annotated, Any, Final, Literal
from urllib.parse import quote

from pydantic import MISSING, Field, model_validator

from valuechain.contract.tallies import CategoryField, Count, NonEmpty, StageField, StrictModel
from valuechain.contract.verdict import CASE_ID_PATTERN
from valuechain.contract.versions import (
    STAGE_ANALYZER_VERSION,
    STAGE_ANALYZER_VERSION_EVIDENCE_TRIGGERED_RESPONSE,
)
from valuechain.contract.vocab import FailureCategory, Stage, StageReason, StageState
from valuechain.contract.vocab_rules import (
    FALLBACK_NEXT_ACTION,
    NEXT_ACTIONS,
    STAGES,
    STALE_ANALYZER_NEXT_ACTION,
    VERDICT_CHAIN_DISAGREEMENT_NEXT_ACTION,
)

_URI_SAFE: Final = "-_.!~*'()"  # what encodeURIComponent leaves alone
_PLAIN: Final = re.compile(r"[A-Za-z0-9_.!~*'()-]*")


class VersionAhead(StrictModel):
    reported: int
    known: int


class StageRow(StrictModel):
    stage: StageField
    state: Annotated[StageState, Field(strict=False)]
    reason: Annotated[StageReason, Field(strict=False)] | MISSING = MISSING


class VerifiedChain(StrictModel):
    status: Literal["verified"]
    stages: Annotated[list[StageRow], Field(min_length=6, max_length=6)]
    first_failed_stage: StageField | MISSING = MISSING
    failure_category: CategoryField | MISSING = MISSING
    analyzer_version: Count
    analyzer_version_ahead: VersionAhead | MISSING = MISSING


class UnverifiedChain(StrictModel):
    status: Literal["unverified"]
    analyzer_version: Count | MISSING = MISSING
    analyzer_version_ahead: VersionAhead | MISSING = MISSING


class AbsentChain(StrictModel):
    status: Literal["absent"]


Chain = Annotated[VerifiedChain | UnverifiedChain | AbsentChain, Field(discriminator="status")]


class ToolNames(StrictModel):
    tool_names: list[NonEmpty]


class Observed(StrictModel):
    tool_names: list[NonEmpty] | MISSING = MISSING
    failure: NonEmpty | MISSING = MISSING


class EvidenceLocator(StrictModel):
    run_id: str
    iteration_id: str
    trace_path: str
    stage: StageField | MISSING = MISSING
    span_ids: Annotated[list[NonEmpty], Field(min_length=1)] | MISSING = MISSING
    prompt_indexes: Annotated[list[Count], Field(min_length=1)] | MISSING = MISSING
    reasons: Annotated[list[NonEmpty], Field(min_length=1)] | MISSING = MISSING


class DiagnosticItem(StrictModel):
    iteration_id: str
    iteration_number: int
    case_id: str | MISSING = MISSING
    test_case_id: NonEmpty | MISSING = MISSING
    title: NonEmpty | MISSING = MISSING
    status: str
    result: Literal["passed", "failed"] | MISSING = MISSING
    chain: Chain
    expected: ToolNames | MISSING = MISSING
    observed: Observed | MISSING = MISSING
    evidence: EvidenceLocator
    next_action: NonEmpty


class Diagnostics(StrictModel):
    items: list[DiagnosticItem]
    complete: bool
    next_cursor: NonEmpty | MISSING = MISSING
    scanned_iterations: Count

    @model_validator(mode="after")
    def _page(self) -> Diagnostics:
        if self.complete and self.next_cursor is not MISSING:
            raise ValueError("a complete page has no cursor")
        if len(self.items) > self.scanned_iterations:
            raise ValueError("more items than scanned iterations")
        return self


# --- building a page ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Iteration:
    """What §6.7 reads of one iteration; `metadata` holds the chain keys as stored
    (`stageResults`, `firstFailedStage`, `failureCategory`, `stageAnalyzerVersion`,
    `stageResultsUnverified`), a key absent when it was never written."""

    id: str
    iteration_number: int
    status: str
    result: str | None = None
    case_id: str | None = None
    test_case_id: str | None = None
    title: str | None = None
    metadata: Mapping[str, object] = field(default_factory=dict)
    expected_tool_calls: Sequence[Mapping[str, object]] = ()
    actual_tool_calls: Sequence[Mapping[str, object]] = ()
    error: str | None = None


def _is_int(value: object) -> bool:
    return type(value) is int or (type(value) is float and value.is_integer())


_STAGE_VALUES: Final = tuple(stage.value for stage in STAGES)
_STATES: Final = {state.value: state for state in StageState}
_REASONS: Final = {reason.value: reason for reason in StageReason}
_CATEGORIES: Final = {category.value: category for category in FailureCategory}
_REF_KINDS: Final = (("spanIds", str), ("promptIndexes", (int, float)), ("predicateReasons", str))


def validate_chain(metadata: Mapping[str, object]) -> dict[str, Any] | None:
    """The §2.1 persisted-shape validator: the chain's parts when they validate, else None.

    Written out by hand (no model per row): every page of a large store runs it per item.
    """
    rows = metadata.get("stageResults")
    version = metadata.get("stageAnalyzerVersion")
    if not isinstance(rows, list) or len(rows) != len(STAGES) or not _is_int(version):
        return None
    if int(version) < 0:  # type: ignore[call-overload]
        return None
    parsed: list[StageRow] = []
    failed: Stage | None = None
    for i, row in enumerate(rows):
        if not isinstance(row, Mapping) or row.get("stage") != _STAGE_VALUES[i]:
            return None
        state = _STATES.get(row.get("state"))  # type: ignore[arg-type]
        if state is None or not _refs_ok(row.get("evidence", {})):
            return None
        reason: StageReason | None = None
        if "reason" in row:
            reason = _REASONS.get(row["reason"])
            if reason is None:
                return None
        parsed.append(_stage_row(STAGES[i], state, reason))
        if failed is None and state is StageState.FAILED:
            failed = STAGES[i]
    first = metadata.get("firstFailedStage")
    if (failed is None and first is not None) or (failed is not None and first != failed.value):
        return None
    category = metadata.get("failureCategory")
    if category is not None and category not in _CATEGORIES:
        return None
    return {
        "rows": rows,
        "stages": parsed,
        "first_failed_stage": failed,
        "failure_category": None if category is None else _CATEGORIES[category],
        "analyzer_version": int(version),  # type: ignore[call-overload]
    }


@cache
def _stage_row(stage: Stage, state: StageState, reason: StageReason | None) -> StageRow:
    """One shared (frozen) row per combination: a page repeats the same few thousand."""
    if reason is None:
        return StageRow(stage=stage, state=state)
    return StageRow(stage=stage, state=state, reason=reason)


def _refs_ok(refs: object) -> bool:
    if not isinstance(refs, Mapping):
        return False
    for key, kind in _REF_KINDS:
        values = refs.get(key)
        if values is None:
            continue
        if not isinstance(values, list):
            return False
        for v in values:
            if not isinstance(v, kind) or isinstance(v, bool):
                return False
    return True


def _ahead(version: int, known: int) -> dict[str, Any]:
    return (
        {"analyzer_version_ahead": VersionAhead(reported=version, known=known)}
        if version > known
        else {}
    )


def _chain(
    iteration: Iteration, known: int
) -> tuple[VerifiedChain | UnverifiedChain | AbsentChain, dict[str, Any] | None]:
    parts = validate_chain(iteration.metadata)
    if parts is not None:
        version = parts["analyzer_version"]
        extra: dict[str, Any] = {}
        if parts["first_failed_stage"] is not None:
            extra["first_failed_stage"] = parts["first_failed_stage"]
        if parts["failure_category"] is not None:
            extra["failure_category"] = parts["failure_category"]
        chain = VerifiedChain(
            status="verified",
            stages=parts["stages"],
            analyzer_version=version,
            **extra,
            **_ahead(version, known),
        )
        return chain, parts
    offered = "stageResults" in iteration.metadata
    if offered or iteration.metadata.get("stageResultsUnverified") is True:
        version = iteration.metadata.get("stageAnalyzerVersion")
        fields: dict[str, Any] = {}
        if _is_int(version) and int(version) >= 0:  # type: ignore[call-overload]
            fields = {"analyzer_version": int(version), **_ahead(int(version), known)}  # type: ignore[call-overload]
        return UnverifiedChain(status="unverified", **fields), None
    return AbsentChain(status="absent"), None


def _distinct(values: Sequence[object], keep: type | tuple[type, ...]) -> list[Any]:
    out: list[Any] = []
    for v in values:
        if isinstance(v, keep) and not isinstance(v, bool) and v != "" and v not in out:
            out.append(v)
    return out


def _tool_names(calls: Sequence[Mapping[str, object]]) -> list[str]:
    names = []
    for call in calls:
        for key in ("toolName", "tool", "name"):
            value = call.get(key)
            if isinstance(value, str) and value:
                names.append(value)
                break
    return _distinct(names, str)


def _encode(segment: str) -> str:
    """`encodeURIComponent`; most ids need nothing, so they skip the quoting."""
    return segment if _PLAIN.fullmatch(segment) else quote(segment, safe=_URI_SAFE)


def trace_path(project_id: str, run_id: str, iteration_id: str) -> str:
    """`/projects/{projectId}/eval-runs/{runId}/iterations/{iterationId}/trace`, encoded."""
    p, r, i = (_encode(s) for s in (project_id, run_id, iteration_id))
    return f"/projects/{p}/eval-runs/{r}/iterations/{i}/trace"


def _locator(
    iteration: Iteration, run_id: str, project_id: str, parts: dict[str, Any] | None
) -> EvidenceLocator:
    fields: dict[str, Any] = {}
    if parts is not None and parts["first_failed_stage"] is not None:
        stage: Stage = parts["first_failed_stage"]
        refs = parts["rows"][STAGES.index(stage)].get("evidence", {})
        fields["stage"] = stage
        # a null list is no list (§2.1 admits it, as the validator above does)
        spans = _distinct(refs.get("spanIds") or [], str)
        prompts = [
            int(p)
            for p in _distinct(refs.get("promptIndexes") or [], (int, float))
            if _is_int(p) and p >= 0
        ]
        reasons = _distinct(refs.get("predicateReasons") or [], str)
        prompts = list(dict.fromkeys(prompts))
        for key, values in (("span_ids", spans), ("prompt_indexes", prompts), ("reasons", reasons)):
            if values:
                fields[key] = values
    return EvidenceLocator(
        run_id=run_id,
        iteration_id=iteration.id,
        trace_path=trace_path(project_id, run_id, iteration.id),
        **fields,
    )


def next_action(chain: VerifiedChain | UnverifiedChain | AbsentChain, result: str | None) -> str:
    """The next owner's action (§6.7): the category's, a disagreement, or the fallback."""
    if isinstance(chain, VerifiedChain):
        if chain.failure_category is not MISSING:
            return NEXT_ACTIONS[chain.failure_category]
        states = [row.state for row in chain.stages]
        if (
            result == "failed"
            and StageState.PASSED in states
            and all(s in (StageState.PASSED, StageState.NOT_APPLICABLE) for s in states)
        ):
            if chain.analyzer_version < STAGE_ANALYZER_VERSION_EVIDENCE_TRIGGERED_RESPONSE:
                return STALE_ANALYZER_NEXT_ACTION
            return VERDICT_CHAIN_DISAGREEMENT_NEXT_ACTION
    return FALLBACK_NEXT_ACTION


def diagnostic_item(
    iteration: Iteration, *, run_id: str, project_id: str, known: int = STAGE_ANALYZER_VERSION
) -> DiagnosticItem:
    """One non-passing iteration as a diagnostic item (§6.7)."""
    chain, parts = _chain(iteration, known)
    fields: dict[str, Any] = {}
    if iteration.case_id is not None and CASE_ID_PATTERN.match(iteration.case_id):
        fields["case_id"] = iteration.case_id
    if iteration.test_case_id:
        fields["test_case_id"] = iteration.test_case_id
    if iteration.title:
        fields["title"] = iteration.title
    if iteration.result in ("passed", "failed"):
        fields["result"] = iteration.result
    expected = _tool_names(iteration.expected_tool_calls)
    if expected:
        fields["expected"] = ToolNames(tool_names=expected)
    observed: dict[str, Any] = {}
    actual = _tool_names(iteration.actual_tool_calls)
    if actual:
        observed["tool_names"] = actual
    if iteration.error:
        observed["failure"] = iteration.error
    if observed:
        fields["observed"] = Observed(**observed)
    return DiagnosticItem(
        iteration_id=iteration.id,
        iteration_number=iteration.iteration_number,
        status=iteration.status,
        chain=chain,
        evidence=_locator(iteration, run_id, project_id, parts),
        next_action=next_action(chain, iteration.result),
        **fields,
    )


def diagnostics_page(
    iterations: Sequence[Iteration],
    *,
    run_id: str,
    project_id: str,
    complete: bool,
    next_cursor: str | None = None,
    known: int = STAGE_ANALYZER_VERSION,
) -> Diagnostics:
    """§6.7 over one page: its non-passing iterations, how many it scanned, whether it is all."""
    items = [
        diagnostic_item(i, run_id=run_id, project_id=project_id, known=known)
        for i in iterations
        if i.result != "passed"
    ]
    extra: dict[str, Any] = {} if next_cursor is None else {"next_cursor": next_cursor}
    return Diagnostics(items=items, complete=complete, scanned_iterations=len(iterations), **extra)
