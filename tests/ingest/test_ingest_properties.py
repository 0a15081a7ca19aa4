"""Property tests (TRACE-FORMAT §5.1, STYLE habit 8): the accounting invariant always holds,
decoding never raises, and neither id encoding, key spelling nor record order changes the data.
"""

from __future__ import annotations

import base64
import gzip
import math
from typing import Any

import orjson
import pyarrow as pa
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from valuechain.ingest.decode import DecodedSource, DecodeOptions, decode_export
from valuechain.pipeline.imports import ImportOptions, commit
from valuechain.store import Database

FAST = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
STORE = settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])

INT64 = st.integers(min_value=-(1 << 63), max_value=(1 << 63) - 1)
SCALARS = st.one_of(
    st.builds(lambda s: {"stringValue": s}, st.text(max_size=8)),
    st.builds(lambda b: {"boolValue": b}, st.booleans()),
    st.builds(lambda i: {"intValue": str(i)}, INT64),
    st.builds(lambda i: {"intValue": i}, INT64),
    st.builds(lambda f: {"doubleValue": f}, st.floats(allow_nan=False, allow_infinity=False)),
    st.builds(
        lambda f: {"doubleValue": f}, st.sampled_from(["NaN", "Infinity", "-Infinity", "1.5"])
    ),
    st.builds(lambda b: {"bytesValue": base64.b64encode(b).decode()}, st.binary(max_size=6)),
    st.just({}),
)
ANY_VALUE = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.builds(lambda vs: {"arrayValue": {"values": vs}}, st.lists(inner, max_size=3)),
        st.builds(
            lambda kvs: {"kvlistValue": {"values": [{"key": k, "value": v} for k, v in kvs]}},
            st.lists(st.tuples(st.sampled_from("abc"), inner), max_size=3),
        ),
    ),
    max_leaves=6,
)
ATTRIBUTES = st.lists(
    st.builds(
        lambda k, v: {"key": k, "value": v}, st.sampled_from(["a", "b", "c", "d"]), ANY_VALUE
    ),
    max_size=4,
)


@st.composite
def spans(draw: st.DrawFn, trace_ids: list[bytes]) -> dict[str, Any]:
    """One span as bytes-valued ids (encoded later) and plain OTLP/JSON fields."""
    start = draw(st.integers(min_value=0, max_value=(1 << 64) - 1))
    return {
        "traceId": draw(st.sampled_from(trace_ids)),
        "spanId": draw(st.binary(min_size=8, max_size=8).filter(any)),
        "parentSpanId": draw(st.none() | st.binary(min_size=8, max_size=8).filter(any)),
        "name": draw(st.text(max_size=6)),
        "kind": draw(st.integers(min_value=0, max_value=6)),
        "startTimeUnixNano": str(start),
        "endTimeUnixNano": str(draw(st.integers(min_value=0, max_value=(1 << 64) - 1))),
        "attributes": draw(ATTRIBUTES),
        "events": draw(
            st.lists(
                st.builds(
                    lambda n, a: {"name": n, "timeUnixNano": str(start), "attributes": a},
                    st.text(max_size=4),
                    ATTRIBUTES,
                ),
                max_size=2,
            )
        ),
        "links": draw(
            st.lists(
                st.builds(
                    lambda t, s, a: {"traceId": t, "spanId": s, "attributes": a},
                    st.binary(min_size=16, max_size=16).filter(any),
                    st.binary(min_size=8, max_size=8).filter(any),
                    ATTRIBUTES,
                ),
                max_size=1,
            )
        ),
        "status": {
            "code": draw(st.integers(min_value=0, max_value=2)),
            "message": draw(st.text(max_size=4)),
        },
    }


@st.composite
def requests(draw: st.DrawFn) -> dict[str, Any]:
    """A small request with byte ids; ``encode`` turns it into JSON-ready OTLP."""
    trace_ids = draw(
        st.lists(st.binary(min_size=16, max_size=16).filter(any), min_size=1, max_size=2)
    )
    resource_spans = []
    for _ in range(draw(st.integers(min_value=1, max_value=2))):
        scope_spans = [
            {
                "scope": {
                    "name": draw(st.sampled_from(["lib", "other"])),
                    "attributes": draw(ATTRIBUTES),
                },
                "spans": draw(st.lists(spans(trace_ids), max_size=3)),
            }
            for _ in range(draw(st.integers(min_value=1, max_value=2)))
        ]
        resource_spans.append(
            {"resource": {"attributes": draw(ATTRIBUTES)}, "scopeSpans": scope_spans}
        )
    return {"resourceSpans": resource_spans}


ID_KEYS = ("traceId", "spanId", "parentSpanId")


def encode(obj: Any, ids: str = "hex", snake: bool = False) -> Any:
    """The request as JSON-ready data: ids as hex / HEX / base64 variants, keys camel or snake."""
    if isinstance(obj, list):
        return [encode(v, ids, snake) for v in obj]
    if not isinstance(obj, dict):
        return obj
    out = {}
    for key, raw in obj.items():
        if key in ID_KEYS and isinstance(raw, bytes):
            value = _encode_id(raw, ids)
        else:  # an attribute's "key" is data, never a field name
            value = raw if key == "key" else encode(raw, ids, snake)
        name = "".join("_" + c.lower() if c.isupper() else c for c in key) if snake else key
        out[name] = value
    return out


def _encode_id(raw: bytes, how: str) -> str:
    if how == "hex":
        return raw.hex()
    if how == "HEX":
        return raw.hex().upper()
    if how == "b64":
        return base64.b64encode(raw).decode()
    if how == "b64url":
        return base64.urlsafe_b64encode(raw).decode().rstrip("=")
    raise ValueError(how)


def _all_spans(request: dict[str, Any]) -> list[dict[str, Any]]:
    return [s for rs in request["resourceSpans"] for ss in rs["scopeSpans"] for s in ss["spans"]]


def _check(decoded: DecodedSource) -> None:
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
    if duplicate and _all_spans(data):
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
    _check(decoded)
    if cut is None:
        assert decoded.status == "ok"
        spans_in = len(_all_spans(data)) * (2 if framing == "ndjson-2" else 1)
        assert decoded.accounting.spans_read == spans_in
        assert decoded.accounting.spans_quarantined == 0


@FAST
@given(request=requests(), how=st.sampled_from(["HEX", "b64", "b64url"]), snake=st.booleans())
def test_id_encoding_and_key_spelling_do_not_change_the_data(
    request: dict[str, Any], how: str, snake: bool
) -> None:
    canonical = decode_export(encode(request, "hex"), "a.json")
    variant = decode_export(encode(request, how, snake), "b.json")
    _check(canonical)
    _check(variant)
    for name in ("spans", "attributes", "events", "links", "resources", "scopes"):
        # json_path names the keys as written, so it differs with the spelling by design
        left = _plain(canonical.tables[name], "json_path")
        assert left == _plain(variant.tables[name], "json_path"), name
    assert canonical.tables["spans"]["content_hash"] == variant.tables["spans"]["content_hash"]


def _plain(table: pa.Table, *drop: str) -> list[tuple[Any, ...]]:
    """Rows as tuples; timestamps as ints, NaN as a marker (NaN never equals itself)."""
    table = table.drop_columns([c for c in drop if c in table.column_names])
    for i, column in enumerate(table.schema):
        if pa.types.is_timestamp(column.type):
            table = table.set_column(i, column.name, table[column.name].cast(pa.int64()))
    return [
        tuple("NaN" if isinstance(v, float) and math.isnan(v) else v for v in row.values())
        for row in table.to_pylist()
    ]


def _span_rows(decoded: DecodedSource) -> list[tuple[Any, ...]]:
    rows = _plain(
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
    _check(a)
    _check(b)
    assert _span_rows(a) == _span_rows(b)


@STORE
@given(
    first=requests(),
    second=requests(),
    shared=st.integers(min_value=0, max_value=3),
    ids=st.sampled_from(["hex", "b64"]),
)
def test_the_ledger_accounts_for_every_span_across_imports(
    first: dict[str, Any], second: dict[str, Any], shared: int, ids: str
) -> None:
    # the second source re-sends some spans of the first one (a retry, an overlapping export)
    resent = _all_spans(first)[:shared]
    second["resourceSpans"][0]["scopeSpans"][0]["spans"].extend(resent)
    second["resourceSpans"][0]["scopeSpans"][0]["scope"] = first["resourceSpans"][0]["scopeSpans"][
        0
    ]["scope"]
    second["resourceSpans"][0]["resource"] = first["resourceSpans"][0]["resource"]
    with Database(":memory:") as db:
        for name, request in (("a.json", first), ("b.json", second)):
            decoded = decode_export(orjson.dumps(encode(request, ids)), name)
            _check(decoded)
            if decoded.status != "rejected" and not db.has_source(decoded.sha256):
                commit(db, decoded, 1, ImportOptions())
        for row in db.sql("SELECT * FROM imports").to_dicts():
            assert (
                row["spans_read"]
                == row["span_rows"] + row["spans_quarantined"] + row["spans_deduplicated"]
            )
            assert row["attributes_read"] == (
                row["attribute_rows"]
                + row["attributes_quarantined"]
                + row["attributes_deduplicated"]
            )
        stored = db.sql("SELECT sum(span_rows) AS n, sum(attribute_rows) AS a FROM imports").row(0)
        assert (stored[0] or 0) == db.sql("SELECT count(*) FROM core.spans").item()
        assert (stored[1] or 0) == db.sql("SELECT count(*) FROM core.attributes").item()
        distinct = db.sql(
            "SELECT count(*) FROM (SELECT DISTINCT trace_id, span_id, content_hash FROM core.spans)"
        ).item()
        assert (
            distinct == db.sql("SELECT count(*) FROM core.spans").item()
        )  # no exact duplicate kept
