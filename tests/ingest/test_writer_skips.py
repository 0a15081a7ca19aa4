"""The batch statements the writer skips when their input is empty (``SKIP_WITHOUT``) name real
statements and inputs that are really theirs, so a skip can never hide a write: each skipped
statement reads the input it is skipped without, and that input is a staged table of every batch
or a temporary table whose row count the writer reads (``COUNTED``)."""

from __future__ import annotations

import re

from valuechain.contract import tables
from valuechain.store import sqlfiles
from valuechain.store.staged_writes import COUNTED, SKIP_WITHOUT


def _batch() -> dict[str, str]:
    return {f.name: f.text for f in sqlfiles.folder("ingest") if f.name.startswith("ingest/1")}


def _code(text: str) -> str:
    return "\n".join(line.split("--", 1)[0] for line in text.splitlines())


def test_every_counted_statement_creates_the_table_it_counts() -> None:
    batch = _batch()
    for name, table in COUNTED.items():
        assert re.match(rf"\s*CREATE OR REPLACE TEMP TABLE {table} AS\b", _code(batch[name])), name


def test_every_skipped_statement_reads_the_input_it_is_skipped_without() -> None:
    batch = _batch()
    staged = {*tables.SPAN_TABLES, "issues"}
    for name, needed in SKIP_WITHOUT.items():
        assert name in batch, name
        assert needed in staged or needed in COUNTED.values(), needed
        source = f"staged_{needed}" if needed in staged else needed
        assert re.search(rf"\b{source}\b", _code(batch[name])), (name, source)
        if needed in COUNTED.values():  # counted before the statement that needs it runs
            (counter,) = [k for k, v in COUNTED.items() if v == needed]
            assert counter < name
