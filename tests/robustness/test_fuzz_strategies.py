"""The fuzz strategies themselves (``otlp_fuzz``): deterministic, and independent of the stack.

Hypothesis replays a choice sequence while it shrinks and when it reads its example database;
a strategy that draws differently on a replay stops the campaign with
``FlakyStrategyDefinition`` instead of a minimal failing input. The first long campaign did:
a deep value copied with ``copy.deepcopy`` or written by ``json.dumps`` raised
``RecursionError`` or not depending on how deep the caller's stack already was. Each check
below draws the same examples twice under a derandomized profile and compares them.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from otlp_fuzz import DEEP_MAX, Export, _clone, _nested, broken_exports, exports

EXAMPLES = 30
EXTRA_FRAMES = 250  # about what pytest, xdist and Hypothesis's shrinker add above a draw


def _deeper(frames: int, call: Callable[[], Any]) -> Any:
    return _deeper(frames - 1, call) if frames else call()


def _drawn(strategy: st.SearchStrategy[Export], frames: int = 0) -> list[Export]:
    seen: list[Export] = []

    @settings(
        derandomize=True,
        max_examples=EXAMPLES,
        database=None,
        phases=[Phase.generate],
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(strategy)
    def collect(example: Export) -> None:
        seen.append(example)

    _deeper(frames, collect)
    return seen


STRATEGIES = {"exports": exports, "broken_exports": broken_exports}


@pytest.mark.parametrize("name", sorted(STRATEGIES))
def test_a_derandomized_run_draws_the_same_examples_twice(name: str) -> None:
    first, second = _drawn(STRATEGIES[name]()), _drawn(STRATEGIES[name]())
    assert len(first) == EXAMPLES
    assert first == second


@pytest.mark.parametrize("name", sorted(STRATEGIES))
def test_the_examples_do_not_depend_on_the_depth_of_the_stack(name: str) -> None:
    assert _drawn(STRATEGIES[name](), EXTRA_FRAMES) == _drawn(STRATEGIES[name]())


@pytest.mark.parametrize("kind", ["array", "kvlist"])
@pytest.mark.parametrize(
    "write",
    [
        pytest.param(json.dumps, id="compact"),
        pytest.param(lambda v: json.dumps(v, indent=2), id="pretty"),
    ],
)
def test_the_deepest_value_is_copied_and_written_far_below_the_recursion_limit(
    kind: str, write: Callable[[Any], str]
) -> None:
    # Placed as deep as a structural mutation reaches, inside a span's attribute.
    value: Any = _nested(DEEP_MAX, kind)
    for _ in range(12):
        value = {"values": [value]}
    copied = _deeper(EXTRA_FRAMES, lambda: _clone(value))
    assert copied == value and copied is not value
    assert _deeper(EXTRA_FRAMES, lambda: write(copied)) == write(value)
