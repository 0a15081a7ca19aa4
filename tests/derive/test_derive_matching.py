"""CONTRACT §2.4: the expected-vs-actual tool-call matcher, as tables."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from valuechain.contract.derivation import StageAuthoredCase, StageDerivationInput, StageEvidence
from valuechain.contract.matching import UNSET, MatchOptions, MatchOptionsLayer, ToolCall
from valuechain.derive import (
    derive_chain,
    evaluate_tool_calls,
    prompt_summary,
    resolve_match_options,
)
from valuechain.derive.matching import arguments_compatible, deep_equal, pair_tool_calls


def calls(spec: str) -> list[ToolCall]:
    """`"a b c"` ⇒ calls named a, b, c without arguments."""
    return [ToolCall(name) for name in spec.split()]


def names(found: tuple[ToolCall, ...]) -> str:
    return " ".join(call.tool_name for call in found)


# --- pairing under the three order modes -------------------------------------------------

ORDER_TABLE = [
    # order, expected, actual, missing, extra, passed
    ("ignore", "a b", "b a", "", "", True),
    ("strict", "a b", "b a", "a b", "b a", False),
    ("superset", "a b", "b a", "b", "b", False),  # cursor ran off the end after pairing a
    ("superset", "a b", "a x b", "", "x", True),  # extras interleaved are fine
    ("strict", "a b", "a b c", "", "c", True),
    ("strict", "a b c", "a b", "c", "", False),
    ("ignore", "a a", "a", "a", "", False),
    ("superset", "a b c", "c a b", "c", "c", False),
    ("ignore", "", "a", "", "a", True),  # extras are reported, not fatal, by default
    ("strict", "a", "b", "a", "b", False),
]


@pytest.mark.parametrize(("order", "expected", "actual", "missing", "extra", "passed"), ORDER_TABLE)
def test_order_modes(
    order: str, expected: str, actual: str, missing: str, extra: str, passed: bool
) -> None:
    result = evaluate_tool_calls(
        calls(expected), calls(actual), MatchOptions(tool_call_order=order)
    )
    assert (names(result.missing), names(result.extra), result.passed) == (missing, extra, passed)
    assert result.argument_mismatches == ()


# --- pass 2: a wrong-args call is a mismatch, not a missing call ---------------------------

A1, A2 = ToolCall("a", {"x": 1}), ToolCall("a", {"x": 2})


@pytest.mark.parametrize(
    ("order", "expected", "actual", "missing", "mismatched", "extra"),
    [
        ("ignore", [A1], [A2], "", 1, ""),
        ("strict", [A1], [A2], "", 1, ""),
        ("strict", [A1, A1], [A2], "a", 1, ""),  # expected[1] may only pair with actual[1]
        ("superset", [A1], [A2], "", 1, ""),
        # superset pass 2 starts at the pass-1 cursor, never before the previous pairing
        ("superset", [ToolCall("b"), A1], [A2, ToolCall("b")], "a", 0, "a"),
        ("ignore", [ToolCall("b"), A1], [A2, ToolCall("b")], "", 1, ""),
    ],
)
def test_pass_two_records_argument_mismatches(
    order: str,
    expected: list[ToolCall],
    actual: list[ToolCall],
    missing: str,
    mismatched: int,
    extra: str,
) -> None:
    result = evaluate_tool_calls(expected, actual, MatchOptions(tool_call_order=order))
    assert names(result.missing) == missing
    assert len(result.argument_mismatches) == mismatched
    assert names(result.extra) == extra
    assert result.passed is (not missing and not mismatched)
    for mismatch in result.argument_mismatches:
        assert (mismatch.expected_args, mismatch.actual_args) == ({"x": 1}, {"x": 2})


def test_ignore_argument_mode_pairs_without_mismatch() -> None:
    result = evaluate_tool_calls([A1], [A2], MatchOptions(argument_matching="ignore"))
    assert result.passed and result.argument_mismatches == () and result.missing == ()


def test_pairing_indexes() -> None:
    pairing = pair_tool_calls([A1, ToolCall("b")], [ToolCall("b"), A2], "ignore", "partial")
    assert dict(pairing.expected_to_actual) == {0: 1, 1: 0}
    assert pairing.argument_mismatch_expected == (0,)


# --- argument compatibility --------------------------------------------------------------

ARGUMENT_TABLE: list[tuple[str, dict[str, Any], dict[str, Any], bool]] = [
    ("partial", {}, {"x": 1}, True),  # empty expected args match anything
    ("partial", {"x": 1}, {"x": 1, "y": 2}, True),  # extra actual keys ignored
    ("partial", {"x": 1}, {"x": 1.0}, True),  # JSON.stringify(1.0) == "1"
    ("partial", {"x": 1}, {"x": True}, False),  # booleans never equal numbers
    ("partial", {"x": {"a": 1, "b": [1, 2]}}, {"x": {"b": [1, 2], "a": 1}}, True),
    ("partial", {"x": [1, 2]}, {"x": [2, 1]}, False),  # array order matters
    ("partial", {"x": "any"}, {"x": None}, True),  # a present null is present
    ("partial", {"x": "any"}, {}, False),
    ("partial", {"x": " Number "}, {"x": 3.5}, True),  # trimmed, lower-cased
    ("partial", {"x": "number"}, {"x": True}, False),
    ("partial", {"x": "string"}, {"x": "s"}, True),
    ("partial", {"x": "boolean"}, {"x": False}, True),
    ("partial", {"x": "object"}, {"x": {}}, True),
    ("partial", {"x": "object"}, {"x": []}, False),
    ("partial", {"x": "object"}, {"x": None}, False),
    ("partial", {"x": "array"}, {"x": []}, True),
    ("partial", {"x": "null"}, {"x": None}, True),
    ("partial", {"x": "null"}, {}, False),
    ("partial", {"x": "hello"}, {"x": "hello"}, True),  # not a placeholder: equality
    ("partial", {"x": "hello"}, {"x": "Hello"}, False),
    ("exact", {"x": 1}, {"x": 1, "y": 2}, False),
    ("exact", {"y": 2, "x": 1}, {"x": 1, "y": 2}, True),
    ("exact", {"x": "any"}, {"x": 5}, False),  # no placeholders in exact mode
    ("exact", {}, {"x": 1}, False),
    ("ignore", {"x": 1}, {"y": 2}, True),
]


@pytest.mark.parametrize(("mode", "expected", "actual", "compatible"), ARGUMENT_TABLE)
def test_argument_compatibility(
    mode: str, expected: dict[str, Any], actual: dict[str, Any], compatible: bool
) -> None:
    assert arguments_compatible(expected, actual, mode) is compatible


@pytest.mark.parametrize("mode", ["partial", "exact"])
def test_absent_or_null_arguments_compare_as_empty(mode: str) -> None:
    assert evaluate_tool_calls(
        [ToolCall("a")], [ToolCall("a", None)], MatchOptions(argument_matching=mode)
    ).passed
    assert evaluate_tool_calls(
        [ToolCall("a", {})], [ToolCall("a")], MatchOptions(argument_matching=mode)
    ).passed


def test_deep_equal_is_canonical_json() -> None:
    assert deep_equal({"a": [1, {"c": 2, "b": 1}]}, {"a": [1.0, {"b": 1, "c": 2}]})
    assert not deep_equal(0, False)
    assert deep_equal(-0.0, 0)


# --- special cases and the extra-call cap -------------------------------------------------


def test_negative_test_passes_only_without_calls() -> None:
    none = evaluate_tool_calls(calls("a"), [], is_negative_test=True)
    some = evaluate_tool_calls(calls("a"), calls("a b"), is_negative_test=True)
    assert (none.passed, none.missing, none.extra) == (True, (), ())
    assert (some.passed, some.missing, names(some.extra)) == (False, (), "a b")


def test_positive_test_without_calls_fails_even_when_nothing_was_expected() -> None:
    assert evaluate_tool_calls([], []).passed is False
    result = evaluate_tool_calls(calls("a b"), [])
    assert (names(result.missing), result.passed) == ("a b", False)


@pytest.mark.parametrize(
    ("cap", "passed"), [(None, True), (0, False), (1, False), (2, True), (2.0, True)]
)
def test_max_extra_tool_calls(cap: float | None, passed: bool) -> None:
    result = evaluate_tool_calls(calls("a"), calls("a x y"), MatchOptions(max_extra_tool_calls=cap))
    assert result.passed is passed


@pytest.mark.parametrize("cap", [-1, 0.5, float("inf"), float("nan"), True])
def test_invalid_extra_cap_is_refused(cap: object) -> None:
    with pytest.raises(ValueError, match="maxExtraToolCalls"):
        evaluate_tool_calls(calls("a"), calls("a"), MatchOptions(max_extra_tool_calls=cap))  # type: ignore[arg-type]


# --- option resolution --------------------------------------------------------------------


def test_resolution_layers_and_legacy_shim() -> None:
    assert resolve_match_options() == MatchOptions("partial", "ignore", None)
    suite = MatchOptionsLayer(tool_call_order="strict", allow_extra_tool_calls=False)
    case = MatchOptionsLayer(argument_matching="exact")
    run = MatchOptionsLayer(max_extra_tool_calls=3, allow_extra_tool_calls=False)  # explicit wins
    assert resolve_match_options(suite) == MatchOptions("partial", "strict", 0)
    assert resolve_match_options(suite, case) == MatchOptions("exact", "strict", 0)
    assert resolve_match_options(suite, case, run) == MatchOptions("exact", "strict", 3)
    unbounded = MatchOptionsLayer(max_extra_tool_calls=None)  # explicit null ≠ undefined
    assert resolve_match_options(suite, unbounded).max_extra_tool_calls is None
    assert (
        resolve_match_options(
            suite, MatchOptionsLayer(allow_extra_tool_calls=True)
        ).max_extra_tool_calls
        is None
    )
    assert MatchOptionsLayer().max_extra_tool_calls is UNSET
    assert unbounded.to_wire() == {"maxExtraToolCalls": None}
    assert MatchOptionsLayer().to_wire() == {}


@pytest.mark.parametrize(
    "layer",
    [
        MatchOptionsLayer(tool_call_order="sorted"),
        MatchOptionsLayer(argument_matching="fuzzy"),
        MatchOptionsLayer(max_extra_tool_calls=-2),
    ],
)
def test_resolution_refuses_unknown_values(layer: MatchOptionsLayer) -> None:
    with pytest.raises(ValueError, match="match options"):
        resolve_match_options(layer)


# --- the turn summary feeds derivation ----------------------------------------------------


def test_prompt_summary_maps_extra_to_unexpected() -> None:
    summary = prompt_summary(calls("a"), calls("a x"), prompt_index=0)
    assert (names(summary.unexpected), summary.passed, summary.missing) == ("x", True, ())  # type: ignore[arg-type]
    case = StageAuthoredCase("model_driven", expects_tool_call=True, assertion_count=1)
    chain = derive_chain(StageDerivationInput(case, StageEvidence(prompts=(summary,))))
    selection = chain.to_wire()["stageResults"][2]  # type: ignore[index]
    assert selection == {
        "stage": "selection",
        "state": "passed",
        "reason": "observed",
        "evidence": {"promptIndexes": [0]},
    }  # extras tolerated by the turn's own verdict (§2.8.3 row 3c)
    capped = prompt_summary(
        calls("a"), calls("a x"), MatchOptions(max_extra_tool_calls=0), prompt_index=0
    )
    chain = derive_chain(StageDerivationInput(case, StageEvidence(prompts=(capped,))))
    assert chain.stage_results[2].reason == "unexpectedToolCall"


# --- order independence where §2.4 makes order irrelevant ----------------------------------

call_strategy = st.builds(
    ToolCall,
    tool_name=st.sampled_from(["a", "b", "c"]),
    arguments=st.one_of(
        st.none(), st.fixed_dictionaries({"x": st.sampled_from([1, 2, 1.0, "1", None])})
    ),
)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(call_strategy, max_size=5),
    st.lists(call_strategy, max_size=6),
    st.sampled_from(["exact", "ignore"]),
    st.randoms(use_true_random=False),
)
def test_ignore_order_counts_do_not_depend_on_call_order(
    expected: list[ToolCall], actual: list[ToolCall], mode: str, rnd: Any
) -> None:
    """With `toolCallOrder: ignore` and an equivalence-relation argument mode (exact/ignore),
    greedy pairing is maximal, so only the multiset of calls matters."""
    options = MatchOptions(argument_matching=mode)
    before = evaluate_tool_calls(expected, actual, options)
    shuffled_expected, shuffled_actual = list(expected), list(actual)
    rnd.shuffle(shuffled_expected)
    rnd.shuffle(shuffled_actual)
    after = evaluate_tool_calls(shuffled_expected, shuffled_actual, options)
    counts = (len(before.missing), len(before.extra), len(before.argument_mismatches))
    assert (len(after.missing), len(after.extra), len(after.argument_mismatches)) == counts
    assert after.passed is before.passed
