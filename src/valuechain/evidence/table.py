"""The tables pass: the `trials`, `tool_calls` and timed-spans tables the adapter emits.

Their schemas are data in `contract.tables`: `trials` is `EVIDENCE_TRIALS` — the stored
columns of `sql/schema/030_trials.sql` (`TRIALS`) after the adapter's own `trial_index` —
and `tool_calls` is `TOOL_CALLS`. Identity columns are null when the export did not carry
them — absent, never equal (CONTRACT §5.11; TRACE-FORMAT §3.8).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import polars as pl
import pyarrow as pa

from valuechain.contract.issues import VERSION_CODES
from valuechain.contract.tables import EVIDENCE_TRIALS, TOOL_CALLS
from valuechain.evidence.evidence_frame import EvidenceFrame, need
from valuechain.evidence.frames import epoch_ms, timestamp
from valuechain.evidence.groups import offsets
from valuechain.evidence.readers import columns as c

# trials column ← root wide column, for the columns copied as sent (contract trials only).
_COPIED = {
    "suite_id": "mcp.app.suite.id",
    "case_id": "mcp.app.case.id",
    "case_key": "mcp.app.case.key",
    "case_title": "mcp.app.case.title",
    "intent": "mcp.app.case.intent",
    "host_key": "mcp.app.host.key",
    "host_name": "mcp.app.host.name",
    "execution_engine": "mcp.app.host.engine",
    "repetition": "mcp.app.trial.repetition",
    "iteration_number": "mcp.app.trial.iteration_number",
    "is_negative": "mcp.app.case.is_negative",
    "run_group_id": "mcp.app.run.group_id",
    "config_revision": "mcp.app.run.config_revision",
    "case_set_fingerprint": "mcp.app.run.case_set_fingerprint",
    "run_status": "mcp.app.run.status",
    "materialization_state": "mcp.app.run.materialization_state",
    "trials_expected": "mcp.app.run.trials_expected",
    "measurement_unit": "mcp.app.run.measurement_unit",
    "producer_analyzer_version": "mcp.app.analyzer.version",
    "project_id": "mcp.app.project.id",
    "run_number": "mcp.app.run.number",
    "variant_key": "mcp.app.trial.variant_key",
    "trial_result": "mcp.app.trial.result",
}


def tables_pass(frame: EvidenceFrame) -> EvidenceFrame:
    """Fills `trial_table`, `tool_call_table`, `timed_spans` and `span_offsets`."""
    roots, st = need(frame.roots, "roots"), need(frame.st, "st")
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
    return replace(
        frame,
        trial_table=trials_table(roots, frame.codes),
        tool_call_table=tool_calls_table(need(frame.calls, "calls"), roots),
        timed_spans=timed.to_arrow(),
        span_offsets=tuple(offsets(timed, roots.height)),
    )


def codes_frame(codes: Sequence[tuple[int, str]]) -> pl.DataFrame:
    """Per excluded trial (sparse: most trials have none) its §5.2 codes, each once, in the
    order the passes found them, and its exclusion class."""
    per_trial: dict[int, list[str]] = {}
    for trial_index, code in codes:
        found = per_trial.setdefault(trial_index, [])
        if code not in found:
            found.append(code)
    return pl.DataFrame(
        {
            "trial_index": list(per_trial),
            "integrity_codes": list(per_trial.values()),
            "exclusion_class": [exclusion_class(c) for c in per_trial.values()],
        },
        schema={
            "trial_index": pl.Int64,
            "integrity_codes": pl.List(pl.String),
            "exclusion_class": pl.String,
        },
    )


def exclusion_class(codes: Sequence[str]) -> str | None:
    """`version` before `integrity` (CONTRACT §5.4 order); None when nothing excludes."""
    if not codes:
        return None
    return "version" if any(c in VERSION_CODES for c in codes) else "integrity"


def trials_table(roots: pl.DataFrame, codes: Sequence[tuple[int, str]]) -> pa.Table:
    """`trials` from the per-trial root frame (vectorised) and the exclusion codes."""
    r, contract = roots, pl.col("contract")
    r = r.join(codes_frame(codes), on="trial_index", how="left", maintain_order="left")
    ended = timestamp(pl.col("end_ns"))
    completed = pl.col("mcp.app.run.completed_time").str.to_datetime(
        time_unit="ns", time_zone="UTC", strict=False
    )
    frame = r.select(
        "trial_index",
        "trial_id",
        pl.col("trace").str.decode("hex").alias("trace_id"),
        pl.col("root_span").alias("root_span_id"),
        "run_id",
        *(pl.col(src).alias(dst) for dst, src in _COPIED.items()),
        pl.when(contract)
        .then(pl.col("mcp.app.variant.provider"))
        .otherwise(pl.col("observed_provider"))
        .alias("provider"),
        pl.when(contract)
        .then(pl.col("mcp.app.variant.model"))
        .otherwise(pl.col("observed_model"))
        .alias("model"),
        pl.when(contract)
        .then(pl.col("mcp.app.trial.status"))
        .otherwise(pl.col("foreign_status"))
        .alias("status"),
        "input_tokens",
        "output_tokens",
        # signed: end < start (clock skew) stays negative, never swapped (§5.2)
        (
            (
                pl.col("end_ns").cast(pl.Int64, strict=False)
                - pl.col("start_ns").cast(pl.Int64, strict=False)
            )
            / 1e6
        ).alias("duration_ms"),
        timestamp(pl.col("start_ns")).alias("started_at"),
        ended.alias("ended_at"),
        # §3.5: readers fall back to the latest trial-root end time of the run
        pl.when(contract)
        .then(pl.coalesce(completed, ended.max().over("run_id")))
        .alias("run_completed_at"),
        pl.when(contract).then(pl.col("schema_version")).alias("contract_version"),
        "redacted",
        pl.col("evidence_incomplete").fill_null(False),
        pl.col("integrity_codes").fill_null(pl.lit([], dtype=pl.List(pl.String))),
        "exclusion_class",
        "source_id",
        "contract",
        # the session that joined the trial's traces, else the root's own session key
        pl.coalesce("session", c.APP_SESSION, c.CONVERSATION).alias("session_id"),
    )
    return frame.to_arrow().select(EVIDENCE_TRIALS.names).cast(EVIDENCE_TRIALS)


def tool_calls_table(calls: pl.DataFrame, roots: pl.DataFrame) -> pa.Table:
    """One row per logical tool call (TRACE-FORMAT §2.4), in trial then call order."""
    named = calls.join(
        roots.select("trial_index", "trial_id"),
        on="trial_index",
        how="left",
        maintain_order="left",
    )
    return named.to_arrow().select(TOOL_CALLS.names).cast(TOOL_CALLS)
