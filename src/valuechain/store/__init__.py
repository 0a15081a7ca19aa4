"""The DuckDB store: one file, a schema version, atomic per-source imports, an import ledger.

Stored tables live in the DuckDB schema ``core``; users read the views of ``main``. The store
depends on ``contract`` only: stages hand it Arrow tables and ledger records.

Its names load on first use (PEP 562 ``__getattr__``): a light submodule (``memory_limit``,
``files``) must not bring DuckDB and Arrow with it — the command line imports those at start.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from valuechain._lazy import lazy_names

if TYPE_CHECKING:
    from valuechain.store.arrow_groups import concatenated
    from valuechain.store.database import Database, open_database
    from valuechain.store.evidence_reads import EVERY_ROW, SpanRows, of_runs
    from valuechain.store.location import DEFAULT_STORE, default_store_path
    from valuechain.store.migrate import STORE_SCHEMA_VERSION
    from valuechain.store.pending import PendingDerivation, PendingGroup
    from valuechain.store.writer import Committed, SourceWriter

_LAZY = {
    "concatenated": ".arrow_groups",
    "DEFAULT_STORE": ".location",
    "Database": ".database",
    "default_store_path": ".location",
    "open_database": ".database",
    "EVERY_ROW": ".evidence_reads",
    "SpanRows": ".evidence_reads",
    "of_runs": ".evidence_reads",
    "STORE_SCHEMA_VERSION": ".migrate",
    "PendingDerivation": ".pending",
    "PendingGroup": ".pending",
    "Committed": ".writer",
    "SourceWriter": ".writer",
}

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


__getattr__, __dir__ = lazy_names(__name__, _LAZY, __all__)
