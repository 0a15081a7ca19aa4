"""Expected-vs-actual tool-call matcher, producing the turn summaries (CONTRACT §2.4).

Reference: `sdk/src/matchers.ts` (`evaluateToolCalls`, `pairToolCalls`, `resolveMatchOptions`).
Pass 1 pairs by name + arguments under the order mode; pass 2 pairs each still-unpaired
expected call with a same-name actual and records an argument mismatch, so a wrong-args
call is a mismatch, not a missing call.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from valuechain.contract.derivation import Number, PromptSummary
from valuechain.contract.matching import (
    ArgumentMismatch,
    MatchOptions,
    MatchOptionsLayer,
    ToolCall,
    ToolCallMatch,
    Unset,
)
from valuechain.derive.jssem import is_js_number, js_json, js_trim

ARGUMENT_MATCHING_MODES: tuple[str, ...] = ("partial", "exact", "ignore")
TOOL_CALL_ORDERS: tuple[str, ...] = ("ignore", "strict", "superset")
DEFAULT_MATCH_OPTIONS = MatchOptions()

_EMPTY: Mapping[str, object] = {}
_MISSING = object()  # `actualArgs[key] === undefined`


# --- options (§2.4 table) ----------------------------------------------------------------


def resolve_match_options(*layers: MatchOptionsLayer | None) -> MatchOptions:
    """Merge suite → case → run-override layers over the defaults; undefined inherits.

    Legacy `allow_extra_tool_calls` maps True ⇒ null, False ⇒ 0; an explicit
    `max_extra_tool_calls` on the same layer wins. Raises ValueError on invalid values.
    """
    order, matching = DEFAULT_MATCH_OPTIONS.tool_call_order, DEFAULT_MATCH_OPTIONS.argument_matching
    max_extra: Number | None = DEFAULT_MATCH_OPTIONS.max_extra_tool_calls
    for layer in layers:
        if layer is None:
            continue
        if layer.tool_call_order is not None:
            order = layer.tool_call_order
        if layer.argument_matching is not None:
            matching = layer.argument_matching
        if not isinstance(layer.max_extra_tool_calls, Unset):
            max_extra = layer.max_extra_tool_calls
        elif layer.allow_extra_tool_calls is not None:
            max_extra = None if layer.allow_extra_tool_calls else 0
    options = MatchOptions(matching, order, max_extra)
    validate_match_options(options)
    return options


def validate_match_options(options: MatchOptions) -> None:
    """Refuse an unknown mode or a negative / fractional / non-finite extra-call cap."""
    if options.tool_call_order not in TOOL_CALL_ORDERS:
        raise ValueError(
            f"match options: toolCallOrder {options.tool_call_order!r} is unknown; "
            f"expected one of {', '.join(TOOL_CALL_ORDERS)}"
        )
    if options.argument_matching not in ARGUMENT_MATCHING_MODES:
        raise ValueError(
            f"match options: argumentMatching {options.argument_matching!r} is unknown; "
            f"expected one of {', '.join(ARGUMENT_MATCHING_MODES)}"
        )
    cap = options.max_extra_tool_calls
    if cap is None:
        return
    integral = is_js_number(cap) and (
        isinstance(cap, int) or (math.isfinite(cap) and float(cap).is_integer())
    )
    if not integral or cap < 0:
        raise ValueError(
            f"match options: maxExtraToolCalls is {cap!r}; "
            "expected null (unbounded) or a non-negative integer"
        )


# --- argument compatibility --------------------------------------------------------------


def _placeholder_match(expected: object, actual: object) -> bool | None:
    """A type-check placeholder's verdict, or None when `expected` is not a placeholder."""
    if not isinstance(expected, str):
        return None
    word = js_trim(expected).lower()
    if word == "any":
        return actual is not _MISSING  # a present null counts (§0.2 trap 4)
    if word == "string":
        return isinstance(actual, str)
    if word == "number":
        return is_js_number(actual)
    if word == "boolean":
        return isinstance(actual, bool)
    if word == "object":
        return isinstance(actual, Mapping)
    if word == "array":
        return isinstance(actual, list | tuple)
    if word == "null":
        return actual is None
    return None


def deep_equal(left: object, right: object) -> bool:
    """Equality of key-sorted canonical JSON (object key order irrelevant, arrays ordered)."""
    if left is _MISSING or right is _MISSING:
        return False  # `stableStringify(undefined)` is undefined, never equal to a string
    return js_json(left, sort_keys=True) == js_json(right, sort_keys=True)


def arguments_compatible(
    expected_args: Mapping[str, object], actual_args: Mapping[str, object], mode: str
) -> bool:
    """Does one actual call's arguments satisfy one expected call's under `mode`?"""
    if mode == "ignore":
        return True
    if mode == "partial":
        for key, value in expected_args.items():
            actual = actual_args.get(key, _MISSING)
            verdict = _placeholder_match(value, actual)
            if verdict is None:
                verdict = deep_equal(actual, value)
            if not verdict:
                return False
        return True
    return deep_equal(expected_args, actual_args)  # exact: no placeholders


def _args(call: ToolCall) -> Mapping[str, object]:
    return call.arguments or _EMPTY  # absent / null ⇒ {}


def _compatible(expected: ToolCall, actual: ToolCall, mode: str) -> bool:
    return expected.tool_name == actual.tool_name and arguments_compatible(
        _args(expected), _args(actual), mode
    )


# --- pairing -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ToolCallPairing:
    """Expected index → actual index, and the (ascending) expected indexes paired in pass 2."""

    expected_to_actual: Mapping[int, int]
    argument_mismatch_expected: tuple[int, ...]


def _pass1(
    expected: Sequence[ToolCall], actual: Sequence[ToolCall], order: str, mode: str
) -> tuple[dict[int, int], list[int] | None]:
    pairs: dict[int, int] = {}
    if order == "strict":  # expected[i] pairs only with actual[i]
        for i in range(min(len(expected), len(actual))):
            if _compatible(expected[i], actual[i], mode):
                pairs[i] = i
        return pairs, None
    if order == "superset":  # one forward cursor, never backtracks
        cursor = 0
        cursors = [len(actual)] * len(expected)
        for i, call in enumerate(expected):
            cursors[i] = cursor
            while cursor < len(actual):
                matched = _compatible(call, actual[cursor], mode)
                cursor += 1
                if matched:
                    pairs[i] = cursor - 1
                    break
            if cursor >= len(actual):
                break  # later expected calls keep the exhausted cursor
        return pairs, cursors
    consumed: set[int] = set()  # ignore: earliest unconsumed compatible actual
    for i, call in enumerate(expected):
        for j, candidate in enumerate(actual):
            if j not in consumed and _compatible(call, candidate, mode):
                pairs[i] = j
                consumed.add(j)
                break
    return pairs, None


def pair_tool_calls(
    expected: Sequence[ToolCall], actual: Sequence[ToolCall], order: str, mode: str
) -> ToolCallPairing:
    """Pass 1 by name + arguments under `order`, then pass 2 by name (CONTRACT §2.4)."""
    pairs, cursors = _pass1(expected, actual, order, mode)
    used = set(pairs.values())
    mismatched: list[int] = []
    for i, call in enumerate(expected):
        if i in pairs:
            continue
        start, stop = 0, len(actual)
        if order == "strict":
            start, stop = i, min(i + 1, len(actual))
        elif order == "superset" and cursors is not None:
            start = min(cursors[i], len(actual))
        for j in range(start, stop):
            if j not in used and actual[j].tool_name == call.tool_name:
                pairs[i] = j
                used.add(j)
                if mode != "ignore":
                    mismatched.append(i)
                break
    return ToolCallPairing(pairs, tuple(mismatched))


def evaluate_tool_calls(
    expected: Sequence[ToolCall],
    actual: Sequence[ToolCall],
    options: MatchOptions = DEFAULT_MATCH_OPTIONS,
    *,
    is_negative_test: bool = False,
) -> ToolCallMatch:
    """Grade one turn's actual calls against its expected calls (`evaluateToolCalls`)."""
    validate_match_options(options)
    if is_negative_test:
        return ToolCallMatch((), tuple(actual), (), passed=not actual)
    if not actual:  # positive test with no calls fails, even when nothing was expected
        return ToolCallMatch(tuple(expected), (), (), passed=False)
    pairing = pair_tool_calls(expected, actual, options.tool_call_order, options.argument_matching)
    pairs = pairing.expected_to_actual
    used = set(pairs.values())
    mismatches = tuple(
        ArgumentMismatch(expected[i].tool_name, _args(expected[i]), _args(actual[pairs[i]]))
        for i in pairing.argument_mismatch_expected
    )
    missing = tuple(call for i, call in enumerate(expected) if i not in pairs)
    extra = tuple(call for j, call in enumerate(actual) if j not in used)
    cap = options.max_extra_tool_calls
    too_many_extras = cap is not None and len(extra) > cap
    passed = not missing and not mismatches and not too_many_extras
    return ToolCallMatch(missing, extra, mismatches, passed)


def prompt_summary(
    expected: Sequence[ToolCall],
    actual: Sequence[ToolCall],
    options: MatchOptions = DEFAULT_MATCH_OPTIONS,
    *,
    prompt_index: Number | None = None,
    is_negative_test: bool = False,
) -> PromptSummary:
    """The turn summary derivation reads (`prompts[]`, CONTRACT §2.2): `extra` ⇒ `unexpected`."""
    match = evaluate_tool_calls(expected, actual, options, is_negative_test=is_negative_test)
    return PromptSummary(
        prompt_index=prompt_index,
        expected_tool_calls=tuple(expected),
        missing=match.missing,
        unexpected=match.extra,
        argument_mismatches=match.argument_mismatches,
        passed=match.passed,
    )
