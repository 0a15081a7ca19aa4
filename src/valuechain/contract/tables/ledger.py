"""The store's own tables (sql/schema/001, 010): its ``meta`` keys and the ``sources`` ledger.

Neither is built as an Arrow table (``sources`` is written from parameters); their schemas are
declared all the same so that ``STORED_TABLES`` holds every table the DDL creates.
"""

from __future__ import annotations

import pyarrow as pa

from valuechain.contract.tables.types import SOURCE_ID, TS, table_schema

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
