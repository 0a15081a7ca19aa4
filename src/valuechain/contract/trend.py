"""The trend document `valuechain trend --format json` prints (issue 13, CONTRACT §5.8, §5.11).

Runs are grouped into partitions by the five parity keys of §5.11; within a partition they are
a series ordered by completion time, each run with its own rates per stage — never a sum or a
merge of tallies across runs (§5.8: a listing is a trend series, not an aggregate). A run that
cannot join any partition (its parity against itself is blocked) is listed in `blocked` with
its blockers in §5.11's emission order; a run without a document of the kind read is listed in
`unmeasured` — neither is ever folded into a partition as zero. Keys are camelCase (DESIGN.md).
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated

from pydantic import MISSING, Field, PlainSerializer

from valuechain.contract.documents import Slice
from valuechain.contract.rates import StageRate
from valuechain.contract.tallies import NonEmpty, StageField, StrictModel, Version
from valuechain.contract.vocab import ParityBlocker


def _iso_utc(moment: dt.datetime) -> str:
    """ISO-8601 UTC with microseconds and ``Z``, as every other JSON the CLI prints."""
    return moment.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


Moment = Annotated[dt.datetime, PlainSerializer(_iso_utc, return_type=str, when_used="json")]
BlockerField = Annotated[ParityBlocker, Field(strict=False)]


class PartitionKey(StrictModel):
    """The parity keys every run of a partition shares (CONTRACT §5.11)."""

    run_group_id: NonEmpty
    config_revision: NonEmpty
    case_set_fingerprint: NonEmpty
    stage_analyzer_version: Version
    measurements_schema_version: Version


class TrendStage(StrictModel):
    """One stage of one slice of one run: the three rates of §5.8, each with its state."""

    stage: StageField
    slice: Slice
    measured_pass_rate: StageRate
    reach_rate: StageRate
    measurement_coverage_rate: StageRate


class TrendRun(StrictModel):
    """One run of a partition's series; ``completed_at`` None sorts it last."""

    run_id: NonEmpty
    completed_at: Moment | None
    stages: list[TrendStage]


class TrendPartition(StrictModel):
    key: PartitionKey
    runs: Annotated[list[TrendRun], Field(min_length=1)]


class BlockedRun(StrictModel):
    """A run whose parity against itself is blocked: it joins no partition."""

    run_id: NonEmpty
    blockers: Annotated[list[BlockerField], Field(min_length=1)]
    hint: NonEmpty | MISSING = MISSING  # MCPJam SDK runs: the option that would supply an identity


class UnmeasuredRun(StrictModel):
    """A run without a document of the kind read (§5.10): unmeasured, not zero."""

    run_id: NonEmpty
    document_blocker: NonEmpty | MISSING = MISSING


class TrendDocument(StrictModel):
    """``{"partitions": [...], "blocked": [...], "unmeasured": [...]}``; the CLI's bytes are
    built by ``report.trend.trend_json`` and validate against this model."""

    partitions: list[TrendPartition]
    blocked: list[BlockedRun]
    unmeasured: list[UnmeasuredRun]
