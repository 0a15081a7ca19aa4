"""Span rows → trials, their derivation inputs, the producer's chains and issues (TRACE-FORMAT §3).

`build_trials(spans, attributes, source_runs=…)` is the pure core of the evidence adapter.
Input frame shapes are documented in `evidence.frames`. Output (`TrialEvidence`):

- `trials` — one row per trial, columns `contract.tables.EVIDENCE_TRIALS` (identity, lifecycle,
  run identity, versions, redaction, exclusion hints); row `i` is trial index `i` everywhere
  below;
- `inputs[i]` — the trial's `StageDerivationInput` (§3.7 / §3.8), or None when the export's
  contract version is ahead of ours (never coerced, §5.2 W_VERSION_AHEAD) or when an earlier
  trial row carries the same trial id (one trial id, at most one chain per source);
- `tool_calls` — one row per logical tool call (§2.4);
- `producer_chain` / `producer_measurements` / `producer_outcome` — the persisted chain as
  typed rows for `source = 'producer'` (§3.7);
- `issues` — trial-level issues of §5.2 with trace/span pointers and hints;
- `spans` — (trial_index, span_id, started_at, ended_at in epoch ms) of every span of every
  trial, for the reach upgrade and latency of CONTRACT §4 (`timed_spans(i)`).

Everything up to the per-trial objects is vectorised in polars (one pivot per value kind over
the attribute rows we read); only the construction of the frozen input objects walks trials.
The steps are `evidence.passes.PASSES`, run in order over one `EvidenceFrame`.
"""

from __future__ import annotations

from dataclasses import dataclass

import pyarrow as pa

from valuechain.contract.derivation import StageDerivationInput, StageSpan
from valuechain.evidence import passes
from valuechain.evidence.evidence_frame import EvidenceFrame, SourceRuns, need
from valuechain.evidence.frames import Frame
from valuechain.evidence.issues import issues_arrow

__all__ = ["TrialEvidence", "build_trials"]


@dataclass(frozen=True, slots=True)
class TrialEvidence:
    """Everything the adapter derives from one set of traces; row `i` = trial index `i`."""

    trials: pa.Table
    inputs: tuple[StageDerivationInput | None, ...]
    tool_calls: pa.Table
    producer_chain: pa.Table
    producer_measurements: pa.Table
    producer_outcome: pa.Table
    issues: pa.Table
    spans: pa.Table
    span_offsets: tuple[int, ...]

    def timed_spans(self, i: int) -> tuple[StageSpan, ...]:
        """Every span of trial `i` with its epoch-ms interval (for `derive_measurements`)."""
        lo, hi = self.span_offsets[i], self.span_offsets[i + 1]
        return tuple(_stage_spans(self.spans.slice(lo, hi - lo)))

    def every_timed_spans(self) -> list[tuple[StageSpan, ...]]:
        """`timed_spans` of every trial, converted from Arrow once (the derive step's loop)."""
        spans, offsets = _stage_spans(self.spans), self.span_offsets
        return [tuple(spans[offsets[i] : offsets[i + 1]]) for i in range(len(offsets) - 1)]


def _stage_spans(table: pa.Table) -> list[StageSpan]:
    return [
        StageSpan(id=s, started_at=a, ended_at=b)
        for s, a, b in zip(
            table.column("span_id").to_pylist(),
            table.column("started_at").to_pylist(),
            table.column("ended_at").to_pylist(),
            strict=True,
        )
    ]


def build_trials(
    spans: Frame, attributes: Frame, *, source_runs: SourceRuns | None = None
) -> TrialEvidence:
    """Group span rows into trials and map each to its derivation input (TRACE-FORMAT §3.7).

    Args:
        spans: span rows (see `evidence.frames` for the columns).
        attributes: long attribute rows of those spans and of their resources.
        source_runs: source_id → sha256 of the import source (hex or bytes); foreign traces
            (§3.8) form one run per source, `src-<12 hex>`. Required when any trial is
            foreign; spans without a `source_id` column are source 0.

    Raises:
        ValueError: a foreign trial's source is missing from `source_runs`.
    """
    built = passes.run_passes(EvidenceFrame(spans, attributes, source_runs=source_runs))
    return TrialEvidence(
        trials=need(built.trial_table, "trial_table"),
        inputs=need(built.inputs, "inputs"),
        tool_calls=need(built.tool_call_table, "tool_call_table"),
        producer_chain=need(built.producer_chain, "producer_chain").to_arrow(),
        producer_measurements=need(built.producer_measurements, "measurements").to_arrow(),
        producer_outcome=need(built.producer_outcome, "producer_outcome").to_arrow(),
        issues=issues_arrow(built.issues),
        spans=need(built.timed_spans, "timed_spans"),
        span_offsets=built.span_offsets,
    )
