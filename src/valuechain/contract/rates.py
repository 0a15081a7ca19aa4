"""The rate envelope of CONTRACT §5.8: rates read off a stage tally, derived, never stored.

A document holds counts only (§5.1); a reader turns a `StageTally` into `measuredPassRate`,
`reachRate` or `measurementCoverageRate` here, each `notMeasured` rather than a number
unless its counts make a rate (integers, 0 ≤ numerator ≤ denominator, denominator ≥ 1).
Apart from `documents.py` because none of it is part of the stored document.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Final, Literal

from pydantic import Field

from valuechain.contract.tallies import (
    Count,
    Exclusions,
    Fraction,
    PositiveCount,
    StageTally,
    StrictModel,
    snake_case,
)
from valuechain.contract.vocab import StageExclusionClass

# --- the rate envelope (§5.8): derived on read, never stored -------------------------------


class MeasuredRate(StrictModel):
    state: Literal["measured"]
    value: Fraction
    numerator: Count
    denominator: PositiveCount
    exclusions: Exclusions


class NotMeasuredRate(StrictModel):
    state: Literal["notMeasured"]
    value: None
    numerator: Literal[0]
    denominator: Literal[0]
    exclusions: Exclusions


StageRate = Annotated[MeasuredRate | NotMeasuredRate, Field(discriminator="state")]


def stage_rate(
    numerator: object, denominator: object, exclusions: Exclusions | None = None
) -> MeasuredRate | NotMeasuredRate:
    """`stageRate`: `notMeasured` unless 0 ≤ n ≤ d, d ≥ 1, both integers (CONTRACT §5.8)."""
    excl = exclusions if exclusions is not None else Exclusions()
    if (
        type(numerator) is not int
        or type(denominator) is not int
        or denominator <= 0
        or numerator < 0
        or numerator > denominator
    ):
        return NotMeasuredRate(
            state="notMeasured", value=None, numerator=0, denominator=0, exclusions=excl
        )
    return MeasuredRate(
        state="measured",
        value=numerator / denominator,
        numerator=numerator,
        denominator=denominator,
        exclusions=excl,
    )


def _with_not_measured(tally: StageTally, extra: StageExclusionClass) -> Exclusions:
    counts = {cls: n for cls, n in tally.excluded.counts().items()}
    value = tally.not_measured if extra is StageExclusionClass.NOT_MEASURED else tally.reach_unknown
    if value > 0:
        counts[extra] = value
    return Exclusions(**{snake_case(cls.value): n for cls, n in counts.items()})


def measurement_coverage_rate(tally: StageTally) -> MeasuredRate | NotMeasuredRate:
    """Of the trials that reached the stage, how many were decided: `measured / reached`."""
    return stage_rate(
        tally.measured, tally.reached, _with_not_measured(tally, StageExclusionClass.NOT_MEASURED)
    )


def measured_pass_rate(tally: StageTally) -> MeasuredRate | NotMeasuredRate:
    """Of what was decided, how much passed: `passed / measured`."""
    return stage_rate(
        tally.passed, tally.measured, _with_not_measured(tally, StageExclusionClass.NOT_MEASURED)
    )


def reach_rate(tally: StageTally) -> MeasuredRate | NotMeasuredRate:
    """Of the trials whose reach is known, how many got here: `reached / (reached+notReached)`."""
    return stage_rate(
        tally.reached,
        tally.reached + tally.not_reached,
        _with_not_measured(tally, StageExclusionClass.REACH_UNKNOWN),
    )


RATE_FUNCTIONS: Final[dict[str, Callable[[StageTally], MeasuredRate | NotMeasuredRate]]] = {
    "measuredPassRate": measured_pass_rate,
    "reachRate": reach_rate,
    "measurementCoverageRate": measurement_coverage_rate,
}
