"""The DuckDB store: one file, a schema version, atomic per-source imports, an import ledger.

Stored tables live in the DuckDB schema ``core``; users read the views of ``main``. The store
depends on ``contract`` only: stages hand it Arrow tables and ledger records.
"""

from __future__ import annotations

from valuechain.store.arrow_groups import concatenated
from valuechain.store.database import DEFAULT_STORE, Database, default_store_path, open_database
from valuechain.store.evidence_reads import EVERY_ROW, SpanRows, of_runs
from valuechain.store.migrate import STORE_SCHEMA_VERSION
from valuechain.store.pending import PendingDerivation, PendingGroup
from valuechain.store.writer import Committed, SourceWriter

__all__ = [
    "DEFAULT_STORE",
    "EVERY_ROW",
    "STORE_SCHEMA_VERSION",
    "Committed",
    "Database",
    "PendingDerivation",
    "PendingGroup",
    "SourceWriter",
    "SpanRows",
    "concatenated",
    "default_store_path",
    "of_runs",
    "open_database",
]
