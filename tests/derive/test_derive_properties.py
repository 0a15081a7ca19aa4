"""Invariants of stage derivation, as hypothesis properties (CONTRACT §2.1, §2.5, §2.7, §7.2)."""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any
from unittest import mock

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from valuechain.contract.chain import StageDerivation
from valuechain.contract.derivation import (
    JudgeEvidence,
    MetadataAttribution,
    PolicyInfo,
    PredicateRef,
    PredicateResult,
    PromptSummary,
    RenderObservation,
    SetupSignal,
    SetupSignals,
    StageAuthoredCase,
    StageDerivationInput,
    StageEvidence,
    StageSpan,
    StepError,
    ToolErrorRecord,
    ToolSignals,
)
from valuechain.contract.matching import ToolCall
from valuechain.contract.vocab import IterationStatus, StageReason, StageState
from valuechain.contract.vocab_rules import STAGES
from valuechain.derive import derive_chain, stages
from valuechain.derive.jssem import utf16_len
from valuechain.derive.routing import KIND_TABLE, is_gating_and_scored

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
KINDS = [kind for kind, _, _ in KIND_TABLE] + ["someFutureKind", "constructor", ""]
LATER_KINDS = {kind for kind, _, v11 in KIND_TABLE if v11 is None}

# Reasons: blank, short, and long ones with astral-plane characters (§0.2 trap 2).
CHARS = st.sampled_from(["a", "é", " ", "😀", "\U0001f9ea", "\u3000", "…"])
reasons = st.one_of(
    st.none(),
    st.text(CHARS, max_size=12),
    st.builds(lambda c, n: c * n, CHARS, st.integers(240, 640)),
)
calls = st.sampled_from([ToolCall("search"), ToolCall("list_files", {"path": "/"})])
call_lists = st.one_of(st.none(), st.lists(calls, max_size=2).map(tuple))


def maybe(strategy: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.one_of(st.none(), strategy)


spans = st.builds(
    StageSpan,
    id=maybe(st.sampled_from(["s1", "s2", "s3", "s4", "s5", "s6", "s7"])),
    category=st.sampled_from(["tool", "tool", "llm", None]),
    status=st.sampled_from(["ok", "error", None]),
    mcp_error_code=st.sampled_from([None, None, -32000, -32001, -32602, -32603.0]),
    prompt_index=maybe(st.integers(0, 3)),
)
prompts = st.builds(
    PromptSummary,
    prompt_index=st.one_of(st.none(), st.integers(0, 3), st.just(1.0)),
    expected_tool_calls=call_lists,
    missing=call_lists,
    unexpected=call_lists,
    argument_mismatches=call_lists,
    passed=st.sampled_from([True, False, None]),
)
predicates = st.builds(
    PredicateRef,
    kind_=maybe(st.sampled_from(KINDS)),
    role=st.sampled_from([None, "gating", "advisory", "Advisory"]),
)
predicate_rows = st.builds(
    PredicateResult,
    passed=st.sampled_from([True, False, None]),
    reason=reasons,
    status=st.sampled_from([None, "scored", "error"]),
    predicate=maybe(predicates),
)
signal = st.builds(
    SetupSignal,
    outcome=st.sampled_from(["ok", "failed"]),
    attribution=st.sampled_from([None, "ours", "theirs", "unknown"]),
    egress_verified=st.sampled_from([None, True, False]),
    span_ids=st.sampled_from([None, (), ("run-connect-s1",), tuple(f"r{i}" for i in range(7))]),
)
judges = st.builds(
    JudgeEvidence,
    status=st.sampled_from(["scored", "error", "skipped", "not_applicable", "pending"]),
    pending_kind=st.sampled_from([None, "scheduled", "not_requested"]),
    verdict=st.sampled_from([None, "pass", "partial", "fail"]),
    reasons=maybe(st.lists(reasons.filter(lambda r: r is not None), max_size=7).map(tuple)),
)
attributions = st.builds(
    MetadataAttribution,
    status=st.sampled_from(["scored", "error", "pending"]),
    attributed=st.sampled_from([None, True, False]),
    reasons=maybe(st.lists(reasons.filter(lambda r: r is not None), max_size=7).map(tuple)),
)


def evidence(max_items: int) -> st.SearchStrategy[StageEvidence]:
    return st.builds(
        StageEvidence,
        spans=st.lists(spans, max_size=max_items).map(tuple),
        trace_lacks_span_channel=st.sampled_from([None, True, False]),
        trace_absent=st.sampled_from([None, True, False]),
        prompts=st.lists(prompts, max_size=3).map(tuple),
        predicate_results=st.lists(predicate_rows, max_size=max_items).map(tuple),
        tool_errors=st.lists(
            st.builds(
                ToolErrorRecord, kind=st.sampled_from(["content-error", "protocol-error", None])
            ),
            max_size=2,
        ).map(tuple),
        step_error=maybe(st.builds(StepError, source=st.sampled_from(["model", "setup", None]))),
        render_observations=st.lists(
            st.builds(
                RenderObservation, status=st.sampled_from(["rendered", "mount_failed", None])
            ),
            max_size=2,
        ).map(tuple),
        tool_signals=maybe(
            st.builds(ToolSignals, tools_total_before=st.sampled_from([None, 0, 2]))
        ),
        setup_signals=maybe(
            st.builds(SetupSignals, connection=maybe(signal), discovery=maybe(signal))
        ),
        evaluator_errored=st.sampled_from([None, False, True]),
        judge_evidence=maybe(judges),
        metadata_attribution=maybe(attributions),
    )


authored = st.builds(
    StageAuthoredCase,
    mode=st.sampled_from(["model_driven", "model_driven", "model_free", "model"]),
    is_negative_test=st.sampled_from([None, True, False]),
    expects_tool_call=st.sampled_from([None, True, False]),
    expects_widget_render=st.sampled_from([None, True, False]),
    assertion_count=st.sampled_from([None, 0, 1, 3]),
    has_user_ask=st.sampled_from([None, True]),
    tool_expectation=st.sampled_from([None, "required", "not_required", "open"]),
)


def inputs(max_items: int = 8) -> st.SearchStrategy[StageDerivationInput]:
    return st.builds(
        StageDerivationInput,
        authored=authored,
        evidence=evidence(max_items),
        iteration=st.builds(
            lambda status: replace(StageDerivationInput(authored=None).iteration, status=status),  # type: ignore[arg-type]
            st.sampled_from([s.value for s in IterationStatus] + ["completed"] * 4),
        ),
        policy=st.sampled_from([None, None, None, PolicyInfo(False), PolicyInfo(True)]),
    )


analyzers = st.sampled_from([11, 12])


def first_failed_index(derivation: StageDerivation) -> int | None:
    for index, row in enumerate(derivation.stage_results):
        if row.state is StageState.FAILED:
            return index
    return None


def _no_nulls(value: object) -> bool:
    if isinstance(value, dict):
        return all(v is not None and _no_nulls(v) for v in value.values())
    if isinstance(value, list):
        return all(_no_nulls(v) for v in value)
    return value is not None


@SETTINGS
@given(inputs(), analyzers)
def test_six_rows_in_stage_order_and_valid_shape(inp: StageDerivationInput, analyzer: int) -> None:
    derivation = derive_chain(inp, analyzer=analyzer)
    assert tuple(row.stage for row in derivation.stage_results) == STAGES
    assert derivation.stage_analyzer_version == analyzer
    assert all(isinstance(row.reason, StageReason) for row in derivation.stage_results)
    for row in derivation.stage_results:
        assert row.evidence is None or row.evidence.has_keys
    wire = derivation.to_wire()
    assert _no_nulls(wire)
    assert list(wire) == [
        key
        for key in ("stageResults", "firstFailedStage", "failureCategory", "stageAnalyzerVersion")
        if key in wire
    ]
    # Deterministic: same input, same output.
    assert derive_chain(inp, analyzer=analyzer) == derivation


@SETTINGS
@given(inputs(), analyzers)
def test_first_failed_stage_and_category(inp: StageDerivationInput, analyzer: int) -> None:
    derivation = derive_chain(inp, analyzer=analyzer)
    index = first_failed_index(derivation)
    expected = None if index is None else STAGES[index]
    assert derivation.first_failed_stage == expected
    if index is not None:
        assert derivation.failure_category is not None
        assert derivation.failure_category != "evaluator"  # never launders a measured failure
    for row in derivation.stage_results:  # writer pairings of §1.3
        if row.reason in (StageReason.CONNECT_FAILED, StageReason.TOOLS_LIST_FAILED):
            assert row.state is StageState.FAILED
        if row.state is StageState.NOT_APPLICABLE:
            assert row.reason is StageReason.NOT_AUTHORED


@SETTINGS
@given(inputs(), analyzers)
def test_not_reached_only_after_a_failure_and_only_where_nothing_was_decided(
    inp: StageDerivationInput, analyzer: int
) -> None:
    derivation = derive_chain(inp, analyzer=analyzer)
    index = first_failed_index(derivation)
    for position, row in enumerate(derivation.stage_results):
        if row.state is StageState.NOT_REACHED:
            assert index is not None and position > index
            assert row.reason is StageReason.EARLIER_STAGE_FAILED and row.evidence is None
    # Without the positional cascade, exactly the NR rows were notMeasured; every other row
    # is the stage's own verdict, kept (measured rows survive, NA survives).
    with mock.patch.object(stages, "cascade", lambda rows: rows):
        uncascaded = derive_chain(inp, analyzer=analyzer)
    for position, (row, own) in enumerate(
        zip(derivation.stage_results, uncascaded.stage_results, strict=True)
    ):
        if row != own:
            assert index is not None and position > index
            assert own.state is StageState.NOT_MEASURED and row.state is StageState.NOT_REACHED


def _with_invisible_row(
    inp: StageDerivationInput, row: PredicateResult, at: int
) -> StageDerivationInput:
    rows = list(inp.evidence.predicate_results)
    rows.insert(at % (len(rows) + 1), row)
    return replace(inp, evidence=replace(inp.evidence, predicate_results=tuple(rows)))


invisible_rows = st.one_of(
    st.builds(
        PredicateResult,
        passed=st.sampled_from([True, False, None]),
        reason=reasons,
        status=st.sampled_from([None, "scored", "error"]),
        predicate=st.builds(
            PredicateRef, kind_=maybe(st.sampled_from(KINDS)), role=st.just("advisory")
        ),
    ),
    st.builds(
        PredicateResult,
        passed=st.sampled_from([True, False, None]),
        reason=reasons,
        status=st.just("error"),
        predicate=maybe(predicates),
    ),
)


@SETTINGS
@given(inputs(), analyzers, invisible_rows, st.integers(0, 10))
def test_advisory_and_error_rows_never_change_a_chain(
    inp: StageDerivationInput, analyzer: int, row: PredicateResult, at: int
) -> None:
    assert not is_gating_and_scored(row)
    before = derive_chain(inp, analyzer=analyzer)
    after = derive_chain(_with_invisible_row(inp, row, at), analyzer=analyzer)
    assert after.to_wire() == before.to_wire()


def _normalised(derivation: StageDerivation) -> list[tuple[Any, ...]]:
    out = []
    for row in derivation.stage_results:
        refs = row.evidence
        out.append(
            (
                row.stage,
                row.state,
                row.reason,
                None if refs is None else tuple(sorted(refs.span_ids or ())),
                None if refs is None else tuple(sorted(refs.prompt_indexes or ())),
                None if refs is None else tuple(sorted(refs.predicate_reasons or ())),
                None if refs is None else (refs.span_ids is None, refs.prompt_indexes is None),
            )
        )
    out.append((derivation.first_failed_stage, derivation.failure_category))
    return out


def _shuffled(inp: StageDerivationInput, seed: int) -> StageDerivationInput:
    rng = random.Random(seed)

    def shuffle(items: tuple[Any, ...]) -> tuple[Any, ...]:
        items_list = list(items)
        rng.shuffle(items_list)
        return tuple(items_list)

    e = inp.evidence
    return replace(
        inp,
        evidence=replace(
            e,
            spans=shuffle(e.spans),
            prompts=shuffle(e.prompts),
            predicate_results=shuffle(e.predicate_results),
            tool_errors=shuffle(e.tool_errors),
            render_observations=shuffle(e.render_observations),
        ),
    )


@SETTINGS
@given(inputs(max_items=5), analyzers, st.integers(0, 2**32))
def test_order_of_spans_rows_and_turns_does_not_matter(
    inp: StageDerivationInput, analyzer: int, seed: int
) -> None:
    """States, reasons, outcome and the evidence *sets* ignore input order (≤ 5 items, so
    no truncation picks a different first five)."""
    before = derive_chain(inp, analyzer=analyzer)
    after = derive_chain(_shuffled(inp, seed), analyzer=analyzer)
    assert _normalised(after) == _normalised(before)


@SETTINGS
@given(inputs(max_items=12), analyzers)
def test_evidence_caps(inp: StageDerivationInput, analyzer: int) -> None:
    for row in derive_chain(inp, analyzer=analyzer).stage_results:
        refs = row.evidence
        if refs is None:
            continue
        assert refs.span_ids is None or len(refs.span_ids) <= 5
        if refs.predicate_reasons is not None:
            assert 1 <= len(refs.predicate_reasons) <= 5
            for reason in refs.predicate_reasons:
                assert utf16_len(reason) <= 500
                assert reason.strip(" \u3000")


def _touched_by_section_7_2(inp: StageDerivationInput) -> bool:
    later_rows = any(
        is_gating_and_scored(row)
        and row.predicate is not None
        and row.predicate.kind_ in LATER_KINDS
        for row in inp.evidence.predicate_results
    )
    signals = inp.evidence.setup_signals
    failed_tools_list = (
        signals is not None
        and signals.discovery is not None
        and signals.discovery.outcome == "failed"
    )
    return later_rows or failed_tools_list


@SETTINGS
@given(inputs())
def test_analyzer_11_and_12_differ_only_where_section_7_2_says(inp: StageDerivationInput) -> None:
    v11, v12 = derive_chain(inp, analyzer=11), derive_chain(inp, analyzer=12)
    if not _touched_by_section_7_2(inp):
        assert replace(v11, stage_analyzer_version=12) == v12
    assert v11.stage_results[0] == v12.stage_results[0]  # connection never differs
