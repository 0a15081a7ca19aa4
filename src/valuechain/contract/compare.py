"""The run comparison document `valuechain compare A B` prints, and its case-change vocabulary.

A comparison is a claim only when the two runs measured comparable things (CONTRACT §5.11):
`blockers` come first and, when there is any, `comparable` is false, every stage `delta` is
null, and `cases` is null unless the caller forced the listing (`forced`), which is then not
a comparison claim. A rate that is `notMeasured` on either side gives a null delta, never a
number. Not a contract document: its keys follow the contract's camelCase (DESIGN.md), and
null is a value here (an absent delta), unlike in the documents of CONTRACT §0.2.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any

from pydantic import MISSING, Field, PlainSerializer

from valuechain.contract.rates import StageRate
from valuechain.contract.tallies import NonEmpty, StageField, StrictModel
from valuechain.contract.vocab import ParityBlocker


class CaseChange(StrEnum):
    """How one case moved from run A to run B (the Compare view of seed 002), plus
    `inconclusive`: a side graded nothing, so neither pass nor fail can be claimed."""

    PASSED = "passed"
    STILL_FAILING = "stillFailing"
    REGRESSED = "regressed"
    FIXED = "fixed"
    NEW = "new"
    REMOVED = "removed"
    CHANGED = "changed"
    INCONCLUSIVE = "inconclusive"


class CaseVerdict(StrEnum):
    """A case's verdict in one run, as CONTRACT §6.3 words it."""

    PASSED = "passed"
    FAILED = "failed"
    INCONCLUSIVE = "inconclusive"


def _js_number(value: float) -> int | float:
    """Integral floats print without a fraction, as the documents' numbers do (§0.2 trap 3)."""
    return int(value) if value.is_integer() and abs(value) < 1e21 else value


# A difference B − A: signed, printed the way `JSON.stringify` prints numbers.
Delta = Annotated[float, PlainSerializer(_js_number, return_type=int | float, when_used="json")]
CaseChangeField = Annotated[CaseChange, Field(strict=False)]
CaseVerdictField = Annotated[CaseVerdict, Field(strict=False)]
BlockerField = Annotated[ParityBlocker, Field(strict=False)]


class StageRates(StrictModel):
    """The three rates of one stage of one run's overall slice (CONTRACT §5.8)."""

    measured_pass_rate: StageRate
    reach_rate: StageRate
    measurement_coverage_rate: StageRate


class RateDeltas(StrictModel):
    """B minus A per rate; null where either side is notMeasured."""

    measured_pass_rate: Delta | None
    reach_rate: Delta | None
    measurement_coverage_rate: Delta | None


class StageComparison(StrictModel):
    stage: StageField
    a: StageRates
    b: StageRates
    delta: RateDeltas | None  # null whenever the runs are not comparable


class CaseComparison(StrictModel):
    """One case: its verdict on each side (null where it did not run) and B minus A."""

    case_id: NonEmpty
    title: str | None
    change: CaseChangeField
    a: CaseVerdictField | None
    b: CaseVerdictField | None
    tokens_delta: int | None
    duration_ms_delta: Delta | None


class BlockerHint(StrictModel):
    """The producer setting that would supply an identity ``run_id`` lacks (``blocker``)."""

    run_id: NonEmpty
    blocker: BlockerField
    hint: NonEmpty


class RunComparison(StrictModel):
    """What `compare A B` says: blockers first, deltas only when there is none. ``hints``
    (present only for runs read from MCPJam SDK results) name the SDK option that would
    supply a missing identity."""

    a: NonEmpty
    b: NonEmpty
    blockers: list[BlockerField]
    comparable: bool
    unmeasured: list[NonEmpty]  # runs without the compared analytics document (§5.10)
    forced: bool  # cases listed although not comparable: not a comparison claim
    stages: list[StageComparison]
    cases: list[CaseComparison] | None
    hints: list[BlockerHint] | MISSING = MISSING

    def to_json(self) -> str:
        return self.model_dump_json(indent=2)


def compare_json_schema() -> dict[str, Any]:
    """The JSON Schema of `RunComparison`, generated from the model."""
    return RunComparison.model_json_schema(by_alias=True)
