"""The one frame the evidence passes build, pass by pass (`evidence.passes.PASSES`).

A batch's span and attribute rows go in; each pass reads what earlier passes put in the frame
and returns a new frame with what it adds (`dataclasses.replace`): nothing is changed in
place, so any pass can be run again on the same frame and gives the same frame. Which pass
fills which field is said beside the field; a field read before its pass ran is a mistake in
the order of `PASSES`, and `need` says so rather than passing None on.

The frame holds only polars/Arrow frames, plain tuples and the frozen inputs, so that this
module imports no pass: every pass imports it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

import polars as pl
import pyarrow as pa

from valuechain.contract.derivation import StageDerivationInput
from valuechain.evidence.attributes import Attributes
from valuechain.evidence.frames import Frame
from valuechain.evidence.groups import RootObjects, TrialGroups
from valuechain.evidence.issues import EvidenceIssue, TrialLog

SourceRuns = Mapping[int, str | bytes]
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class EvidenceFrame:
    """One batch's evidence as the passes have built it so far."""

    # the input (`build_trials`)
    span_rows: Frame
    attribute_rows: Frame
    source_runs: SourceRuns | None = None
    # reading: normalised spans with their resource and class-wide columns; the attributes
    spans: pl.DataFrame | None = None
    attrs: Attributes | None = None
    # grouping: one row per trial; the spans of trials with their trial_index, t_contract
    trials: pl.DataFrame | None = None
    st: pl.DataFrame | None = None
    # roots: one row per trial (root columns and what its spans imply); repeated trial ids
    roots: pl.DataFrame | None = None
    repeated: frozenset[int] = frozenset()
    # tools: one row per tool-describing span; its columns per trial, for the assembler
    tools: pl.DataFrame | None = None
    tool_groups: TrialGroups | None = None
    # root objects, graders, set-up: what the assembler reads per trial
    root_objects: RootObjects | None = None
    graders: TrialGroups | None = None
    renders: TrialGroups | None = None
    setup: TrialGroups | None = None
    # inputs: one derivation input per trial; the calls the assembler joined
    inputs: tuple[StageDerivationInput | None, ...] | None = None
    joined_calls: tuple[tuple[Any, ...], ...] = ()
    # calls: one row per logical tool call
    calls: pl.DataFrame | None = None
    # producer: the persisted chain as typed rows
    producer_chain: pl.DataFrame | None = None
    producer_measurements: pl.DataFrame | None = None
    producer_outcome: pl.DataFrame | None = None
    # tables: the adapter's output tables
    trial_table: pa.Table | None = None
    tool_call_table: pa.Table | None = None
    timed_spans: pa.Table | None = None
    span_offsets: tuple[int, ...] = ()
    # every pass: (trial_index, §5.2 code) that exclude a trial; issues, in the order found
    codes: tuple[tuple[int, str], ...] = ()
    issues: tuple[EvidenceIssue, ...] = ()

    def logged(self, log: TrialLog) -> tuple[EvidenceIssue, ...]:
        """The frame's issues followed by those a pass found (its own log)."""
        return self.issues + tuple(log.issues)

    def coded(self, code: str, indexes: Iterable[int]) -> tuple[tuple[int, str], ...]:
        """The frame's exclusion codes followed by `code` for each of `indexes`."""
        return self.codes + tuple((i, code) for i in indexes)


def need(value: T | None, what: str) -> T:
    """`value`, which an earlier pass fills; None means `PASSES` runs out of order."""
    if value is None:
        raise RuntimeError(f"the evidence frame's {what} is read before the pass that fills it")
    return value
