"""The producer's persisted chain and measurements, as typed rows (TRACE-FORMAT §3.5, §3.7).

`mcp.app.stages.<i>.*` and `mcp.app.measurements.<i>.*` on the trial root become plain rows
a later step stores with `source = 'producer'`: kept exactly as sent — never repaired,
never coerced — so that CONTRACT §2.1/§4/§7.4 verification and the derived-vs-producer diff
run on what the producer said. Rows 0–5 arrive as wide root columns; any other index as long
rows. Evidence span ids that do not resolve to a span of the same trace are listed per row
and reported (`W_EVIDENCE_SPAN_UNRESOLVED`); a chain that fails §2.1, or measurements that
disagree with it, are reported (`W_CHAIN_INVALID`) and excluded, never repaired (the
check: `evidence.persisted`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

import polars as pl

from valuechain.contract.issues import Code
from valuechain.contract.vocab_rules import STAGES
from valuechain.evidence import contract_keys as ck
from valuechain.evidence.evidence_frame import EvidenceFrame, need
from valuechain.evidence.issues import EvidenceIssue, TrialLog
from valuechain.evidence.persisted import evidence_json, verify_persisted

SOURCE_PRODUCER = "producer"
_KEYS = ["trial_index", "trial_id", "run_id"]


@dataclass(frozen=True, slots=True)
class ProducerRows:
    """The persisted chain (6 rows per trial), measurements, and one outcome row per trial."""

    chain: pl.DataFrame
    measurements: pl.DataFrame
    outcome: pl.DataFrame  # with `measurements_agree`: valuechain's check (None: not checked)
    invalid: tuple[int, ...] = ()  # trial indexes whose chain fails CONTRACT §2.1


def producer_pass(frame: EvidenceFrame) -> EvidenceFrame:
    """Fills the producer's chain, measurements and outcome of trials not repeated; adds the
    codes of chains without an analyzer version (§3.5) and of invalid chains (§2.1)."""
    roots, st, attrs = need(frame.roots, "roots"), need(frame.st, "st"), need(frame.attrs, "attrs")
    log = TrialLog()
    producer = producer_rows(
        roots.with_columns(pl.col("root_row").alias("owner_row")).filter(
            ~pl.col("trial_index").is_in(list(frame.repeated))
        ),
        attrs.stages,
        attrs.measurements,
        st.select("trace", "span"),
        log,
    )
    unversioned = _unversioned_chains(producer.outcome, roots, log)
    invalid = tuple((i, Code.W_CHAIN_INVALID.value) for i in producer.invalid)
    return replace(
        frame,
        producer_chain=producer.chain,
        producer_measurements=producer.measurements,
        producer_outcome=producer.outcome,
        codes=frame.coded(Code.W_CONTRACT_TYPE.value, unversioned) + invalid,
        issues=frame.logged(log),
    )


def _unversioned_chains(outcome: pl.DataFrame, roots: pl.DataFrame, log: TrialLog) -> list[int]:
    """Trials with a persisted chain but no `mcp.app.analyzer.version`, which it requires
    (§3.5): reported once, each integrity-excluded."""
    indexes: list[int] = outcome.filter(pl.col("analyzer_version").is_null())[
        "trial_index"
    ].to_list()
    if not indexes:
        return indexes
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
    return indexes


def _rows(
    roots: pl.DataFrame,
    long: pl.DataFrame,
    fields: dict[str, ck.Kind],
    key: object,
) -> pl.DataFrame:
    """One row per (trial, index) that carries any field: rows 0–5 from the root's wide
    columns, other indexes from the long rows; columns idx + one per field."""
    head_columns = [*_KEYS, "owner_row", "trace", "analyzer_version"]
    head = roots.select(head_columns)
    dtypes = {f: pl.Float64 if k is ck.Kind.NUM else pl.String for f, k in fields.items()}
    parts = []
    for i in range(ck.CHAIN_LENGTH):
        columns = {f: key(i, f) for f in fields}  # type: ignore[operator]
        part = roots.select(
            *head_columns,
            pl.lit(i, dtype=pl.Int64).alias("idx"),
            *(pl.col(c).cast(dtypes[f]).alias(f) for f, c in columns.items()),
        ).filter(pl.any_horizontal(pl.col(f).is_not_null() for f in fields))
        parts.append(part)
    extra = long.filter(pl.col("owner_row").is_in(roots["owner_row"].implode()))
    if not extra.is_empty():
        parts.append(_long_rows(head, extra, dtypes))
    return pl.concat(parts).sort("trial_index", "idx")


def _long_rows(
    head: pl.DataFrame, rows: pl.DataFrame, dtypes: Mapping[str, type[pl.DataType]]
) -> pl.DataFrame:
    """Indexes other than 0–5, first value per field (rare: such a chain fails §2.1)."""
    out = rows.select("owner_row", pl.col("index1").alias("idx")).unique(maintain_order=True)
    for name, dtype in dtypes.items():
        column = "fval" if dtype is pl.Float64 else "text"
        values = (
            rows.filter((pl.col("field") == name) & pl.col(column).is_not_null())
            .group_by("owner_row", "index1", maintain_order=True)
            .agg(pl.col(column).first().alias(name))
            .rename({"index1": "idx"})
        )
        out = out.join(values, on=["owner_row", "idx"], how="left").with_columns(
            pl.col(name).cast(dtype)
        )
    return head.join(out, on="owner_row", how="inner").select(*head.columns, "idx", *dtypes)


def _stage_name() -> pl.Expr:
    return pl.col("idx").replace_strict(
        {i: s.value for i, s in enumerate(STAGES)}, default=None, return_dtype=pl.String
    )


def producer_rows(
    roots: pl.DataFrame,
    stage_rows: pl.DataFrame,
    measurement_rows: pl.DataFrame,
    trace_spans: pl.DataFrame,
    log: TrialLog,
) -> ProducerRows:
    """Persisted chains of the trial roots.

    Args:
        roots: one row per trial: trial_index, owner_row (root span row), trial_id, run_id,
            trace and the root's wide columns (`mcp.app.stages.<0–5>.*`, …).
        stage_rows / measurement_rows: `mcp.app.stages.<i>.*` / `.measurements.<i>.*` rows
            with other indexes (owner_row, index1, field, typed values).
        trace_spans: (trace, span) of every span of the trials' traces.
    """
    roots = roots.with_columns(
        pl.col("mcp.app.analyzer.version").cast(pl.Int32).alias("analyzer_version")
    )
    chain = _rows(roots, stage_rows, dict(ck.STAGE_FIELDS), ck.stage_key)
    chain = chain.with_columns(
        pl.col("evidence.span_ids").str.json_decode(pl.List(pl.String)).alias("span_ids"),
        pl.col("evidence.prompt_indexes")
        .str.json_decode(pl.List(pl.Int64))
        .alias("prompt_indexes"),
        pl.col("evidence.predicate_reasons")
        .str.json_decode(pl.List(pl.String))
        .alias("predicate_reasons"),
        evidence_json().alias("evidence"),
    )
    chain = _unresolved(chain, trace_spans)
    _report_unresolved(chain, log)
    raw_chain = chain
    chain = chain.select(
        *_KEYS,
        pl.lit(SOURCE_PRODUCER).alias("source"),
        "analyzer_version",
        pl.col("idx").cast(pl.Int16).alias("stage_index"),
        pl.coalesce(pl.col("name"), _stage_name()).alias("stage"),
        "state",
        "reason",
        "evidence",
        "span_ids",
        "prompt_indexes",
        "predicate_reasons",
        "unresolved_span_ids",
    )
    measured = _rows(roots, measurement_rows, dict(ck.MEASUREMENT_FIELDS), ck.measurement_key)
    measurements = measured.select(
        *_KEYS,
        pl.lit(SOURCE_PRODUCER).alias("source"),
        "analyzer_version",
        pl.col("idx").cast(pl.Int16).alias("stage_index"),
        _stage_name().alias("stage"),
        "reach",
        "latency_ms",
    )
    outcome = _outcome(roots, chain, measurements)
    invalid, agree = verify_persisted(raw_chain, measured, outcome, log)
    outcome = outcome.with_columns(
        pl.col("trial_index")
        .replace_strict(agree, default=None, return_dtype=pl.Boolean)
        .alias("measurements_agree")
    )
    # A row without a stage or a state cannot be stored (its chain fails §2.1: excluded), nor
    # a measurement without a reach or of no stage (they fail §4: excluded from the producer's
    # funnels, the rest kept as sent).
    whole = chain.filter(pl.col("stage").is_not_null() & pl.col("state").is_not_null())
    kept = measurements.filter(pl.col("stage").is_not_null() & pl.col("reach").is_not_null())
    return ProducerRows(whole, kept, outcome, invalid)


def _unresolved(chain: pl.DataFrame, trace_spans: pl.DataFrame) -> pl.DataFrame:
    """Per chain row, the cited span ids that are not spans of the trial's trace (§3.7)."""
    keys = ["trial_index", "idx"]
    cited = (
        chain.select(*keys, "trace", pl.col("span_ids").alias("span"))
        .explode("span")
        .filter(pl.col("span").is_not_null())
    )
    missing = (
        cited.join(trace_spans, on=["trace", "span"], how="anti")
        .group_by(keys, maintain_order=True)
        .agg(pl.col("span").alias("unresolved_span_ids"))
    )
    return chain.join(missing, on=keys, how="left", maintain_order="left").with_columns(
        pl.col("unresolved_span_ids").fill_null(pl.lit([], dtype=pl.List(pl.String)))
    )


def _report_unresolved(chain: pl.DataFrame, log: TrialLog) -> None:
    bad = chain.filter(pl.col("unresolved_span_ids").list.len() > 0)
    for trial_id, run_id, trace, idx, name, spans in bad.select(
        "trial_id", "run_id", "trace", "idx", "name", "unresolved_span_ids"
    ).iter_rows():
        log.add(
            EvidenceIssue(
                Code.W_EVIDENCE_SPAN_UNRESOLVED,
                f"stage {idx} ({name}) cites span id(s) {', '.join(spans)} not found in the trace",
                trace_id=trace,
                span_id=spans[0],
                trial_id=trial_id,
                run_id=run_id,
                key=f"mcp.app.stages.{idx}.evidence.span_ids",
            )
        )


def _outcome(roots: pl.DataFrame, chain: pl.DataFrame, measurements: pl.DataFrame) -> pl.DataFrame:
    has_measurements = measurements["trial_index"].unique().implode()
    carriers = pl.concat([chain["trial_index"], measurements["trial_index"]]).unique().implode()
    measured = pl.col("trial_index").is_in(has_measurements)
    return (
        roots.filter(pl.col("trial_index").is_in(carriers))
        .sort("trial_index")
        .select(
            *_KEYS,
            pl.lit(SOURCE_PRODUCER).alias("source"),
            "analyzer_version",
            pl.col("mcp.app.stages.first_failed").alias("first_failed_stage"),
            pl.col("mcp.app.trial.failure_category").alias("failure_category"),
            pl.col("mcp.app.chain.verified").alias("chain_verified"),
            measured.alias("measurements_present"),
            pl.col("mcp.app.measurements.verified").alias("measurements_verified"),
            pl.col("mcp.app.measurements.schema_version")
            .cast(pl.Int32)
            .alias("measurements_schema_version"),
            # The export carries one analyzer version for the chain and its measurements.
            pl.when(measured)
            .then(pl.col("analyzer_version"))
            .alias("measurements_analyzer_version"),
        )
    )
