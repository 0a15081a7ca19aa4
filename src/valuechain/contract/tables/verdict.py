"""The run decision summaries (CONTRACT §6.6, sql/schema/140), filled at materialization.

Keyed like the analytics documents (run, chain source, reader analyzer version); the columns
beside `document` are read off it for SQL users: the verdict, its source, what the counts
count (`measurement_unit`: `caseVariant` or `trial`, NULL when there are none), the reasons,
and how much of the run the stored first page of diagnostics covers.
"""

from __future__ import annotations

import pyarrow as pa

from valuechain.contract.tables.types import JSON_METADATA, table_schema

DECISION_SUMMARIES = table_schema(
    ("run_id", pa.string(), False),
    ("chain_source", pa.string(), False),
    ("analyzer_version", pa.int32(), False),
    ("run_status", pa.string(), False),
    ("verdict", pa.string(), False),
    ("verdict_source", pa.string(), False),
    ("undecided_reason", pa.string(), True),
    ("measurement_unit", pa.string(), True),
    ("counted_total", pa.int32(), True),
    ("counted_passed", pa.int32(), True),
    ("counted_failed", pa.int32(), True),
    ("counted_inconclusive", pa.int32(), True),
    ("reasons", pa.list_(pa.string()), True),
    ("diagnostics_complete", pa.bool_(), False),
    ("diagnostics_items", pa.int32(), False),
    ("scanned_iterations", pa.int32(), False),
    pa.field("document", pa.string(), nullable=False, metadata=JSON_METADATA),
)
