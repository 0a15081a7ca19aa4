"""The per-trial tables (sql/schema/030–041): evidence's ``trials`` and what derives from it.

``trials`` (TRACE-FORMAT §3.7, §3.8) is stored as the evidence adapter builds it but for its
``trial_index``, and ``trial_issues`` in a column order kept from store version 1, so each
adapter shape is declared here and the stored one derived from it (``STORED_TRIAL_TABLES``);
the derivation's outputs (CONTRACT §2–§4) and the funnels' per-trial inputs are stored as built.
"""

from __future__ import annotations

import pyarrow as pa

from valuechain.contract.tables.types import SOURCE_ID, TRACE_ID, TS, table_schema

# One row per trial found in the store's traces (TRACE-FORMAT §3.7, §3.8). Identity columns
# are null when the export did not carry them: absent, never equal (CONTRACT §5.11).
TRIALS = table_schema(
    ("trial_id", pa.string(), False),
    ("trace_id", TRACE_ID, False),
    ("run_id", pa.string(), False),
    ("suite_id", pa.string(), True),
    ("case_id", pa.string(), True),
    ("case_key", pa.string(), True),
    ("case_title", pa.string(), True),
    ("intent", pa.string(), True),
    ("provider", pa.string(), True),
    ("model", pa.string(), True),
    ("host_key", pa.string(), True),
    ("host_name", pa.string(), True),
    ("execution_engine", pa.string(), True),
    ("status", pa.string(), True),
    ("repetition", pa.int32(), True),
    ("iteration_number", pa.int32(), True),
    ("is_negative", pa.bool_(), True),
    ("input_tokens", pa.int64(), True),
    ("output_tokens", pa.int64(), True),
    ("duration_ms", pa.float64(), True),
    ("started_at", TS, True),
    ("ended_at", TS, True),
    ("run_group_id", pa.string(), True),
    ("config_revision", pa.string(), True),
    ("case_set_fingerprint", pa.string(), True),
    ("run_status", pa.string(), True),
    ("materialization_state", pa.string(), True),
    ("trials_expected", pa.int32(), True),
    ("measurement_unit", pa.string(), True),
    ("run_completed_at", TS, True),
    ("contract_version", pa.int32(), True),
    ("producer_analyzer_version", pa.int32(), True),
    ("redacted", pa.bool_(), True),
    ("evidence_incomplete", pa.bool_(), False),
    ("integrity_codes", pa.list_(pa.string()), False),
    ("exclusion_class", pa.string(), True),
    ("root_span_id", pa.string(), False),
    ("source_id", SOURCE_ID, False),
    ("contract", pa.bool_(), False),
    ("project_id", pa.string(), True),
    ("run_number", pa.int64(), True),
    ("variant_key", pa.string(), True),
    ("trial_result", pa.string(), True),
    ("session_id", pa.string(), True),
)

# `trials` as the evidence adapter emits it: the stored columns after its own row index, which
# `tool_calls` and the derivation inputs join on; the store drops it (sql/derive/040).
EVIDENCE_TRIALS = TRIALS.insert(0, pa.field("trial_index", pa.int64(), nullable=False))

# One row per logical tool call (TRACE-FORMAT §2.4), in trial then call order. Not stored: the
# adapter's input to the derivation.
TOOL_CALLS = table_schema(
    ("trial_index", pa.int64(), False),
    ("trial_id", pa.string(), True),
    ("call_id", pa.string(), True),
    ("tool_name", pa.string(), True),
    ("requested", pa.bool_(), False),
    ("executed", pa.bool_(), False),
    ("outcome", pa.string(), True),
    ("status", pa.string(), True),
    ("span_id", pa.string(), True),
    ("span_count", pa.int32(), False),
    ("mcp_error_code", pa.int64(), True),
    ("prompt_index", pa.int64(), True),
)

# Derived tables (sql/schema/031–033): every row is keyed by trial, chain source and analyzer.
_CHAIN_KEY = (
    ("trial_id", pa.string(), False),
    ("run_id", pa.string(), False),
    ("source", pa.string(), False),  # 'derived' | 'producer'
    ("analyzer_version", pa.int32(), False),
)

STAGE_CHAIN = table_schema(
    *_CHAIN_KEY,
    ("stage_index", pa.int8(), False),
    ("stage", pa.string(), False),
    ("state", pa.string(), False),
    ("reason", pa.string(), True),
    ("evidence", pa.string(), True),
)

TRIAL_OUTCOME = table_schema(
    *_CHAIN_KEY,
    ("first_failed_stage", pa.string(), True),
    ("failure_category", pa.string(), True),
    ("chain_verified", pa.bool_(), True),
    ("measurements_present", pa.bool_(), False),
    ("measurements_verified", pa.bool_(), True),
    ("measurements_schema_version", pa.int32(), True),
    ("measurements_analyzer_version", pa.int32(), True),
    # valuechain's own check (CONTRACT §7.4): the measurements pass §4 and agree with the
    # chain; the producer's `measurements_verified` stays as sent. NULL: not checked.
    ("measurements_agree", pa.bool_(), True),
)

STAGE_MEASUREMENTS = table_schema(
    *_CHAIN_KEY,
    ("stage_index", pa.int8(), False),
    ("stage", pa.string(), False),
    ("reach", pa.string(), False),
    ("latency_ms", pa.float64(), True),
)

# Trial-level issues as the evidence adapter builds them (stored in sql/schema/034, below).
TRIAL_ISSUES = pa.schema(
    [
        pa.field("severity", pa.string(), nullable=False),
        pa.field("code", pa.string(), nullable=False),
        pa.field("trace_id", pa.string()),
        pa.field("span_id", pa.string()),
        pa.field("trial_id", pa.string()),
        pa.field("run_id", pa.string()),
        pa.field("key", pa.string()),
        pa.field("message", pa.string(), nullable=False),
        pa.field("hint", pa.string(), nullable=False),
        pa.field("occurrences", pa.int64(), nullable=False),
    ]
)

# The store keeps trial_issues' trace_id first (its place since store version 1, when it held
# BLOBs: sql/migrate/002), its hint nullable and its occurrences UINTEGER; the insert is BY
# NAME (sql/derive/044), so the adapter's order and wider count are taken as they are.
_STORED_TRIAL_ISSUES = pa.schema(
    [
        TRIAL_ISSUES.field("trace_id"),
        *(
            f.with_nullable(True)
            if f.name == "hint"
            else f.with_type(pa.uint32())
            if f.name == "occurrences"
            else f
            for f in TRIAL_ISSUES
            if f.name != "trace_id"
        ),
    ]
)

# Per-trial inputs of the funnels' setup tallies and evaluator exclusion (sql/schema/040–041).
SETUP_SIGNALS = table_schema(
    ("trial_id", pa.string(), False),
    ("run_id", pa.string(), False),
    ("phase", pa.string(), False),  # SetupPhase
    ("outcome", pa.string(), False),
    ("attribution", pa.string(), True),
    ("egress_verified", pa.bool_(), True),
    ("duration_ms", pa.float64(), True),
)

TRIAL_FLAGS = table_schema(
    ("trial_id", pa.string(), False),
    ("run_id", pa.string(), False),
    ("evaluator_errored", pa.bool_(), True),
)

# What each trace's chains were last derived from (sql/schema/047): a trace whose spans differ
# now, or one with no row, has evidence newer than its chains (`recompute` re-derives it).
DERIVED_EVIDENCE = table_schema(
    ("trace_id", TRACE_ID, False),
    ("span_count", pa.int64(), False),
    ("last_span_row", pa.int64(), False),
)

# The per-trial tables as `core` stores them, in DDL order (sql/schema/030–041).
STORED_TRIAL_TABLES: dict[str, pa.Schema] = {
    "trials": TRIALS,
    "stage_chain": STAGE_CHAIN,
    "trial_outcome": TRIAL_OUTCOME,
    "stage_measurements": STAGE_MEASUREMENTS,
    "trial_issues": _STORED_TRIAL_ISSUES,
    "setup_signals": SETUP_SIGNALS,
    "trial_flags": TRIAL_FLAGS,
}
