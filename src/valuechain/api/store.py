"""What the command line needs of the store and the importer beyond `Store`'s methods: where
the store is, its memory limit, how its errors read, and the maintenance that runs on a closed
store (migrate, vacuum), all through the API (the CLI imports no floor below it).

The light names are plain imports — the command line reads them at start-up — and the rest
load on first use (PEP 562), so that importing this module brings no DuckDB, Arrow or polars.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from valuechain._lazy import lazy_names
from valuechain.ingest.source.read import NOT_AN_EXPORT_NAME
from valuechain.store.location import default_store_path
from valuechain.store.memory_limit import (
    DEFAULT_MEMORY_LIMIT,
    MEMORY_LIMIT_ENV,
    memory_limit_bytes,
)

if TYPE_CHECKING:
    from valuechain.store import STORE_SCHEMA_VERSION, Database
    from valuechain.store.disk import storage_error
    from valuechain.store.interrupt import is_interruption
    from valuechain.store.maintenance import StoreInfo, migrate_store, vacuum_store

_LAZY = {
    "Database": "valuechain.store.database",
    "STORE_SCHEMA_VERSION": "valuechain.store.migrate",
    "StoreInfo": "valuechain.store.maintenance",
    "is_interruption": "valuechain.store.interrupt",
    "migrate_store": "valuechain.store.maintenance",
    "storage_error": "valuechain.store.disk",
    "vacuum_store": "valuechain.store.maintenance",
}

__all__ = [
    "DEFAULT_MEMORY_LIMIT",
    "MEMORY_LIMIT_ENV",
    "NOT_AN_EXPORT_NAME",
    "STORE_SCHEMA_VERSION",
    "Database",
    "StoreInfo",
    "default_store_path",
    "is_interruption",
    "memory_limit_bytes",
    "migrate_store",
    "storage_error",
    "vacuum_store",
]

__getattr__, __dir__ = lazy_names(__name__, _LAZY, __all__)
