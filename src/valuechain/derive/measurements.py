"""Per-trial stage measurements: reach and evidence-span-union latency (CONTRACT §4).

Reference: `stage-measurements.ts` (`deriveStageMeasurements`). Reach is a projection of the
state, except that a `notMeasured` row whose own cited span ids resolve to a known span is
`reached` — what makes measurement coverage < 1 possible. Latency never moves a state. What
makes measurements consistent with a chain is the contract's (`contract.measurements`),
shared with the check of the producer's persisted measurements; re-exported here.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Protocol

from valuechain.contract.chain import (
    LatencySample,
    StageDerivation,
    StageMeasurementRow,
    StageMeasurements,
    StageResult,
)
from valuechain.contract.derivation import Number
from valuechain.contract.measurements import (
    LATENCY_ELIGIBLE_STAGES,
    REACH_FOR_STATE,
    reach_for_state,
    reach_is_consistent_with_state,
    stage_measurement_disagreements,
)
from valuechain.contract.versions import STAGE_ANALYZER_VERSION
from valuechain.contract.vocab import Reach, Stage
from valuechain.contract.vocab_rules import STAGES

__all__ = [
    "LATENCY_ELIGIBLE_STAGES",
    "REACH_FOR_STATE",
    "derive_measurements",
    "reach_for_state",
    "reach_is_consistent_with_state",
    "stage_measurement_disagreements",
    "union_duration_ms",
]


class TimedSpan(Protocol):
    """A span as measurement needs it: an id and an interval in epoch ms."""

    @property
    def id(self) -> str | None: ...
    @property
    def started_at(self) -> Number | None: ...
    @property
    def ended_at(self) -> Number | None: ...


def _interval(span: TimedSpan) -> tuple[Number, Number] | None:
    """A complete interval; `end == start` kept, `end < start` or non-finite dropped."""
    start, end = span.started_at, span.ended_at
    for bound in (start, end):
        if not isinstance(bound, int | float) or isinstance(bound, bool):
            return None
        if isinstance(bound, float) and not math.isfinite(bound):
            return None
    assert start is not None and end is not None
    return None if end < start else (start, end)


def union_duration_ms(intervals: Iterable[tuple[Number, Number]]) -> Number:
    """Total time covered by the intervals, overlap (and adjacency) counted once."""
    total: Number = 0
    current: tuple[Number, Number] | None = None
    for start, end in sorted(intervals, key=lambda interval: interval[0]):
        if current is None:
            current = (start, end)
        elif start <= current[1]:
            current = (current[0], max(current[1], end))
        else:
            total += current[1] - current[0]
            current = (start, end)
    return total if current is None else total + (current[1] - current[0])


def derive_measurements(
    chain: StageDerivation | Sequence[StageResult],
    spans: Iterable[TimedSpan] = (),
    *,
    stage_analyzer_version: int | None = None,
) -> StageMeasurements:
    """`deriveStageMeasurements` (CONTRACT §4): six rows in stage order, never raises.

    Args:
        chain: the derived chain (its analyzer version is used) or its rows.
        spans: every span the trial captured; rows' evidence ids are looked up here.
        stage_analyzer_version: overrides the chain's version (default: the chain's, else
            the current analyzer).
    """
    if isinstance(chain, StageDerivation):
        rows: Sequence[StageResult] = chain.stage_results
        version = chain.stage_analyzer_version
    else:
        rows, version = chain, STAGE_ANALYZER_VERSION
    if stage_analyzer_version is not None:
        version = stage_analyzer_version
    by_id = {span.id: span for span in spans if isinstance(span.id, str) and span.id}
    decided = {row.stage: row for row in rows}
    return StageMeasurements(
        rows=tuple(_measure(stage, decided.get(stage), by_id) for stage in STAGES),
        stage_analyzer_version=version,
    )


# Rows without latency are immutable and few: share them.
_PLAIN: Mapping[tuple[Stage, Reach], StageMeasurementRow] = {
    (stage, reach): StageMeasurementRow(stage, reach) for stage in STAGES for reach in Reach
}


def _measure(
    stage: Stage, decided: StageResult | None, by_id: Mapping[str, TimedSpan]
) -> StageMeasurementRow:
    if decided is None:
        return _PLAIN[stage, Reach.UNKNOWN]  # missing from the chain ⇒ unknown
    reach = REACH_FOR_STATE[decided.state]
    refs = decided.evidence
    cited = () if refs is None or refs.span_ids is None else refs.span_ids
    spans = [by_id[span_id] for span_id in cited if span_id in by_id] if by_id else []
    if reach is Reach.UNKNOWN and spans:
        reach = Reach.REACHED  # cited, resolvable evidence proves the stage ran
    if reach is not Reach.REACHED or stage not in LATENCY_ELIGIBLE_STAGES:
        return _PLAIN[stage, reach]
    intervals = [interval for span in spans if (interval := _interval(span)) is not None]
    if not intervals:
        return _PLAIN[stage, reach]  # no usable interval ⇒ no latency, never 0
    return StageMeasurementRow(stage, reach, LatencySample(union_duration_ms(intervals)))
