"""Checks the ingest tests share: decode and read a ``DecodedSource``, compare two of them.

Imported by name (``from ingest_checks import …``); see ``ingest_builders``.
"""

from __future__ import annotations

import math
from types import SimpleNamespace
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from valuechain.ingest.decode import DecodedSource, DecodeOptions, decode_export
from valuechain.store import Database


def decode(data: bytes | dict[str, Any], **options: Any) -> DecodedSource:
    """Decode an accepted source, checking §5.1 on the way."""
    out = decode_export(data, "test.json", DecodeOptions(**options))
    assert out.rejection is None, out.rejection
    assert out.accounting.check(out.span_count, out.tables["attributes"].num_rows) == []
    return out


def codes(decoded: DecodedSource) -> dict[str, int]:
    return dict(decoded.issue_counts())


def issue(decoded: DecodedSource, code: str) -> Any:
    (found,) = [i for i in decoded.issues if i.code.value == code]
    return found


def rows(decoded: DecodedSource, table: str, *columns: str) -> list[dict[str, Any]]:
    """Some columns of a decoded table (attributes: span-level ones only)."""
    data = decoded.tables[table]
    if table == "attributes":
        data = data.filter(pc.equal(data["owner_type"], "span"))
    return data.select(list(columns)).to_pylist()


def one_attribute(otlp: SimpleNamespace, value: Any, **options: Any) -> DecodedSource:
    return decode(otlp.request(otlp.span(attributes=[{"key": "k", "value": value}])), **options)


def plain_rows(table: pa.Table, *drop: str) -> list[tuple[Any, ...]]:
    """Rows as tuples; timestamps as ints, NaN as a marker (NaN never equals itself)."""
    table = table.drop_columns([c for c in drop if c in table.column_names])
    for i, column in enumerate(table.schema):
        if pa.types.is_timestamp(column.type):
            table = table.set_column(i, column.name, table[column.name].cast(pa.int64()))
    return [
        tuple("NaN" if isinstance(v, float) and math.isnan(v) else v for v in row.values())
        for row in table.to_pylist()
    ]


def same(a: DecodedSource, b: DecodedSource) -> None:
    """Two decoded sources hold the same tables, accounting and issues."""
    assert a.tables.keys() == b.tables.keys()
    for name in a.tables:
        assert a.tables[name].schema == b.tables[name].schema, name
        assert plain_rows(a.tables[name]) == plain_rows(b.tables[name]), name
    assert a.accounting == b.accounting
    assert a.issues == b.issues


def check_decoded(decoded: DecodedSource) -> None:
    """Whatever the input, a known status, §5.1 holding, and a rejection exactly when rejected."""
    assert decoded.status in ("ok", "partial", "rejected")
    attributes = decoded.tables["attributes"].num_rows if "attributes" in decoded.tables else 0
    assert decoded.accounting.check(decoded.span_count, attributes) == []
    acct = decoded.accounting
    assert (
        acct.records_read
        == acct.records_ingested + acct.records_other_signal + acct.records_quarantined
    )
    if decoded.status == "rejected":
        assert decoded.rejection is not None and decoded.rejection.code.startswith("E_")
    else:
        assert decoded.rejection is None


def accounted(db: Database) -> dict[str, Any]:
    """The one ledger row of the store, with §5.1 checked on it."""
    (row,) = db.sql("SELECT * FROM imports").to_dicts()
    assert row["records_read"] == (
        row["records_ingested"] + row["records_other_signal"] + row["records_quarantined"]
    )
    assert (
        row["spans_read"] == row["span_rows"] + row["spans_quarantined"] + row["spans_deduplicated"]
    )
    assert row["attributes_read"] == (
        row["attribute_rows"] + row["attributes_quarantined"] + row["attributes_deduplicated"]
    )
    return row
