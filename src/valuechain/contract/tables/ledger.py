"""The store's own tables (sql/schema/001, 010, 011): its ``meta`` keys, the ``sources`` ledger
and the derivations still owed (``pending_derivations``).

None is built as an Arrow table (``sources`` is written from parameters); their schemas are
declared all the same so that ``STORED_TABLES`` holds every table the DDL creates.
"""

from __future__ import annotations

import pyarrow as pa

from valuechain.contract.tables.types import JSON_METADATA, SOURCE_ID, TRACE_ID, TS, table_schema

META = table_schema(
    ("key", pa.string(), False),  # PRIMARY KEY
    ("value", pa.string(), False),
)

# The import ledger (TRACE-FORMAT §6 `sources`, accounting of §5.1): one row per accepted
# source, written from parameters (sql/ingest/990), not from an Arrow table.
SOURCES = table_schema(
    ("source_id", SOURCE_ID, False),  # PRIMARY KEY
    ("import_id", pa.int32(), False),
    ("path", pa.string(), False),
    ("sha256", pa.string(), False),  # lower-case hex (large_values.sha256 is the raw bytes)
    ("bytes_raw", pa.uint64(), False),
    ("bytes_decoded", pa.uint64(), False),
    ("compression", pa.string(), False),
    ("framing", pa.string(), False),
    ("encoding_flavor", pa.string(), False),
    ("status", pa.string(), False),
    ("records_read", pa.uint32(), False),
    ("records_ingested", pa.uint32(), False),
    ("records_other_signal", pa.uint32(), False),
    ("records_quarantined", pa.uint32(), False),
    ("spans_read", pa.uint64(), False),
    ("span_rows", pa.uint64(), False),
    ("spans_quarantined", pa.uint64(), False),
    ("spans_deduplicated", pa.uint64(), False),
    ("attributes_read", pa.uint64(), False),
    ("attribute_rows", pa.uint64(), False),
    ("attributes_quarantined", pa.uint64(), False),
    ("attributes_deduplicated", pa.uint64(), False),
    ("imported_at", TS, False),
)

# The traces of sources imported but not derived yet (sql/schema/011), written with the ledger
# row from the source's trace ids (sql/ingest/995) and deleted once derived (sql/ingest/600).
PENDING_DERIVATIONS = table_schema(
    ("source_id", SOURCE_ID, False),
    ("trace_id", TRACE_ID, False),
    ("analyzer_version", pa.int32(), False),
)

# How far `import --follow` read each file of a followed directory (sql/schema/160), written
# from parameters with the source holding those bytes (sql/store/401).
FOLLOW_FILES = table_schema(
    ("directory", pa.string(), False),  # PRIMARY KEY (directory, head_sha256)
    ("head_sha256", pa.string(), False),
    ("path", pa.string(), False),
    ("committed_bytes", pa.uint64(), False),
    ("final", pa.bool_(), False),
    ("updated_at", TS, False),
)

# The request bodies `serve` imported, written with the source that holds them (sql/schema/162,
# sql/store/411): a body spooled again after a crash or a client's retry is not imported twice.
SERVED_REQUESTS = table_schema(
    ("sha256", pa.string(), False),  # PRIMARY KEY
    ("kind", pa.string(), False),
    ("received_at", TS, False),
    ("source", pa.string(), False),
    ("imported_at", TS, False),
)

# The log of store operations that changed the store (sql/schema/161, sql/store/130).
STORE_OPERATIONS = table_schema(
    ("operation_id", pa.int32(), False),
    ("operation", pa.string(), False),
    ("target", pa.string(), True),
    pa.field("details", pa.string(), nullable=False, metadata=JSON_METADATA),
    ("valuechain", pa.string(), False),
    ("done_at", TS, False),
)
