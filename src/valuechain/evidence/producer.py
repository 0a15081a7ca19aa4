"""The producer's persisted chain and measurements, as typed rows (TRACE-FORMAT §3.5, §3.7).

`mcp.app.stages.<i>.*` and `mcp.app.measurements.<i>.*` on the trial root become plain rows
a later step stores with `source = 'producer'`: kept exactly as sent — never repaired,
never coerced — so that CONTRACT §2.1/§4/§7.4 verification and the derived-vs-producer diff
run on what the producer said. Rows 0–5 arrive as wide root columns; any other index as long
rows. Evidence span ids that do not resolve to a span of the same trace are listed per row
and reported (`W_EVIDENCE_SPAN_UNRESOLVED`); a chain that fails §2.1, or measurements that
disagree with it, are reported (`W_CHAIN_INVALID`) and excluded, never repaired.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import orjson
import polars as pl

from valuechain.contract.issues import Code
from valuechain.contract.measurements import check_persisted
from valuechain.contract.vocab_rules import STAGES
from valuechain.evidence import contract_keys as ck
from valuechain.evidence.issues import EvidenceIssue, IssueLog

SOURCE_PRODUCER = "producer"
_KEYS = ["trial_index", "trial_id", "run_id"]
_EVIDENCE = (
    ("evidence.span_ids", "spanIds"),
    ("evidence.prompt_indexes", "promptIndexes"),
    ("evidence.predicate_reasons", "predicateReasons"),
)


@dataclass(frozen=True, slots=True)
class ProducerRows:
    """The persisted chain (6 rows per trial), measurements, and one outcome row per trial."""

    chain: pl.DataFrame
    measurements: pl.DataFrame
    outcome: pl.DataFrame  # with `measurements_agree`: valuechain's check (None: not checked)
    invalid: tuple[int, ...] = ()  # trial indexes whose chain fails CONTRACT §2.1


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


def _evidence_json(blank: bool = False) -> pl.Expr:
    """`StageEvidenceRefs` JSON as sent: keys that were present, empty lists kept (Q17);
    ``blank``: with every plain list of strings' strings emptied (`_blank_strings`)."""
    pieces = [
        pl.when(pl.col(column).is_not_null()).then(
            pl.lit(f'"{wire}":') + (_blank_strings(pl.col(column)) if blank else pl.col(column))
        )
        for column, wire in _EVIDENCE
    ]
    body = pl.concat_str(pieces, separator=",", ignore_nulls=True)
    return pl.when(body != "").then(pl.lit("{") + body + pl.lit("}"))


# A JSON array of strings without escapes or control characters (span ids, predicate reasons).
_WS = r"[ \t\n\r]*"
_PLAIN_STRING = r'"[^"\\\x00-\x1f]*"' + _WS
_PLAIN_STRINGS = rf"^{_WS}\[{_WS}(?:{_PLAIN_STRING}(?:,{_WS}{_PLAIN_STRING})*)?\]{_WS}$"


def _blank_strings(text: pl.Expr) -> pl.Expr:
    """A plain JSON array of strings with each string emptied (`["a","b"]` → `["",""]`);
    any other text as it is. Emptying keeps the text valid JSON exactly when it was, and the
    same types: what the §2.1 check reads of evidence (every value typed, none read)."""
    return (
        pl.when(text.str.contains(_PLAIN_STRINGS))
        .then(text.str.replace_all(r'"[^"]*"', '""'))
        .otherwise(text)
    )


def _stage_name() -> pl.Expr:
    return pl.col("idx").replace_strict(
        {i: s.value for i, s in enumerate(STAGES)}, default=None, return_dtype=pl.String
    )


def producer_rows(
    roots: pl.DataFrame,
    stage_rows: pl.DataFrame,
    measurement_rows: pl.DataFrame,
    trace_spans: pl.DataFrame,
    log: IssueLog,
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
        _evidence_json().alias("evidence"),
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
    invalid, agree = _verify(raw_chain, measured, outcome, log)
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


def _verify(
    chain: pl.DataFrame, measured: pl.DataFrame, outcome: pl.DataFrame, log: IssueLog
) -> tuple[tuple[int, ...], dict[int, bool]]:
    """Check each persisted chain, as sent, with the CONTRACT §2.1 persisted-shape validator
    (six rows in stage order, known states and reasons, typed evidence, `firstFailedStage` the
    first failed row's), then its measurements against it (§4, §7.4: six rows with a known
    reach the row's state admits, latency only where §4 allows). Returns the trials whose
    chain fails, and per checked trial whether its measurements agree.

    Each failure is `W_CHAIN_INVALID`, one issue per kind naming the first trial and the
    count; nothing is repaired. A failing chain integrity-excludes its trial
    (`chainUnverified`; a row without a stage or state is not stored at all); measurements
    that disagree exclude it from the producer's funnels (`measurementsInvalid`, through
    `measurements_agree`: the producer's own verdict stays as sent). A chain without an
    analyzer version is `check_chain_versions`' to report; measurements or a chain ahead of
    this reader are version-excluded, never read (§7.3), so not checked."""
    heads = outcome.filter(pl.col("analyzer_version").is_not_null()).select(
        "trial_index",
        "trial_id",
        "run_id",
        "first_failed_stage",
        "failure_category",
        "analyzer_version",
        "measurements_schema_version",
    )
    shaped = (
        chain.sort("trial_index", "idx")
        .group_by("trial_index", maintain_order=True)
        .agg(
            _encoded("name", "state", "reason", _evidence_json(blank=True)).alias("rows_shape"),
            pl.len().alias("row_count"),
            pl.col("trace").first(),
        )
    )
    sent = (
        measured.sort("trial_index", "idx")
        .group_by("trial_index", maintain_order=True)
        .agg(_encoded("idx", "reach", pl.col("latency_ms").is_not_null()).alias("measured_shape"))
    )
    joined = heads.join(shaped, on="trial_index", how="inner", maintain_order="left").join(
        sent, on="trial_index", how="left", maintain_order="left"
    )
    # Trials sent chains of one shape share one verdict: the first one's chain is checked.
    # The shape is all the check reads: evidence lists of plain strings with the strings
    # blanked (typed, never read) and each latency's presence (its value is not read); the
    # properties in tests/evidence/test_producer_shape.py hold the check to that. Only those
    # first trials' rows are encoded in full, and the verdicts reach every trial by a join.
    keys = ["first_failed_stage", "failure_category", "analyzer_version"]
    keys += ["measurements_schema_version", "rows_shape", "measured_shape"]
    firsts = joined.unique(subset=keys, keep="first", maintain_order=True)
    sent_rows = _sent_rows(chain, measured, firsts.select("trial_index", *keys[:4]))
    verdicts: dict[str, list[object]] = {"chain_ok": [], "agree": [], "problem": []}
    for _, first, category, version, schema, chain_rows, m in sent_rows.iter_rows():
        chain_ok, problems = check_persisted(
            (_chain_row(r) for r in _decoded(chain_rows)),
            (version, first, category),
            None if m is None else (_measured_row(r) for r in _decoded(m)),
            schema,
        )
        verdicts["chain_ok"].append(chain_ok)
        verdicts["agree"].append(None if not chain_ok or problems is None else not problems)
        verdicts["problem"].append(problems[0] if chain_ok and problems else None)
    verdict = pl.concat(
        [firsts.select(keys), pl.DataFrame(verdicts, schema=_VERDICT)], how="horizontal"
    )
    judged = joined.join(verdict, on=keys, how="left", nulls_equal=True, maintain_order="left")
    head = ["trial_index", "trial_id", "run_id", "trace"]
    failing = judged.filter(~pl.col("chain_ok"))
    bad_chains = [
        (i, trial_id, run_id, trace, f"{count} rows")
        for i, trial_id, run_id, trace, count in failing.select(*head, "row_count").iter_rows()
    ]
    checked = judged.filter(pl.col("agree").is_not_null())
    agree = dict(zip(checked["trial_index"].to_list(), checked["agree"].to_list(), strict=True))
    bad_measurements: list[tuple[int, str, str, str, str]] = list(
        checked.filter(~pl.col("agree")).select(*head, "problem").iter_rows()
    )
    _report_invalid(
        bad_chains,
        "the persisted chain of {n} fails the CONTRACT §2.1 shape check (first: trial {trial}, "
        "{why}); integrity-excluded, kept as sent",
        "mcp.app.stages",
        log,
    )
    _report_invalid(
        bad_measurements,
        "the persisted measurements of {n} disagree with the persisted chain (CONTRACT §4; "
        "first: trial {trial}: {why}); excluded from the producer's funnels as "
        "integrity/measurementsInvalid, kept as sent",
        "mcp.app.measurements",
        log,
    )
    return tuple(b[0] for b in bad_chains), agree


_VERDICT = {"chain_ok": pl.Boolean, "agree": pl.Boolean, "problem": pl.String}


def _sent_rows(chain: pl.DataFrame, measured: pl.DataFrame, heads: pl.DataFrame) -> pl.DataFrame:
    """``heads`` (trial_index first) with each trial's persisted chain and measurements as
    sent, encoded (`_encoded`): what `check_persisted` reads."""
    wanted = pl.col("trial_index").is_in(heads["trial_index"].implode())
    rows = (
        chain.filter(wanted)
        .sort("trial_index", "idx")
        .group_by("trial_index", maintain_order=True)
        .agg(_encoded("name", "state", "reason", "evidence").alias("rows"))
    )
    sent = (
        measured.filter(wanted)
        .sort("trial_index", "idx")
        .group_by("trial_index", maintain_order=True)
        .agg(_encoded("idx", "reach", pl.col("latency_ms").cast(pl.String)).alias("measured"))
    )
    return heads.join(rows, on="trial_index", how="left", maintain_order="left").join(
        sent, on="trial_index", how="left", maintain_order="left"
    )


_SEPARATOR = "\n"  # between JSON-encoded rows: JSON text never holds a raw newline


def _encoded(*fields: str | pl.Expr) -> pl.Expr:
    """A trial's rows as one text: each row's fields as JSON, rows apart (for `_verify`)."""
    return pl.struct(*fields).struct.json_encode().str.join(_SEPARATOR)


def _decoded(rows: str) -> list[dict[str, Any]]:
    return [orjson.loads(row) for row in rows.split(_SEPARATOR)]


def _chain_row(
    row: dict[str, Any],
) -> tuple[str | None, str | None, str | None, str | None]:
    return row["name"], row["state"], row["reason"], row["evidence"]


def _measured_row(row: dict[str, Any]) -> tuple[int, str | None, float | None]:
    latency = row["latency_ms"]  # as text: NaN and infinities survive JSON
    return row["idx"], row["reach"], None if latency is None else float(latency)


def _report_invalid(
    bad: list[tuple[int, str, str, str, str]], template: str, key: str, log: IssueLog
) -> None:
    if not bad:
        return
    _, trial_id, run_id, trace, why = bad[0]
    n = f"{len(bad)} trial{'s' * (len(bad) != 1)}"
    log.add(
        EvidenceIssue(
            Code.W_CHAIN_INVALID,
            template.format(n=n, trial=trial_id, why=why),
            trace_id=trace,
            trial_id=trial_id,
            run_id=run_id,
            key=key,
            occurrences=len(bad),
        )
    )


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


def _report_unresolved(chain: pl.DataFrame, log: IssueLog) -> None:
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
