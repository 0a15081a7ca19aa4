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
This module only sequences the passes of its siblings (`attributes`, `grouping`, `roots`,
`tree`, `integrity`, `prepare`, `prepare_tools`, `inputs`, `producer`, `table`).
"""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl
import pyarrow as pa

from valuechain.contract.derivation import StageDerivationInput, StageSpan
from valuechain.contract.issues import Code
from valuechain.evidence import prepare, prepare_tools
from valuechain.evidence.attributes import read_attributes
from valuechain.evidence.checks import check_contract_types
from valuechain.evidence.contract_keys import OwnerClass
from valuechain.evidence.frames import Frame, epoch_ms, normalise_spans
from valuechain.evidence.grouping import group_spans
from valuechain.evidence.inputs import Assembler
from valuechain.evidence.integrity import check_chain_versions, integrity_codes, report_runs
from valuechain.evidence.issues import IssueLog
from valuechain.evidence.producer import producer_rows
from valuechain.evidence.roots import SourceRuns, trial_roots
from valuechain.evidence.table import TrialTable, tool_calls_table
from valuechain.evidence.tree import report_tree

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


def _repeated_trial_ids(roots: pl.DataFrame) -> list[int]:
    """Trial indexes whose trial id an earlier trial row already carries."""
    ids = roots.select("trial_index", "trial_id").filter(pl.col("trial_id").is_not_null())
    return ids.filter(~pl.col("trial_id").is_first_distinct())["trial_index"].to_list()


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
    log = IssueLog()
    s = normalise_spans(spans)
    attrs = read_attributes(attributes, s)
    s = s.join(attrs.resources, on="resource_row", how="left", maintain_order="left")
    s = pl.concat(
        [s.with_columns(pl.col("contract").fill_null(False)), attrs.wide[OwnerClass.ALL]],
        how="horizontal",
    )
    grouping = group_spans(s, attrs.trial_key_owners, log)
    report_tree(s, log)
    trial_contract = grouping.trials.select("trial_index", pl.col("contract").alias("t_contract"))
    st = s.join(grouping.assigned, on="span_row", how="inner").join(
        trial_contract, on="trial_index", how="left"
    )
    check_contract_types(attrs.type_clashes, attrs.unknown_keys, s, log)
    roots = trial_roots(grouping.trials, s, st, attrs, source_runs)
    n = roots.height
    codes = integrity_codes(roots, log)
    tools = prepare_tools.tool_frame(st, attrs)
    prepare_tools.report_transport_errors(tools, roots, log)
    assembler = Assembler(
        roots=prepare.root_objects(roots),
        tools=prepare.groups(tools, prepare_tools.TOOL_COLUMNS, n),
        graders=prepare.grader_groups(st, attrs, n),
        renders=prepare.render_groups(st, attrs, n),
        setup=prepare.setup_groups(st, n),
        log=log,
    )
    # One trial id yields at most one chain per source (§5.2): a later row of an id already
    # seen (several roots or traces carry it; every such row is integrity-excluded) gets none.
    repeated = set(_repeated_trial_ids(roots))
    inputs = tuple(
        None if i in repeated else inp
        for i, inp in enumerate(assembler.build(n, roots["schema_ahead"].to_list()))
    )
    for i in assembler.unknown_mode:
        codes.add(i, Code.W_UNKNOWN_AUTHORED_MODE.value)
    calls = prepare_tools.tool_calls(
        tools, assembler.tool_call_rows, prepare_tools.requests(st, attrs)
    )
    producer = producer_rows(
        roots.with_columns(pl.col("root_row").alias("owner_row")).filter(
            ~pl.col("trial_index").is_in(list(repeated))
        ),
        attrs.stages,
        attrs.measurements,
        st.select("trace", "span"),
        log,
    )
    check_chain_versions(producer.outcome, codes, roots, log)
    for i in producer.invalid:
        codes.add(i, Code.W_CHAIN_INVALID.value)
    report_runs(roots, log)
    trials = TrialTable(roots, codes).build()
    timed = (
        st.select(
            "trial_index",
            pl.col("span").alias("span_id"),
            epoch_ms(pl.col("start_ns")).alias("started_at"),
            epoch_ms(pl.col("end_ns")).alias("ended_at"),
            "start_ns",
            "span_row",
        )
        .sort(["trial_index", "start_ns", "span_row"], nulls_last=True)
        .drop("start_ns", "span_row")
    )
    return TrialEvidence(
        trials=trials,
        inputs=inputs,
        tool_calls=tool_calls_table(calls, roots),
        producer_chain=producer.chain.to_arrow(),
        producer_measurements=producer.measurements.to_arrow(),
        producer_outcome=producer.outcome.to_arrow(),
        issues=log.to_arrow(),
        spans=timed.to_arrow(),
        span_offsets=tuple(prepare.offsets(timed, n)),
    )
