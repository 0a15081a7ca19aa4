"""When stage measurements describe their chain (CONTRACT §4, §7.4).

Shared by the rooms that judge measurements: derive/ checks the measurements it derives,
evidence/ checks the producer's persisted measurements against the producer's persisted chain
(TRACE-FORMAT §5.2 `W_CHAIN_INVALID`, never repaired), and store/ runs the same check on the
rows of a store written before it existed. `measurement_problems` is CONTRACT §7.4's local
`measurementsVerified`: the §4 validator on the wire form, then `stageMeasurementDisagreements`;
`check_persisted` runs §2.1 and it on a producer's chain and measurements as sent or stored.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Final, Protocol

import orjson

from valuechain.contract.chain import StageMeasurementRow, StageMeasurements
from valuechain.contract.verdict_diagnostics import validate_chain
from valuechain.contract.versions import STAGE_ANALYZER_VERSION, STAGE_MEASUREMENTS_SCHEMA_VERSION
from valuechain.contract.vocab import (
    LATENCY_BASIS_EVIDENCE_SPAN_UNION,
    LATENCY_UNIT,
    Reach,
    Stage,
    StageState,
)
from valuechain.contract.vocab_rules import STAGES

# Connection/discovery timing is a run-level setup fact; userValue has no grader timer.
LATENCY_ELIGIBLE_STAGES: frozenset[Stage] = frozenset({Stage.SELECTION, Stage.CALL, Stage.RESPONSE})

REACH_FOR_STATE: Mapping[StageState, Reach] = {
    StageState.PASSED: Reach.REACHED,
    StageState.FAILED: Reach.REACHED,  # a stage that produced a failure demonstrably ran
    StageState.NOT_REACHED: Reach.NOT_REACHED,
    StageState.NOT_APPLICABLE: Reach.NOT_APPLICABLE,
    StageState.NOT_MEASURED: Reach.UNKNOWN,  # the default, upgraded by cited spans
}

_REACHES: Final = {r.value: r for r in Reach}
# The rows the disagreement check reads (no latency: it reads reach only), shared.
_ROWS: Final = {(s, r.value): StageMeasurementRow(s, r) for s in STAGES for r in Reach}


class ChainRow(Protocol):
    """A chain row as the check reads it (`StageResult`, or a validated persisted row)."""

    @property
    def stage(self) -> Stage: ...
    @property
    def state(self) -> StageState: ...


def reach_for_state(state: StageState) -> Reach:
    """`reachForStageState`: the reach a state implies on its own."""
    return REACH_FOR_STATE[state]


def reach_is_consistent_with_state(state: StageState, reach: Reach) -> bool:
    """Every state pins its reach, except `notMeasured`, which admits unknown or reached."""
    if state is StageState.NOT_MEASURED:
        return reach in (Reach.UNKNOWN, Reach.REACHED)
    return reach is REACH_FOR_STATE[state]


def stage_measurement_disagreements(
    measurements: StageMeasurements,
    stage_results: Sequence[ChainRow],
    stage_analyzer_version: int,
) -> list[str]:
    """`stageMeasurementDisagreements`: why measurements do not describe this chain."""
    problems: list[str] = []
    if measurements.stage_analyzer_version != stage_analyzer_version:
        problems.append(
            f"stageAnalyzerVersion {measurements.stage_analyzer_version} does not match "
            f"the chain's {stage_analyzer_version}"
        )
    for index, stage in enumerate(STAGES):
        if index >= len(measurements.rows) or index >= len(stage_results):
            problems.append(f"stage '{stage}' is missing from one of the two payloads")
            continue
        row, decided = measurements.rows[index], stage_results[index]
        if row.stage is not stage or decided.stage is not stage:
            problems.append(f"stage '{stage}' is out of order")
        elif not reach_is_consistent_with_state(decided.state, row.reach):
            problems.append(
                f"stage '{stage}' reports reach '{row.reach}', which state "
                f"'{decided.state}' does not admit"
            )
    return problems


def measurement_problems(
    measurements: Mapping[str, object],
    stage_results: Sequence[ChainRow],
    stage_analyzer_version: int,
) -> list[str]:
    """Why persisted measurements (`StageMeasurementsV1` wire form: `{schemaVersion,
    stageAnalyzerVersion, rows: [{stage, reach, latency?}]}`) fail the §4 validator — six rows
    in stage order with a known reach, latency only on selection/call/response and only when
    reached — or disagree with a chain that passed §2.1; empty when they are verified."""
    rows = measurements.get("rows")
    if not isinstance(rows, list):
        return ["no rows"]
    problems: list[str] = []
    if measurements.get("schemaVersion") != STAGE_MEASUREMENTS_SCHEMA_VERSION:
        problems.append(f"schemaVersion {measurements.get('schemaVersion')!r} is not 1")
    version = measurements.get("stageAnalyzerVersion")
    if not isinstance(version, int) or isinstance(version, bool):
        problems.append(f"stageAnalyzerVersion {version!r} is not an integer")
    if len(rows) != len(STAGES):
        problems.append(f"{len(rows)} rows, not {len(STAGES)}")
    typed: list[StageMeasurementRow] = []
    for stage, row in zip(STAGES, rows, strict=False):
        found = _row_problem(stage, row)
        if found is not None:
            problems.append(found)
        else:
            typed.append(_ROWS[stage, row["reach"]])
    if problems:
        return problems
    assert isinstance(version, int)
    return stage_measurement_disagreements(
        StageMeasurements(tuple(typed), version), stage_results, stage_analyzer_version
    )


def measurements_wire(
    rows: Iterable[tuple[int, str | None, float | None]],
    schema_version: int | None,
    stage_analyzer_version: int,
) -> dict[str, object]:
    """Measurements stored or exported as rows — (index, reach, latency ms) — in their wire
    form, as sent: rows 0–5 by index (an index not sent is a row with its stage and nothing
    else), then any other index, which names no stage."""
    by_index = {index: (reach, latency) for index, reach, latency in rows}
    wire: list[dict[str, object]] = []
    for i in [*range(len(STAGES)), *sorted(k for k in by_index if not 0 <= k < len(STAGES))]:
        row: dict[str, object] = {"stage": STAGES[i].value} if 0 <= i < len(STAGES) else {}
        reach, latency = by_index.get(i, (None, None))
        if reach is not None:
            row["reach"] = reach
        if latency is not None:
            row["latency"] = {
                "unit": LATENCY_UNIT,
                "basis": LATENCY_BASIS_EVIDENCE_SPAN_UNION,
                "value": latency,
            }
        wire.append(row)
    return {
        "schemaVersion": schema_version,
        "stageAnalyzerVersion": stage_analyzer_version,
        "rows": wire,
    }


def _row_problem(stage: Stage, row: object) -> str | None:
    """What keeps one row from being §4's row for ``stage`` (None: it is one)."""
    if not isinstance(row, Mapping):
        return f"the row for stage '{stage}' is not an object"
    if row.get("stage") != stage.value:
        return f"the row for stage '{stage}' names {row.get('stage')!r} (out of order)"
    reach = row.get("reach")
    if reach is None:
        return f"stage '{stage}' has no reach"
    if reach not in _REACHES:
        return f"stage '{stage}' reports an unknown reach {reach!r}"
    if row.get("latency") is not None:
        if stage not in LATENCY_ELIGIBLE_STAGES:
            return f"stage '{stage}' carries a latency (only selection, call and response may)"
        if reach != Reach.REACHED.value:
            return f"stage '{stage}' carries a latency with reach '{reach}' (only when reached)"
    return None


def check_persisted(
    chain_rows: Iterable[tuple[str | None, str | None, str | None, str | None]],
    outcome: tuple[int, str | None, str | None],
    measurements: Iterable[tuple[int, str | None, float | None]] | None,
    schema_version: int | None,
) -> tuple[bool, list[str] | None]:
    """A producer's persisted chain as rows (stage, state, reason, evidence JSON) in index
    order with its outcome (analyzer version, first failed stage, failure category), and its
    measurements as rows (index, reach, latency ms; None: none sent): whether the chain passes
    the §2.1 validator, and what keeps the measurements from being verified — None when they
    are not checked: none sent, the chain fails §2.1, or it or they are ahead of this reader
    (version-excluded, never read, §7.3)."""
    version, first, category = outcome
    checked = validate_chain(
        {
            "stageResults": [_chain_row_wire(*row) for row in chain_rows],
            "stageAnalyzerVersion": version,
            **({} if first is None else {"firstFailedStage": first}),
            **({} if category is None else {"failureCategory": category}),
        }
    )
    if checked is None:
        return False, None
    if measurements is None or version > STAGE_ANALYZER_VERSION:
        return True, None
    if schema_version is not None and schema_version > STAGE_MEASUREMENTS_SCHEMA_VERSION:
        return True, None
    wire = measurements_wire(measurements, schema_version, version)
    return True, measurement_problems(wire, checked["stages"], version)


def _chain_row_wire(
    stage: str | None, state: str | None, reason: str | None, evidence: str | None
) -> dict[str, object]:
    """A chain row as stored or exported (evidence as JSON text) in its wire form
    (`StageResultRow`): absent fields left out, evidence that is not JSON kept as a value the
    §2.1 validator refuses."""
    out: dict[str, object] = {}
    for key, value in (("stage", stage), ("state", state), ("reason", reason)):
        if value is not None:
            out[key] = value
    if evidence is not None:
        try:
            out["evidence"] = orjson.loads(evidence)
        except orjson.JSONDecodeError:
            out["evidence"] = None  # not an object: the validator refuses it
    return out
