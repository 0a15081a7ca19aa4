"""What the passes hand the assembler (`inputs.Assembler`): per-trial row ranges and objects.

Every frame prepared for the assembler is sorted by (trial_index, start time, span_row) with
`by_trial` and cut into per-trial ranges with `offsets`: that order is stated here, once.
`gather_class` takes the class-wide attribute columns of some span rows.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import polars as pl

from valuechain.contract.derivation import (
    IterationInfo,
    PolicyInfo,
    SetupSignal,
    StageAuthoredCase,
    StepError,
    ToolSignals,
)
from valuechain.evidence.attributes import Attributes
from valuechain.evidence.contract_keys import OwnerClass

Columns = dict[str, list[Any]]

# Grader row categories (what a row feeds), computed vectorised in `prepare.py`.
GRADER_PROMPT, GRADER_PREDICATE, GRADER_JUDGE, GRADER_ATTRIBUTION = 0, 1, 2, 3


@dataclass(slots=True)
class TrialGroups:
    """Row ranges per trial in a per-role column set: `offsets[i]:offsets[i + 1]`."""

    columns: Columns
    offsets: list[int]


@dataclass(slots=True)
class RootObjects:
    """Per trial, the shared objects and plain values read from the root (vectorised)."""

    contract: list[bool]
    trace: list[str]
    root_span: list[str]
    trial_id: list[str]
    run_id: list[str]
    authored: list[StageAuthoredCase | None]  # None: infer (absent or unknown mode)
    mode: list[str | None]
    iteration: list[IterationInfo]
    policy: list[PolicyInfo | None]
    step_error: list[StepError | None]
    tool_signals: list[ToolSignals | None]
    connection: list[SetupSignal | None]
    discovery: list[SetupSignal | None]
    trace_absent: list[bool | None]
    lacks_channel: list[bool | None]
    evaluator_errored: list[bool | None]
    facts: Columns  # §2.3 inference inputs, read only for trials that need it


def offsets(frame: pl.DataFrame, n: int) -> list[int]:
    """Row where each trial's range starts in `frame` (sorted by trial_index), plus the end."""
    if frame.is_empty():
        return [0] * (n + 1)
    found = frame["trial_index"].search_sorted(pl.Series(range(n + 1), dtype=pl.Int64), side="left")
    return found.to_list()


def groups(frame: pl.DataFrame, columns: Sequence[str], n: int) -> TrialGroups:
    """Column lists of `frame` (sorted by trial_index) and each trial's row range."""
    return TrialGroups(frame.select(columns).to_dict(as_series=False), offsets(frame, n))


def by_trial(frame: pl.DataFrame) -> pl.DataFrame:
    return frame.sort(["trial_index", "start_ns", "span_row"], nulls_last=True)


def gather_class(
    attrs: Attributes, cls: OwnerClass, frame: pl.DataFrame, when: pl.Expr
) -> pl.DataFrame:
    """The class-wide columns of `cls` for the rows of `frame` (null where `when` is false)."""
    wide = attrs.wide[cls]
    index = frame.select(pl.when(when).then(pl.col("class_pos")).alias("i"))["i"]
    if wide.width == 0:
        return pl.DataFrame(height=frame.height)
    return wide.select(pl.all().gather(index))
