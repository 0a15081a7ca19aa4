"""decode_export, the library entry point: any input decodes without raising and accounts for
every record (TRACE-FORMAT §5.1, STYLE habit 8), tables keep the contract's types, record order
does not change the rows, and a caller-built dict is read as its JSON would be.
"""

from __future__ import annotations

import gzip
from types import SimpleNamespace
from typing import Any

import orjson
import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st
from ingest_checks import check_decoded, codes, decode, plain_rows, rows
from ingest_strategies import FAST, all_spans, encode, requests

from valuechain.contract import tables
from valuechain.ingest.decode import DecodedSource, DecodeOptions, decode_export


def test_decode_table_types_are_the_contract() -> None:
    decoded = decode_export(b'{"resourceSpans":[]}\n' * 2, "x")
    for name, table in decoded.tables.items():
        assert isinstance(table, pa.Table)
        assert table.schema == tables.SPAN_TABLES[name], name


def test_surrogates_in_a_caller_built_dict(otlp: SimpleNamespace) -> None:
    got = decode(
        otlp.request(
            otlp.span(name="a\ud800", attributes=[{"key": "k", "value": {"stringValue": "\udfff"}}])
        )
    )
    assert rows(got, "spans", "name") == [{"name": "a\ufffd"}]
    assert codes(got) == {"W_INVALID_UTF8": 2}


@FAST
@given(
    request=requests(),
    ids=st.sampled_from(["hex", "HEX", "b64", "b64url"]),
    framing=st.sampled_from(["compact", "pretty", "ndjson-2"]),
    duplicate=st.booleans(),
    gzipped=st.booleans(),
    cut=st.none() | st.floats(min_value=0, max_value=1),
    salvage=st.booleans(),
)
def test_decoding_never_raises_and_always_accounts(
    request: dict[str, Any],
    ids: str,
    framing: str,
    duplicate: bool,
    gzipped: bool,
    cut: float | None,
    salvage: bool,
) -> None:
    data = encode(request, ids)
    if duplicate and all_spans(data):
        first = data["resourceSpans"][0]["scopeSpans"][0]
        first["spans"] = first["spans"] + first["spans"][:1]
    if framing == "compact":
        raw = orjson.dumps(data)
    elif framing == "pretty":
        raw = orjson.dumps(data, option=orjson.OPT_INDENT_2)
    else:
        raw = orjson.dumps(data) + b"\n" + orjson.dumps(data) + b"\n"
    if gzipped:
        raw = gzip.compress(raw)
    if cut is not None:
        raw = raw[: int(len(raw) * cut)]
    decoded = decode_export(raw, "prop.json", DecodeOptions(salvage=salvage))
    check_decoded(decoded)
    if cut is None:
        assert decoded.status == "ok"
        spans_in = len(all_spans(data)) * (2 if framing == "ndjson-2" else 1)
        assert decoded.accounting.spans_read == spans_in
        assert decoded.accounting.spans_quarantined == 0


def _span_rows(decoded: DecodedSource) -> list[tuple[Any, ...]]:
    rows = plain_rows(
        decoded.tables["spans"],
        "span_row",
        "scope_row",
        "resource_row",
        "record_index",
        "json_path",
    )
    return sorted(rows, key=repr)


@settings(FAST, max_examples=25)
@given(
    records=st.lists(requests(), min_size=2, max_size=3), order=st.randoms(use_true_random=False)
)
def test_record_order_does_not_change_the_span_rows(
    records: list[dict[str, Any]], order: Any
) -> None:
    encoded = [encode(r) for r in records]
    shuffled = list(encoded)
    order.shuffle(shuffled)
    a = decode_export(b"\n".join(orjson.dumps(r) for r in encoded) + b"\n", "a.jsonl")
    b = decode_export(b"\n".join(orjson.dumps(r) for r in shuffled) + b"\n", "b.jsonl")
    check_decoded(a)
    check_decoded(b)
    assert _span_rows(a) == _span_rows(b)
