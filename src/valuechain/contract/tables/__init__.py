"""Arrow schemas of every stored table (TRACE-FORMAT §6, CONTRACT §4–§5), declared as data.

One snake_case name per table, shared by its Arrow schema, its SQL DDL (``sql/schema/``) and
its DuckDB table (schema ``core``). ``STORED_TABLES`` holds the schema of every table the DDL
creates, in DDL order, and ``tests/contract/test_tables.py`` proves the two agree column by
column. Most tables are stored in the shape the code builds; where a stage builds a different
shape (the decoder's batch-local span tables, the evidence adapter's ``trials`` with its
``trial_index``), that shape is declared too and the stored one derived from it, so each
column is declared once.

This package is the one place importers name: the shared column types and ``conform()`` are
in ``types``, and each group of tables in its own module with its stored forms — ``spans``
(the decoder's), ``trials`` (evidence and derivation), ``analytics`` (materialized) and
``ledger`` (the store's own) — assembled here in DDL order.
"""

from __future__ import annotations

import pyarrow as pa

from valuechain.contract.tables.analytics import (
    ANALYTICS_DOCUMENTS,
    ANALYTICS_RUNS,
    ANALYTICS_SLICES,
    RUN_SUMMARY,
    STAGE_FUNNEL,
    STORED_ANALYTICS_TABLES,
)
from valuechain.contract.tables.ledger import (
    FOLLOW_FILES,
    META,
    PENDING_DERIVATIONS,
    SERVED_REQUESTS,
    SOURCES,
    STORE_OPERATIONS,
)
from valuechain.contract.tables.spans import (
    ATTRIBUTES,
    EVENTS,
    ISSUES,
    LARGE_VALUES,
    LINKS,
    MCP_APP_ROLE,
    OI_SPAN_KIND,
    OWNER_TABLES,
    QUARANTINE,
    RESOURCES,
    ROW_ID_COLUMNS,
    SCOPES,
    SPAN_TABLES,
    SPANS,
    STORED_SPAN_TABLES,
    UNKNOWN_FIELDS,
)
from valuechain.contract.tables.trials import (
    DERIVED_EVIDENCE,
    EVIDENCE_TRIALS,
    SETUP_SIGNALS,
    STAGE_CHAIN,
    STAGE_MEASUREMENTS,
    STORED_TRIAL_TABLES,
    TOOL_CALLS,
    TRIAL_FLAGS,
    TRIAL_ISSUES,
    TRIAL_OUTCOME,
    TRIALS,
)
from valuechain.contract.tables.types import (
    HUGEINT,
    INT64_MAX,
    JSON_METADATA,
    SHA256,
    SOURCE_ID,
    SPAN_ID,
    SPAN_ID_BYTES,
    TRACE_ID,
    TRACE_ID_BYTES,
    TS,
    conform,
)
from valuechain.contract.tables.verdict import DECISION_SUMMARIES

# The stored schema of every table in `core`, in DDL order (sql/schema/NNN_<name>.sql).
STORED_TABLES: dict[str, pa.Schema] = {
    "meta": META,
    "sources": SOURCES,
    "pending_derivations": PENDING_DERIVATIONS,
    **STORED_SPAN_TABLES,
    **STORED_TRIAL_TABLES,
    **STORED_ANALYTICS_TABLES,
    "derived_evidence": DERIVED_EVIDENCE,
    "decision_summaries": DECISION_SUMMARIES,
    "follow_files": FOLLOW_FILES,
    "store_operations": STORE_OPERATIONS,
    "served_requests": SERVED_REQUESTS,
}

__all__ = [
    "ANALYTICS_DOCUMENTS",
    "ANALYTICS_RUNS",
    "ANALYTICS_SLICES",
    "ATTRIBUTES",
    "DECISION_SUMMARIES",
    "DERIVED_EVIDENCE",
    "EVENTS",
    "EVIDENCE_TRIALS",
    "FOLLOW_FILES",
    "HUGEINT",
    "INT64_MAX",
    "ISSUES",
    "JSON_METADATA",
    "LARGE_VALUES",
    "LINKS",
    "MCP_APP_ROLE",
    "META",
    "OI_SPAN_KIND",
    "OWNER_TABLES",
    "PENDING_DERIVATIONS",
    "QUARANTINE",
    "RESOURCES",
    "ROW_ID_COLUMNS",
    "RUN_SUMMARY",
    "SCOPES",
    "SERVED_REQUESTS",
    "SETUP_SIGNALS",
    "SHA256",
    "SOURCES",
    "SOURCE_ID",
    "SPANS",
    "SPAN_ID",
    "SPAN_ID_BYTES",
    "SPAN_TABLES",
    "STAGE_CHAIN",
    "STAGE_FUNNEL",
    "STAGE_MEASUREMENTS",
    "STORED_TABLES",
    "STORE_OPERATIONS",
    "TOOL_CALLS",
    "TRACE_ID",
    "TRACE_ID_BYTES",
    "TRIALS",
    "TRIAL_FLAGS",
    "TRIAL_ISSUES",
    "TRIAL_OUTCOME",
    "TS",
    "UNKNOWN_FIELDS",
    "conform",
]
