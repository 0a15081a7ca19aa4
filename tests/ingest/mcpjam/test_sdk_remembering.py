"""A job's matcher keeps its grades (`graders.remembering`): the same calls, options and
negativity are graded once; anything else, and every refusal, goes to the matcher."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from valuechain.contract.matching import MatchOptions, ToolCall, ToolCallMatch
from valuechain.ingest.mcpjam.graders import remembering


def test_the_same_grade_is_kept_and_anything_else_graded() -> None:
    seen: list[tuple[object, ...]] = []

    def matcher(
        expected: Sequence[ToolCall], actual: Sequence[ToolCall], options: MatchOptions, neg: bool
    ) -> ToolCallMatch:
        if options.tool_call_order == "sideways":
            raise ValueError("refused")
        seen.append((tuple(expected), tuple(actual), options, neg))
        return ToolCallMatch((), tuple(actual), (), passed=True)

    grade = remembering(matcher)
    a, b = ToolCall("t", {"x": 1, "y": 2}), ToolCall("t", {"y": 2, "x": 1})
    options = MatchOptions()
    first = grade([a], [a], options, False)
    assert grade([ToolCall("t", {"x": 1, "y": 2})], [a], MatchOptions(), False) is first
    grade([a], [b], options, False)  # the arguments' keys in another order
    grade([a], [a], options, True)
    grade([a], [a], MatchOptions(max_extra_tool_calls=0), False)
    grade([a], [ToolCall("t", {"x": object()})], options, False)  # not JSON: each time
    grade([a], [ToolCall("t", {"x": object()})], options, False)
    assert len(seen) == 6
    for _ in range(2):
        with pytest.raises(ValueError, match="refused"):
            grade([a], [a], MatchOptions(tool_call_order="sideways"), False)
