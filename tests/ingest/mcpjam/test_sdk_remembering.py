"""A job's grading keeps what it decided (`graders.Grading`): the same expected and actual
calls (their arguments' keys in order too), predicates, options and negativity are graded
once; anything else, and every refusal, goes to the matcher again."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from valuechain.contract.matching import MatchOptions, ToolCall, ToolCallMatch
from valuechain.ingest.mcpjam.graders import Grading


def _result(**fields: Any) -> dict[str, Any]:
    call = {"toolName": "t", "arguments": {"x": 1, "y": 2}}
    return {"expectedToolCalls": [call], "actualToolCalls": [call], **fields}


def test_the_same_grade_is_kept_and_anything_else_graded() -> None:
    seen: list[tuple[object, ...]] = []

    def matcher(
        expected: Sequence[ToolCall], actual: Sequence[ToolCall], options: MatchOptions, neg: bool
    ) -> ToolCallMatch:
        if options.tool_call_order == "sideways":
            raise ValueError("refused")
        seen.append((tuple(expected), tuple(actual), options, neg))
        return ToolCallMatch((), (), (), passed=True)

    grading = Grading(matcher)
    first = grading.case_grader(_result())
    assert grading.case_grader(_result()) is first
    assert len(seen) == 1
    swapped = {"toolName": "t", "arguments": {"y": 2, "x": 1}}
    grading.case_grader(_result(actualToolCalls=[swapped]))  # the keys in another order
    grading.case_grader(_result(isNegativeTest=True))
    grading.case_grader(_result(matchOptions={"maxExtraToolCalls": 0}))
    gate = {"predicate": {"type": "toolCalledWith", "toolName": "u", "args": {"args": {}}}}
    grading.case_grader(_result(metadata={"predicates": [gate]}))
    assert len(seen) == 5
    # not JSON orjson writes (a parsed payload never holds one): graded each time
    big = _result(actualToolCalls=[{"toolName": "t", "arguments": {"x": 2**70}}])
    grading.case_grader(big)
    grading.case_grader(big)
    assert len(seen) == 7
    for _ in range(2):
        with pytest.raises(ValueError, match="refused"):
            grading.case_grader(_result(matchOptions={"toolCallOrder": "sideways"}))


def test_a_kept_grade_writes_the_same_grader() -> None:
    def matcher(
        expected: Sequence[ToolCall], actual: Sequence[ToolCall], options: MatchOptions, neg: bool
    ) -> ToolCallMatch:
        return ToolCallMatch(tuple(expected), (), (), passed=False)

    attrs, expected = Grading(matcher).case_grader(_result())
    again = Grading(matcher)
    assert again.case_grader(_result()) == (attrs, expected)
    assert again.case_grader(_result()) == (attrs, expected)
    assert ("mcp.app.match.result.missing_count", None, "1", None, None) in attrs
