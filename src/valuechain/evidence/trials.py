"""Span rows → trials, their derivation inputs, the producer's chains and issues (TRACE-FORMAT §3).

`build_trials(spans, attributes, source_runs=…)` is the pure core of the evidence adapter.
Input frame shapes are documented in `evidence.frames`. Output (`TrialEvidence`):

- `trials` — one row per trial, columns `contract.tables.EVIDENCE_TRIALS` (identity, lifecycle,
  run identity, versions, redaction, exclusion hints); row `i` is trial index `i` everywhere
  below;
- `inputs[i]` — the trial's `StageDerivationInput` (§3.7 / §3.8), or None when the export's
  contract version is ahead of ours (never coerced, §5.2 W_VERSION_AHEAD);
- `tool_calls` — one row per logical tool call (§2.4);
- `producer_chain` / `producer_measurements` / `producer_outcome` — the persisted chain as
  typed rows for `source = 'producer'` (§3.7);
- `issues` — trial-level issues of §5.2 with trace/span pointers and hints;
- `spans` — (trial_index, span_id, started_at, ended_at in epoch ms) of every span of every
  trial, for the reach upgrade and latency of CONTRACT §4 (`timed_spans(i)`).

Everything up to the per-trial objects is vectorised in polars (one pivot per value kind over
the attribute rows we read); only the construction of the frozen input objects walks trials.

One module over the ~400-line guide, on purpose: `build_trials` is the adapter's one
entry point; it sequences the vectorised passes of the sibling modules, and `TrialEvidence`
is its output type.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import polars as pl
import pyarrow as pa

from valuechain.contract.derivation import StageDerivationInput, StageSpan
from valuechain.contract.issues import Code
from valuechain.contract.versions import STAGE_ANALYZER_VERSION, STAGE_MEASUREMENTS_SCHEMA_VERSION
from valuechain.evidence import contract_keys as ck
from valuechain.evidence import conventions as cv
from valuechain.evidence import prepare
from valuechain.evidence.attributes import Attributes, read_attributes
from valuechain.evidence.checks import check_contract_types, required_key_gaps
from valuechain.evidence.contract_keys import OwnerClass
from valuechain.evidence.frames import Frame, epoch_ms, first_non_null, normalise_spans
from valuechain.evidence.grouping import group_spans
from valuechain.evidence.inputs import Assembler
from valuechain.evidence.issues import EvidenceIssue, IssueLog
from valuechain.evidence.producer import producer_rows
from valuechain.evidence.table import Codes, TrialTable, tool_calls_table

__all__ = ["TrialEvidence", "build_trials", "source_run_id"]

SourceRuns = Mapping[int, str | bytes]


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


def source_run_id(sha256: str | bytes) -> str:
    """The run id of a foreign import source: `src-` + 12 hex digits of its sha256 (§3.8)."""
    text = sha256.hex() if isinstance(sha256, bytes) else sha256.lower()
    return "src-" + text[:12]


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
    trial_contract = grouping.trials.select("trial_index", pl.col("contract").alias("t_contract"))
    st = s.join(grouping.assigned, on="span_row", how="inner").join(
        trial_contract, on="trial_index", how="left"
    )
    check_contract_types(attrs.type_clashes, attrs.unknown_keys, s, log)
    roots = _roots(grouping.trials, s, st, attrs, source_runs)
    n = roots.height
    codes = _integrity_codes(roots, log)
    tools = prepare.tool_frame(st, attrs)
    prepare.report_transport_errors(tools, roots, log)
    assembler = Assembler(
        roots=prepare.root_objects(roots),
        tools=prepare.groups(tools, prepare.TOOL_COLUMNS, n),
        graders=prepare.grader_groups(st, attrs, n),
        renders=prepare.render_groups(st, attrs, n),
        setup=prepare.setup_groups(st, n),
        log=log,
    )
    inputs = tuple(assembler.build(n, roots["schema_ahead"].to_list()))
    for i in assembler.unknown_mode:
        codes.add(i, Code.W_UNKNOWN_AUTHORED_MODE.value)
    calls = prepare.tool_calls(tools, assembler.tool_call_rows, prepare.requests(st, attrs))
    producer = producer_rows(
        roots.with_columns(pl.col("root_row").alias("owner_row")),
        attrs.stages,
        attrs.measurements,
        st.select("trace", "span"),
        log,
    )
    _check_chain_versions(producer.outcome, codes, roots, log)
    _report_runs(roots, log)
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


# --------------------------------------------------------------------------- roots


def _roots(
    trials: pl.DataFrame,
    s: pl.DataFrame,
    st: pl.DataFrame,
    attrs: Attributes,
    source_runs: SourceRuns | None,
) -> pl.DataFrame:
    """One row per trial: the root's columns plus what the trial's spans imply."""
    roots = trials.join(
        s.drop("contract"),
        left_on="root_row",
        right_on="span_row",
        how="left",
        maintain_order="left",
    ).rename({"span": "root_span"})
    contract = pl.col("contract")
    # §3.8: mcp.app.* keys outside the contract are interpreted by nobody.
    root_keys = prepare.gather_class(
        attrs, OwnerClass.TRIAL, roots, contract & (pl.col("owner_class") == OwnerClass.TRIAL)
    )
    roots = pl.concat([roots, root_keys], how="horizontal")
    is_llm = (
        (pl.col("t_contract") & (pl.col("role") == ck.Role.LLM))
        | (pl.col("oi") == "LLM")
        | pl.col(cv.GENAI_OPERATION).is_in(cv.INFERENCE_OPERATIONS)
    )
    llm = st.filter(is_llm).sort("trial_index", "start_ns", "span_row", nulls_last=True)
    per_trial = llm.group_by("trial_index").agg(
        first_non_null(llm, cv.INPUT_TOKENS).sum().alias("input_tokens"),
        first_non_null(llm, cv.INPUT_TOKENS).count().alias("_n_in"),
        first_non_null(llm, cv.OUTPUT_TOKENS).sum().alias("output_tokens"),
        first_non_null(llm, cv.OUTPUT_TOKENS).count().alias("_n_out"),
        first_non_null(llm, cv.PROVIDER).drop_nulls().first().alias("observed_provider"),
        first_non_null(llm, cv.REQUEST_MODEL).drop_nulls().first().alias("observed_model"),
    )
    turns = st.filter(pl.col("t_contract") & (pl.col("role") == ck.Role.TURN))
    flags = st.group_by("trial_index").agg(
        (
            (
                (pl.col("t_contract") & pl.col("role").is_in((ck.Role.TOOL_CALL, ck.Role.GRADER)))
                | (pl.col("oi") == "TOOL")
                | (pl.col(cv.GENAI_OPERATION) == cv.EXECUTE_TOOL)
                | (pl.col(cv.MCP_METHOD) == cv.TOOLS_CALL)
            )
            & (pl.col("dropped") > 0)
        )
        .any()
        .alias("evidence_incomplete"),
        (pl.col("t_contract") & pl.col("mcp.app.redacted_keys").is_not_null())
        .any()
        .alias("_redacted_span"),
        pl.col("dup_group").is_not_null().any().alias("duplicate_conflict"),
    )
    user_ask = _user_ask_trials(st, attrs, trials["root_row"])
    roots = (
        roots.join(per_trial, on="trial_index", how="left", maintain_order="left")
        .join(flags, on="trial_index", how="left", maintain_order="left")
        .with_columns(
            pl.col("trial_index").is_in(llm["trial_index"].implode()).alias("_has_llm"),
            pl.col("trial_index").is_in(turns["trial_index"].implode()).alias("_has_turn"),
            pl.col("trial_index").is_in(user_ask.implode()).alias("has_user_ask"),
        )
    )
    return roots.with_columns(
        pl.when(contract)
        .then(pl.col("mcp.app.trial.id"))
        .otherwise(pl.col("trace"))
        .alias("trial_id"),
        pl.when(contract & pl.col("mcp.app.run.id").is_not_null())
        .then(pl.col("mcp.app.run.id"))
        .otherwise(_source_runs_expr(roots, source_runs))
        .alias("run_id"),
        pl.when(contract)
        .then(
            pl.col("_has_llm")
            | pl.col("_has_turn")
            | (pl.col("mcp.app.case.turn_count").fill_null(0) > 0)
        )
        .otherwise(pl.col("_has_llm"))
        .alias("needs_model"),
        pl.when(pl.col("status_code") == 2)
        .then(pl.lit("failed"))
        .otherwise(pl.lit("completed"))
        .alias("foreign_status"),
        pl.when(pl.col("_n_in") > 0).then(pl.col("input_tokens")).alias("input_tokens"),
        pl.when(pl.col("_n_out") > 0).then(pl.col("output_tokens")).alias("output_tokens"),
        (contract & (pl.col("schema_version") > ck.SUPPORTED_CONTRACT_VERSION)).alias(
            "schema_ahead"
        ),
        pl.when(pl.col("_redacted_span"))
        .then(pl.lit(True))
        .when(contract)
        .then(pl.col("include_content").not_())
        .alias("redacted"),
    ).drop("_n_in", "_n_out", "_has_llm", "_has_turn", "_redacted_span")


def _user_ask_trials(st: pl.DataFrame, attrs: Attributes, root_rows: pl.Series) -> pl.Series:
    """Trials with a user message or a root `input.value` (§3.8 `hasUserAsk`)."""
    hits = st.select("span_row", "trial_index").join(attrs.user_signals, on="span_row")
    on_root = pl.col("span_row").is_in(root_rows.implode())
    asks = hits.filter(pl.col("message") | (pl.col("input_value") & on_root))
    return asks["trial_index"].unique()


def _source_runs_expr(roots: pl.DataFrame, source_runs: SourceRuns | None) -> pl.Expr:
    needed = (
        roots.filter(~pl.col("contract") | pl.col("mcp.app.run.id").is_null())["source_id"]
        .unique()
        .to_list()
    )
    runs = {} if source_runs is None else source_runs
    missing = [sid for sid in needed if sid not in runs]
    if missing:
        raise ValueError(
            f"build_trials: source_runs has no sha256 for source_id(s) {sorted(missing)}. "
            "Hint: foreign traces (TRACE-FORMAT §3.8) form one run per import source; pass "
            "source_runs={source_id: sha256} (decode_export(...).sha256 for a decoded source)"
        )
    mapping = {sid: source_run_id(runs[sid]) for sid in needed}
    return pl.col("source_id").replace_strict(mapping, default=None, return_dtype=pl.String)


# --------------------------------------------------------------------------- integrity


def _integrity_codes(roots: pl.DataFrame, log: IssueLog) -> Codes:
    """Per excluded trial, the §5.2 codes that exclude it (class `version` or `integrity`)."""
    codes = Codes()
    flagged = {
        Code.W_MULTIPLE_TRIAL_ROOTS: roots["multiple_trial_roots"],
        Code.W_DUPLICATE_CONFLICT: roots["duplicate_conflict"].fill_null(False),
        Code.E_PARENT_CYCLE: roots["cycle"],
    }
    for code, mask in flagged.items():
        for i in mask.arg_true().to_list():
            codes.add(i, code.value)
    for i, _ in required_key_gaps(roots, log):
        codes.add(i, Code.W_CONTRACT_TYPE.value)
    for i in _trial_id_conflicts(roots, log):
        codes.add(i, Code.W_TRIAL_ID_CONFLICT.value)
    for i in _versions_ahead(roots, log):
        codes.add(i, Code.W_VERSION_AHEAD.value)
    return codes


def _check_chain_versions(
    outcome: pl.DataFrame, codes: Codes, roots: pl.DataFrame, log: IssueLog
) -> None:
    """`mcp.app.analyzer.version` is required whenever a persisted chain is present (§3.5)."""
    unversioned = outcome.filter(pl.col("analyzer_version").is_null())
    if unversioned.is_empty():
        return
    indexes = unversioned["trial_index"].to_list()
    for i in indexes:
        codes.add(i, Code.W_CONTRACT_TYPE.value)
    first = roots.row(indexes[0], named=True)
    log.add(
        EvidenceIssue(
            Code.W_CONTRACT_TYPE,
            f"a persisted chain without mcp.app.analyzer.version ({len(indexes)} trial"
            f"{'s' * (len(indexes) != 1)}); the trial is integrity-excluded",
            trace_id=first["trace"],
            span_id=first["root_span"],
            trial_id=first["trial_id"],
            run_id=first["run_id"],
            key="mcp.app.analyzer.version",
            occurrences=len(indexes),
        )
    )


def _trial_id_conflicts(roots: pl.DataFrame, log: IssueLog) -> list[int]:
    ids = roots.filter(pl.col("contract") & pl.col("trial_id").is_not_null())
    clash = (
        ids.group_by("trial_id")
        .agg(
            pl.col("trace").n_unique().alias("traces"),
            pl.col("trace"),
            pl.col("root_span"),
            pl.col("trial_index"),
            pl.col("run_id").first(),
        )
        .filter(pl.col("traces") > 1)
        .sort("trial_id")
    )
    out: list[int] = []
    for trial_id, _, traces, root_spans, indexes, run_id in clash.iter_rows():
        out.extend(indexes)
        for trace, span in zip(traces, root_spans, strict=True):
            log.add(
                EvidenceIssue(
                    Code.W_TRIAL_ID_CONFLICT,
                    f"trial id {trial_id!r} is the trial root of {len(set(traces))} traces",
                    trace_id=trace,
                    span_id=span,
                    trial_id=trial_id,
                    run_id=run_id,
                    key="mcp.app.trial.id",
                )
            )
    return out


def _versions_ahead(roots: pl.DataFrame, log: IssueLog) -> list[int]:
    """Contract, producer-analyzer or measurement versions newer than ours (§5.2, §7.3)."""
    checks = (
        ("schema_version", ck.SUPPORTED_CONTRACT_VERSION, "mcp.app.export.schema_version"),
        ("mcp.app.analyzer.version", STAGE_ANALYZER_VERSION, "mcp.app.analyzer.version"),
        (
            "mcp.app.measurements.schema_version",
            STAGE_MEASUREMENTS_SCHEMA_VERSION,
            "mcp.app.measurements.schema_version",
        ),
    )
    out: set[int] = set()
    for column, supported, key in checks:
        ahead = roots.filter(pl.col("contract") & (pl.col(column) > supported))
        if ahead.is_empty():
            continue
        out.update(ahead["trial_index"].to_list())
        per_version = ahead.group_by(column, maintain_order=True).agg(
            pl.len(),
            pl.col("trace").first(),
            pl.col("root_span").first(),
            pl.col("trial_id").first(),
            pl.col("run_id").first(),
        )
        for version, n, trace, span, trial_id, run_id in per_version.iter_rows():
            log.add(
                EvidenceIssue(
                    Code.W_VERSION_AHEAD,
                    f"{key} = {version} is newer than this reader's {supported} "
                    f"({n} trial{'s' * (n != 1)})",
                    trace_id=trace,
                    span_id=span,
                    trial_id=trial_id,
                    run_id=run_id,
                    key=key,
                    occurrences=n,
                )
            )
    return sorted(out)


def _report_runs(roots: pl.DataFrame, log: IssueLog) -> None:
    """`W_RUN_INCOMPLETE_IN_EXPORT`: fewer trials than `mcp.app.run.trials_expected` (§5.2)."""
    runs = (
        roots.filter(pl.col("contract") & pl.col("mcp.app.run.id").is_not_null())
        .group_by("run_id", maintain_order=True)
        .agg(
            pl.col("trial_id").n_unique().alias("found"),
            pl.col("mcp.app.run.trials_expected").max().alias("expected"),
            pl.col("mcp.app.trial.status")
            .is_in(("pending", "skipped"))
            .sum()
            .alias("not_attempted"),
            pl.col("trace").first(),
            pl.col("root_span").first(),
        )
        .filter(pl.col("expected").is_not_null() & (pl.col("found") < pl.col("expected")))
    )
    for run_id, found, expected, not_attempted, trace, span in runs.iter_rows():
        log.add(
            EvidenceIssue(
                Code.W_RUN_INCOMPLETE_IN_EXPORT,
                f"{found} of {expected} trials are in this export ({expected - found} missing); "
                f"{not_attempted} of those found were marked pending or skipped by the producer",
                trace_id=trace,
                span_id=span,
                run_id=run_id,
                key="mcp.app.run.trials_expected",
                occurrences=expected - found,
            )
        )


_PRODUCER_ROOT_COLUMNS = [
    "mcp.app.analyzer.version",
    "mcp.app.stages.first_failed",
    "mcp.app.trial.failure_category",
    "mcp.app.chain.verified",
    "mcp.app.measurements.verified",
    "mcp.app.measurements.schema_version",
]
