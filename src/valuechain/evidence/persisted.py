"""The check of a producer's persisted chains and measurements as sent (CONTRACT §2.1, §4).

`verify_persisted` runs the contract's persisted-shape validator once per shape of chain
(`check_persisted`), not once per trial, and reports what fails (`W_CHAIN_INVALID`); the
shape is the chain's text with what the check never reads blanked (`evidence_json`). Apart
from `evidence.producer`, which turns the root's keys into the rows checked here.
"""

from __future__ import annotations

from typing import Any

import orjson
import polars as pl

from valuechain.contract.issues import Code
from valuechain.contract.measurements import check_persisted
from valuechain.evidence.issues import EvidenceIssue, TrialLog

__all__ = ["evidence_json", "verify_persisted"]

_EVIDENCE = (
    ("evidence.span_ids", "spanIds"),
    ("evidence.prompt_indexes", "promptIndexes"),
    ("evidence.predicate_reasons", "predicateReasons"),
)


def evidence_json(blank: bool = False) -> pl.Expr:
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


def verify_persisted(
    chain: pl.DataFrame, measured: pl.DataFrame, outcome: pl.DataFrame, log: TrialLog
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
    analyzer version is `producer._unversioned_chains`' to report; measurements or a chain ahead of
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
            _encoded("name", "state", "reason", evidence_json(blank=True)).alias("rows_shape"),
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
    bad: list[tuple[int, str, str, str, str]], template: str, key: str, log: TrialLog
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
