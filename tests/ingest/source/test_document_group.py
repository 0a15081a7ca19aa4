"""A group's documents decode as each file alone does: the same ``DecodedSource`` (ledger,
accounting, counts), and rows that are each file's own, one after the other."""

from __future__ import annotations

import hashlib
from dataclasses import replace
from types import SimpleNamespace

import orjson
import pyarrow as pa

from valuechain.contract.tables.rows import rebase
from valuechain.ingest.source.decoded import DecodeOptions
from valuechain.ingest.source.documents import DocumentGroup
from valuechain.ingest.source.merge import ROW_TABLES
from valuechain.ingest.source.stream import SourceStream


def test_each_document_decodes_as_it_does_alone(otlp: SimpleNamespace) -> None:
    attribute = {"key": "k", "value": {"intValue": "7"}}
    event = {"timeUnixNano": str(otlp.START_NS + 5), "name": "e", "attributes": [attribute]}
    link = {"traceId": "cd" * 16, "spanId": "ef" * 8, "attributes": [attribute]}
    files = [
        otlp.dumps(otlp.request(otlp.span(1), otlp.span(2, events=[event], links=[link]))),
        orjson.dumps(otlp.request(otlp.span(1), otlp.span(2)), option=orjson.OPT_INDENT_2),
        b"\xef\xbb\xbf\n " + otlp.dumps(otlp.request(otlp.span(3, trace_id="ab" * 16))),
    ]
    options = replace(DecodeOptions(), native_parts=False)  # as a group's file alone
    group = DocumentGroup(options)
    alone: list[dict[str, pa.Table]] = []
    rows = dict.fromkeys(ROW_TABLES, 0)
    for k, data in enumerate(files):
        name = f"f{k}.json"
        taken = group.take(name, data, hashlib.sha256(data).hexdigest())
        stream = SourceStream([data], name, options)
        batches = list(stream)
        assert taken is not None and len(batches) == 1
        assert taken.decoded == stream.result
        assert {table: taken.first[table] for table in ROW_TABLES} == rows
        alone.append(rebase(batches[0].tables, rows, 0))
        for table in ROW_TABLES:
            rows[table] += batches[0].tables[table].num_rows
    together = group.tables()
    assert together["events"].num_rows == together["links"].num_rows == 1
    for name, table in together.items():
        assert table.equals(pa.concat_tables([tables[name] for tables in alone])), name


def test_what_the_fast_path_leaves_is_not_taken(otlp: SimpleNamespace) -> None:
    group = DocumentGroup(DecodeOptions())
    for data in (
        b"",
        otlp.ndjson(otlp.request(otlp.span(1)), otlp.request(otlp.span(2))),
        otlp.dumps(otlp.request(otlp.span(1, kind=9))),  # the reference notes it
        otlp.dumps(otlp.request(otlp.span(1))).replace(b"span-1", b"\xff"),  # not UTF-8
    ):
        assert group.take("f.json", data, hashlib.sha256(data).hexdigest()) is None
    assert group.taken == [] and group.tables()["spans"].num_rows == 0
