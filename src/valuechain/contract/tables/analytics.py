"""The materialized analytics tables (CONTRACT §5, sql/schema/042–046), filled by sql/analytics.

Every row is keyed by its document (run, chain source, reader analyzer version) and the
per-slice ones by their slice too, so those keys are declared once here and shared by the
tables that carry them.
"""

from __future__ import annotations

import pyarrow as pa

from valuechain.contract.tables.types import HUGEINT, JSON_METADATA, TS, table_schema

# Run-level facts gathered from a run's trials (CONTRACT §5.1, §5.10). Token sums are HUGEINT
# (DuckDB's `sum` of the trials' BIGINTs).
RUN_SUMMARY = table_schema(
    ("run_id", pa.string(), False),
    ("suite_id", pa.string(), True),
    ("run_group_id", pa.string(), True),
    ("config_revision", pa.string(), True),
    ("case_set_fingerprint", pa.string(), True),
    ("run_status", pa.string(), True),
    ("run_terminal", pa.bool_(), False),
    ("exported_materialization_state", pa.string(), True),
    ("trials_expected", pa.int32(), True),
    ("trial_rows", pa.int64(), False),
    ("started_at", TS, True),
    ("completed_at", TS, True),
    ("completed_at_exported", pa.bool_(), False),
    ("input_tokens", HUGEINT, True),
    ("output_tokens", HUGEINT, True),
    ("duration_ms", pa.float64(), True),
    ("trials_duration_ms", pa.float64(), True),
    ("conflicting_identity", pa.list_(pa.string()), False),
    ("document_blocker", pa.string(), True),
)

# Every analytics row is keyed by its document: run, chain source, reader analyzer version.
_DOCUMENT_KEY = (
    ("run_id", pa.string(), False),
    ("chain_source", pa.string(), False),  # 'derived' | 'producer'
    ("analyzer_version", pa.int32(), False),
)

# The slice a per-slice row belongs to (CONTRACT §5.2): index 0 is `overall`.
_SLICE_KEY = (
    *_DOCUMENT_KEY,
    ("slice_index", pa.int32(), False),
    ("slice_dimension", pa.string(), False),
    ("intent", pa.string(), True),
    ("provider", pa.string(), True),
    ("model", pa.string(), True),
    ("host_key", pa.string(), True),
)

# Trial-level exclusion counts per class (CONTRACT §5.5).
_EXCLUDED = (
    ("excluded_lifecycle", pa.int64(), False),
    ("excluded_integrity", pa.int64(), False),
    ("excluded_version", pa.int64(), False),
)


def _counted(*item: pa.Field) -> pa.DataType:
    """A list of (item…, count) structs: a tally in vocabulary order, zero counts omitted."""
    return pa.list_(pa.struct([*item, pa.field("count", pa.int64())]))


ANALYTICS_RUNS = table_schema(
    *_DOCUMENT_KEY,
    ("stage_analyzer_version", pa.int32(), False),
    ("source_stage_analyzer_versions", pa.list_(pa.int32()), True),
    ("measurements_schema_version", pa.int32(), False),
    ("source_measurements_schema_versions", pa.list_(pa.int32()), True),
    ("materialization_state", pa.string(), False),
    ("run_completed_at", TS, True),
    ("included_trials", pa.int64(), False),
    ("total_trials", pa.int64(), False),
    *_EXCLUDED,
    ("excluded_trial_detail", _counted(pa.field("detail", pa.string())), False),
    ("created_at", TS, False),
    ("updated_at", TS, False),
)

# The stage analytics documents verbatim (CONTRACT §5, §5.12).
ANALYTICS_DOCUMENTS = table_schema(
    *_DOCUMENT_KEY,
    pa.field("document", pa.string(), nullable=False, metadata=JSON_METADATA),
)

ANALYTICS_SLICES = table_schema(
    *_SLICE_KEY,
    ("host_name", pa.string(), True),
    ("execution_engine", pa.string(), True),
    ("included_trials", pa.int64(), False),
    *_EXCLUDED,
    ("failure_categories", _counted(pa.field("category", pa.string())), False),
)

# Per-stage tallies of each retained slice (CONTRACT §5.3), counts only.
STAGE_FUNNEL = table_schema(
    *_SLICE_KEY,
    ("stage_index", pa.int8(), False),
    ("stage", pa.string(), False),
    ("applicable", pa.int64(), False),
    ("reached", pa.int64(), False),
    ("not_reached", pa.int64(), False),
    ("reach_unknown", pa.int64(), False),
    ("measured", pa.int64(), False),
    ("passed", pa.int64(), False),
    ("failed", pa.int64(), False),
    ("not_measured", pa.int64(), False),
    ("not_applicable", pa.int64(), False),
    (
        "reasons",  # in the 29-reason vocabulary order
        _counted(pa.field("reason_index", pa.int8()), pa.field("reason", pa.string())),
        False,
    ),
    ("latency_count", pa.int64(), False),
    ("latency_total_ms", pa.float64(), True),
    ("latency_min_ms", pa.float64(), True),
    ("latency_max_ms", pa.float64(), True),
)

# The analytics tables as `core` stores them, in DDL order (sql/schema/042–046).
STORED_ANALYTICS_TABLES: dict[str, pa.Schema] = {
    "run_summary": RUN_SUMMARY,
    "analytics_runs": ANALYTICS_RUNS,
    "analytics_documents": ANALYTICS_DOCUMENTS,
    "analytics_slices": ANALYTICS_SLICES,
    "stage_funnel": STAGE_FUNNEL,
}
