"""One row per trial: its root's columns and what its spans imply (TRACE-FORMAT §3.7, §3.8).

The root's wide contract keys, token usage and the observed model of its LLM spans, whether
it has turns, a user ask or incomplete evidence, and its run id: `mcp.app.run.id` under the
contract, else one run per import source (`source_run_id`, §3.8). Every later step — the
assembler, the checks, the trials table — reads this frame.
"""

from __future__ import annotations

from dataclasses import replace

import polars as pl

from valuechain.evidence import contract_keys as ck
from valuechain.evidence import mcp_spans
from valuechain.evidence.attributes import Attributes
from valuechain.evidence.contract_keys import OwnerClass
from valuechain.evidence.evidence_frame import EvidenceFrame, SourceRuns, need
from valuechain.evidence.groups import gather_class
from valuechain.evidence.model_steps import inference_span, observed_variant
from valuechain.evidence.readers import columns as c


def source_run_id(sha256: str | bytes) -> str:
    """The run id of a foreign import source: `src-` + 12 hex digits of its sha256 (§3.8)."""
    text = sha256.hex() if isinstance(sha256, bytes) else sha256.lower()
    return "src-" + text[:12]


def roots_pass(frame: EvidenceFrame) -> EvidenceFrame:
    """Fills `roots` and `repeated`: the trial indexes whose trial id an earlier trial row
    already carries (one trial id yields at most one chain per source, §5.2; every such row
    is integrity-excluded)."""
    trials, st = need(frame.trials, "trials"), need(frame.st, "st")
    s, attrs = need(frame.spans, "spans"), need(frame.attrs, "attrs")
    roots = trial_roots(trials, s, st, attrs, frame.source_runs)
    ids = roots.select("trial_index", "trial_id").filter(pl.col("trial_id").is_not_null())
    repeated = ids.filter(~pl.col("trial_id").is_first_distinct())["trial_index"].to_list()
    return replace(frame, roots=roots, repeated=frozenset(repeated))


def trial_roots(
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
    root_keys = gather_class(
        attrs, OwnerClass.TRIAL, roots, contract & (pl.col("owner_class") == OwnerClass.TRIAL)
    )
    roots = pl.concat([roots, root_keys], how="horizontal")
    is_llm = inference_span()
    llm = st.filter(is_llm).sort("trial_index", "start_ns", "span_row", nulls_last=True)
    per_trial = (
        llm.group_by("trial_index")
        .agg(
            pl.col(c.INPUT_TOKENS).sum().alias("input_tokens"),
            pl.col(c.INPUT_TOKENS).count().alias("_n_in"),
            pl.col(c.OUTPUT_TOKENS).sum().alias("output_tokens"),
            pl.col(c.OUTPUT_TOKENS).count().alias("_n_out"),
        )
        .join(observed_variant(st, is_llm), on="trial_index", how="full", coalesce=True)
    )
    turns = st.filter(pl.col("t_contract") & (pl.col("role") == ck.Role.TURN))
    flags = st.group_by("trial_index").agg(
        (
            (
                (pl.col("t_contract") & pl.col("role").is_in((ck.Role.TOOL_CALL, ck.Role.GRADER)))
                | mcp_spans.is_tool_span()
            )
            & (pl.col("dropped") > 0)
        )
        .any()
        .alias("evidence_incomplete"),
        (pl.col("t_contract") & pl.col(c.REDACTION_DECLARED)).any().alias("_redacted_span"),
        pl.col("dup_group").is_not_null().any().alias("duplicate_conflict"),
    )
    user_ask = _user_ask_trials(st, attrs, trials["root_row"])
    with_content = _content_trials(st, attrs)
    roots = (
        roots.join(per_trial, on="trial_index", how="left", maintain_order="left")
        .join(flags, on="trial_index", how="left", maintain_order="left")
        .with_columns(
            pl.col("trial_index").is_in(llm["trial_index"].implode()).alias("_has_llm"),
            pl.col("trial_index").is_in(turns["trial_index"].implode()).alias("_has_turn"),
            pl.col("trial_index").is_in(user_ask.implode()).alias("has_user_ask"),
            pl.col("trial_index").is_in(with_content.implode()).alias("_has_content"),
        )
    )
    return roots.with_columns(
        # A contract root without its (required) trial id is integrity-excluded by the key
        # checks; it still needs an identity: its trace's, as a plain trace's trial has.
        pl.when(contract)
        .then(pl.col("mcp.app.trial.id").fill_null(pl.col("trace")))
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
        .when(pl.col("_has_llm") & ~pl.col("_has_content"))
        .then(pl.lit(True))
        .alias("redacted"),
        # a plain trace whose model steps carry no message content at all: the export left
        # content out (GenAI content capture is opt-in; OpenLLMetry's TRACELOOP_TRACE_CONTENT,
        # OpenInference's hide_inputs), so whether the user asked anything is not measured
        (~contract & pl.col("_has_llm") & ~pl.col("_has_content")).alias("content_redacted"),
    ).drop("_n_in", "_n_out", "_has_llm", "_has_turn", "_redacted_span", "_has_content")


def _user_ask_trials(st: pl.DataFrame, attrs: Attributes, root_rows: pl.Series) -> pl.Series:
    """Trials with a user message or a root `input.value` (§3.8 `hasUserAsk`)."""
    hits = st.select("span_row", "trial_index").join(attrs.user_signals, on="span_row")
    on_root = pl.col("span_row").is_in(root_rows.implode())
    asks = hits.filter(pl.col("message") | (pl.col("input_value") & on_root))
    return asks["trial_index"].unique()


def _content_trials(st: pl.DataFrame, attrs: Attributes) -> pl.Series:
    """Trials with any message or input content: a message of any role, an `input.value`."""
    hits = st.select("span_row", "trial_index").join(attrs.user_signals, on="span_row")
    return hits["trial_index"].unique()


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
