"""valuechain's selectable analyzer 11 vs analyzer 12 (CONTRACT §7.2).

Exactly two differences: (a) the analyzer-11 discovery table, where a failed tools/list
signal ranks below `toolsTotalBefore` and tool spans and there are no catalog rows, and
(b) routing by the 27-kind table, so the eight later kinds fall through to userValue.
"""

from __future__ import annotations

import gc
from dataclasses import replace

import pytest
from derive_notation import CASE, SPAN, TURN, parse_chain, render_chain
from test_derive_examples import EXAMPLES, expected_wire

from valuechain.contract.derivation import (
    PredicateRef,
    PredicateResult,
    SetupSignal,
    SetupSignals,
    StageAuthoredCase,
    StageDerivationInput,
    StageEvidence,
    ToolSignals,
)
from valuechain.derive import derive_chain, derive_chains
from valuechain.derive.routing import KIND_TABLE

S1 = "P:implied…{[s1]}"
LATER_KINDS = [kind for kind, _, v11 in KIND_TABLE if v11 is None and kind != "responseCloseTo"]


def chains(inp: StageDerivationInput) -> tuple[list[dict[str, object]], list[dict[str, object]]]:
    v11, v12 = derive_chain(inp, analyzer=11), derive_chain(inp, analyzer=12)
    assert v11.stage_analyzer_version == 11 and v12.stage_analyzer_version == 12
    return v11.to_wire()["stageResults"], v12.to_wire()["stageResults"]  # type: ignore[return-value]


def inp(**evidence: object) -> StageDerivationInput:
    return StageDerivationInput(CASE, StageEvidence(**evidence))  # type: ignore[arg-type]


def test_later_kinds_are_the_eight_of_section_3_3() -> None:
    assert sorted(LATER_KINDS) == sorted(
        [
            "toolDescriptionsPresent",
            "toolAnnotationsPresent",
            "toolNamesUnique",
            "noDeprecatedToolExposed",
            "toolInputSchemasWellFormed",
            "toolOutputSchemasPresent",
            "toolInputMatches",
            "toolResultMatches",
        ]
    )
    assert sum(1 for *_, v11 in KIND_TABLE if v11 is not None) == 27
    assert len(KIND_TABLE) == 36


# --- (a) the discovery table -------------------------------------------------------------

TAIL = "P:observed, P:observed{[s1]}, P:observed{[s1]}"
DISCOVERY_CASES = [
    # id, setup signals, tool signals, spans, chain at 11, chain at 12
    (
        "failed-theirs+span",
        SetupSignals(discovery=SetupSignal("failed", "theirs", span_ids=("run-toolslist-s1",))),
        None,
        (SPAN,),
        f"{S1}, {S1}, {TAIL}, NM:noEvidenceCaptured",
        f"{S1}, F:toolsListFailed{{[run-toolslist-s1]}}, {TAIL}, NR",
    ),
    (
        "failed-theirs+inventory",
        SetupSignals(discovery=SetupSignal("failed", "theirs")),
        ToolSignals(tools_total_before=3),
        (),
        "P:impliedByLaterEvidence, P:observed, P:observed, 3×NM:noEvidenceCaptured",
        "P:impliedByLaterEvidence, F:toolsListFailed, P:observed, 3×NR",
    ),
    (
        "failed-ours+span",
        SetupSignals(discovery=SetupSignal("failed", "ours")),
        None,
        (SPAN,),
        f"{S1}, {S1}, {TAIL}, NM:noEvidenceCaptured",
        f"{S1}, NM:setupAborted, {TAIL}, NM:noEvidenceCaptured",
    ),
    (
        "failed-unknown+span",
        SetupSignals(discovery=SetupSignal("failed", "unknown")),
        None,
        (SPAN,),
        f"{S1}, {S1}, {TAIL}, NM:noEvidenceCaptured",
        f"{S1}, NM:egressUnverified, {TAIL}, NM:noEvidenceCaptured",
    ),
]


@pytest.mark.parametrize(
    ("signals", "tool_signals", "spans", "at11", "at12"),
    [case[1:] for case in DISCOVERY_CASES],
    ids=[case[0] for case in DISCOVERY_CASES],
)
def test_failed_tools_list_outranks_later_evidence_only_at_12(
    signals: SetupSignals,
    tool_signals: ToolSignals | None,
    spans: tuple[object, ...],
    at11: str,
    at12: str,
) -> None:
    v11, v12 = chains(
        inp(setup_signals=signals, tool_signals=tool_signals, spans=spans, prompts=(TURN,))
    )
    assert v11 == parse_chain(at11)
    assert v12 == parse_chain(at12)


def test_failed_tools_list_golden_pair() -> None:
    """Q15's golden test: example 9 agrees; a failed signal next to tool spans does not."""
    example_9 = next(e for e in EXAMPLES if e.id == "9")
    v11, v12 = chains(example_9.input())
    assert v11 == v12
    attributable = inp(
        setup_signals=SetupSignals(discovery=SetupSignal("failed", "theirs")),
        spans=(SPAN,),
        prompts=(TURN,),
    )
    v11, v12 = chains(attributable)
    assert v11 == parse_chain(
        f"{S1}, {S1}, P:observed, P:observed{{[s1]}}, P:observed{{[s1]}}, NM:noEvidenceCaptured"
    )
    assert v12 == parse_chain(
        f"{S1}, F:toolsListFailed, P:observed, P:observed{{[s1]}}, P:observed{{[s1]}}, NR"
    )


# --- (b) routing by the 27-kind table ----------------------------------------------------


def later_kind_chain_at_12(kind: str, reasons: str) -> str:
    if kind == "toolInputMatches":
        return f"{S1}, {S1}, P:observed, F:argumentMismatch{reasons}, P:observed{{[s1]}}, NR"
    if kind == "toolResultMatches":
        return f"{S1}, {S1}, P:observed, P:observed{{[s1]}}, F:predicateFailed{reasons}, NR"
    return f"{S1}, F:predicateFailed{reasons}, {TAIL}, NR"  # the six catalog kinds


@pytest.mark.parametrize("kind", LATER_KINDS)
def test_later_kinds_fall_through_to_user_value_at_11(kind: str) -> None:
    row = PredicateResult(False, f"{kind} failed", predicate=PredicateRef(kind))
    v11, v12 = chains(inp(spans=(SPAN,), prompts=(TURN,), predicate_results=(row,)))
    reasons = f'{{predicateReasons:["{kind} failed"]}}'
    assert v11 == parse_chain(f"{S1}, {S1}, {TAIL}, F:predicateFailed{reasons}")
    assert v12 == parse_chain(later_kind_chain_at_12(kind, reasons))


def test_passing_catalog_row_observes_discovery_only_at_12() -> None:
    row = PredicateResult(True, "ok", predicate=PredicateRef("toolNamesUnique"))
    v11, v12 = chains(inp(predicate_results=(row,)))
    assert v11 == parse_chain("5×NM:noEvidenceCaptured, P:observed")
    assert v12 == parse_chain("NM:noEvidenceCaptured, P:observed, 4×NM:noEvidenceCaptured")


def test_later_call_kind_turns_call_on_only_at_12() -> None:
    """Applicability reads the routing too (§2.6): at 11 the row is a userValue row."""
    case = StageAuthoredCase("model_driven", expects_tool_call=False, assertion_count=0)
    row = PredicateResult(False, "no match", predicate=PredicateRef("toolInputMatches"))
    evidence = StageEvidence(spans=(SPAN,), prompts=(TURN,), predicate_results=(row,))
    v11 = derive_chain(StageDerivationInput(case, evidence), analyzer=11)
    v12 = derive_chain(StageDerivationInput(case, evidence), analyzer=12)
    assert v11.to_wire()["stageResults"] == parse_chain(f"{S1}, {S1}, P:observed, 3×NA")
    assert v12.to_wire()["stageResults"] == parse_chain(
        f'{S1}, {S1}, P:observed, F:argumentMismatch{{predicateReasons:["no match"]}}, NA, NA'
    )


# --- nowhere else: every §8.1 example agrees except where (a) or (b) applies ---------------

TOUCHED_AT_11 = {
    "49": "P:observed, P:observed, 3×NM:noEvidenceCaptured, "
    'F:predicateFailed{predicateReasons:["Missing description"]}',
    "51-theirs": "P:observed, P:observed, 3×NM:noEvidenceCaptured, "
    'F:predicateFailed{predicateReasons:["Missing description"]}',
    "51-ours": "P:observed, P:observed, 3×NM:noEvidenceCaptured, "
    'F:predicateFailed{predicateReasons:["Missing description"]}',
    "51-unknown": "P:observed, P:observed, 3×NM:noEvidenceCaptured, "
    'F:predicateFailed{predicateReasons:["Missing description"]}',
}


@pytest.mark.parametrize("example", EXAMPLES, ids=[e.id for e in EXAMPLES])
def test_examples_at_analyzer_11(example) -> None:  # type: ignore[no-untyped-def]
    derivation = derive_chain(example.input(), analyzer=11)
    if example.id in TOUCHED_AT_11:
        expected = replace(
            example, chain=TOUCHED_AT_11[example.id], ff="userValue", cat="userValue"
        )
        assert derivation.to_wire() == expected_wire(expected, analyzer=11), render_chain(
            derivation
        )
    else:
        assert derivation.to_wire() == expected_wire(example, analyzer=11), render_chain(derivation)


@pytest.mark.parametrize("analyzer", [0, 8, 10, 13, 99, True, 12.0, "12"])
def test_only_11_and_12_are_selectable(analyzer: object) -> None:
    with pytest.raises(ValueError, match=r"11 or 12"):
        derive_chain(inp(), analyzer=analyzer)  # type: ignore[arg-type]


def test_default_analyzer_is_12() -> None:
    assert derive_chain(inp()).stage_analyzer_version == 12
    assert derive_chain(replace(inp(), authored=CASE), analyzer=11).stage_analyzer_version == 11


def test_derive_chains_is_derive_chain_over_a_batch() -> None:
    batch = [e.input() for e in EXAMPLES]
    for analyzer in (11, 12):
        assert derive_chains(batch, analyzer=analyzer) == [
            derive_chain(i, analyzer=analyzer) for i in batch
        ]
    assert gc.isenabled()
    gc.disable()
    try:
        derive_chains(batch)
        assert not gc.isenabled()
    finally:
        gc.enable()
    with pytest.raises(ValueError, match="11 or 12"):
        derive_chains(batch, analyzer=10)
