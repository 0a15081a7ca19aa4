"""A job's OTLP requests as the table Arrow's JSON reader makes of their NDJSON text.

The native decode (`ingest/otlp/native.py`) reads NDJSON lines with Arrow's JSON reader into
a table under its explicit schema, then decodes that table. The SDK translation's requests
(`otlp.Span` tuples) are converted here at once, by Arrow, and rearranged into that very
table, so a job skips writing its NDJSON text and reading it again. `requests_table` declines
(None) what the native path would not take as a whole from the text: a JSON null in it (a
null string value, or the word in a string where it looks like a null token,
`native_parts.null_tokens`), or a value Arrow cannot hold — the caller then writes the text
and decodes it as before. It also measures the text that is not written: the place of a later
job's issues counts across it (docs/spec/mcpjam-sdk.md §4).
"""

from __future__ import annotations

from dataclasses import dataclass

import pyarrow as pa
import pyarrow.compute as pc

from valuechain.ingest.mcpjam.otlp import PRODUCER, Attrs, Span, attr_text, encode, otlp_request
from valuechain.ingest.mcpjam.otlp import span_text as _span_text
from valuechain.ingest.otlp.native import SCHEMA

_RESOURCE_SPANS = SCHEMA.field("resourceSpans").type.value_type
_RESOURCE = _RESOURCE_SPANS.field("resource").type
_SCOPE_SPANS = _RESOURCE_SPANS.field("scopeSpans").type.value_type
_SCOPE = _SCOPE_SPANS.field("scope").type
_SPAN = _SCOPE_SPANS.field("spans").type.value_type
_KEY_VALUE = _SPAN.field("attributes").type.value_type
_ANY_VALUE = _KEY_VALUE.field("value").type
_STATUS = _SPAN.field("status").type
_STRING, _INT = pa.string(), pa.int64()
_VALUES = ("stringValue", "intValue", "boolValue", "doubleValue")
# the tuples as they are: `otlp.Attr`, `otlp.Span`, one list of spans a request
_ATTR = pa.struct([("key", _STRING), *((v, _ANY_VALUE.field(v).type) for v in _VALUES)])
_SPAN_TUPLE = pa.struct(
    [
        ("traceId", _STRING),
        ("spanId", _STRING),
        ("parentSpanId", _STRING),
        ("name", _STRING),
        ("kind", _INT),
        ("startTimeUnixNano", _STRING),
        ("endTimeUnixNano", _STRING),
        ("attributes", pa.list_(_ATTR)),
        ("error", pa.bool_()),
    ]
)
_REQUEST_TUPLES = pa.list_(_SPAN_TUPLE)
_AS_GIVEN = [f.name for f in _SPAN_TUPLE if f.name not in ("attributes", "error")]
# a null token in a string's JSON text: the word after `:` `,` `[` and before `,` `}` `]`
# (spaces aside: a string's other whitespace is escaped); `native_parts.null_tokens`
_NULL_TOKEN = r"[:,\[] *null *[,}\]]"
_CONTROL = bytes(range(0x20))  # escaped in JSON: by name (below), or as \u00xx
_OTHER_CONTROL = bytes(c for c in range(0x20) if c not in b"\b\t\n\f\r")


@dataclass(slots=True)
class Built:
    table: pa.Table  # as `native.parse` reads the requests' NDJSON lines
    size: int  # of those lines (`translate.ndjson`)


def requests_table(resource: Attrs, requests: list[list[Span]]) -> Built | None:
    """The table `native.parse` makes of the requests' NDJSON lines (`otlp_request` of each,
    under ``resource``), and their size; None when the native path would not take them all."""
    n = len(requests)
    try:
        given = pa.array(requests, _REQUEST_TUPLES)
        resource_attrs = pa.array([resource], pa.list_(_ATTR))
    except (pa.ArrowException, UnicodeError, OverflowError, TypeError):
        return None
    spans = given.values
    attrs = spans.field("attributes")
    span_kvs, span_size = _key_values(attrs)
    resource_kvs, resource_size = _key_values(resource_attrs)
    names = spans.field("name")
    if span_kvs is None or resource_kvs is None or not len(spans) or _null_token(names):
        return None
    error = spans.field("error")
    no_error = pc.invert(error)
    status_code = pc.if_else(no_error, pa.scalar(None, _INT), pa.scalar(2, _INT))
    columns = {name: spans.field(name) for name in _AS_GIVEN}
    columns["attributes"] = span_kvs
    columns["status"] = pa.StructArray.from_arrays(
        [pa.nulls(len(spans), _STRING), status_code], fields=list(_STATUS), mask=no_error
    )
    scope = _struct(_SCOPE, {"name": pa.array([PRODUCER] * n, _STRING)}, n)
    spans_lists = pa.ListArray.from_arrays(given.offsets, _struct(_SPAN, columns, len(spans)))
    scope_spans = _struct(_SCOPE_SPANS, {"scope": scope, "spans": spans_lists}, n)
    one_each = pa.array(range(n + 1), pa.int32())
    r = len(resource)  # the same key-values for each request
    repeated = pa.ListArray.from_arrays(
        pa.array([k * r for k in range(n + 1)], pa.int32()),
        pc.take(resource_kvs.values, pa.array(list(range(r)) * n, _INT)),
    )
    resource_rows = _struct(_RESOURCE, {"attributes": repeated}, n)
    items = {
        "resource": resource_rows,
        "scopeSpans": pa.ListArray.from_arrays(one_each, scope_spans),
    }
    column = pa.ListArray.from_arrays(one_each, _struct(_RESOURCE_SPANS, items, n))
    size = n * (_REQUEST_BASE + resource_size) + len(spans) - _nonempty(given)
    size += span_size + _spans_size(spans, attrs)
    return Built(pa.Table.from_arrays([column], schema=SCHEMA), size)


def _key_values(lists: pa.ListArray) -> tuple[pa.ListArray | None, int]:
    """The lists of `otlp.Attr` as OTLP key-value lists, and the size of their text (None:
    a value is null — its text would hold a null — or looks like a null token)."""
    attrs = lists.values
    m = len(attrs)
    values = {v: attrs.field(v) for v in _VALUES}
    nulls = sum(a.null_count for a in values.values())
    if nulls != 3 * m or _null_token(values["stringValue"]):
        return None, 0
    value = _struct(_ANY_VALUE, values, m)
    key_values = _struct(_KEY_VALUE, {"key": attrs.field("key"), "value": value}, m)
    size = m * _ATTR_BASE + m - _nonempty(lists) + _strings_size(attrs.field("key"))
    for name in _VALUES:
        present = values[name]
        size += (m - present.null_count) * _LABEL[name]
    size += _strings_size(values["stringValue"]) + _strings_size(values["intValue"])
    bools = values["boolValue"]
    size += 4 * (m - bools.null_count) + _count(pc.invert(bools))  # true, false
    doubles = values["doubleValue"]
    size += sum(len(encode(d)) for d in doubles.drop_null().to_pylist())
    return pa.ListArray.from_arrays(lists.offsets, key_values), size


def _spans_size(spans: pa.StructArray, attrs: pa.ListArray) -> int:
    """Of the spans' texts (`otlp.span_text`) but their attributes', and the commas between
    their attributes."""
    n = len(spans)
    parents = spans.field("parentSpanId")
    size: int = (
        n * _SPAN_BASE + (n - parents.null_count) * _PARENT + _count(spans.field("error")) * _ERROR
    )
    for name in ("traceId", "spanId", "name", "parentSpanId"):
        size += _strings_size(spans.field(name))
    kinds = pc.cast(spans.field("kind"), _STRING)
    for name in ("startTimeUnixNano", "endTimeUnixNano"):
        size += _sum(pc.binary_length(spans.field(name)))
    return size + _sum(pc.binary_length(kinds))


def _strings_size(values: pa.Array) -> int:
    """Of the JSON of each non-null string (msgspec's: `"`, `\\` and the control characters
    escaped, \\b \\t \\n \\f \\r by name, the others as \\u00xx)."""
    text = _utf8(values)
    size: int = len(text) + 2 * (len(values) - values.null_count)
    size += text.count(b'"') + text.count(b"\\")
    plain = text.translate(None, _CONTROL)
    if len(plain) < len(text):
        others = len(text) - len(text.translate(None, _OTHER_CONTROL))
        size += len(text) - len(plain) - others + 5 * others
    return size


def _utf8(values: pa.Array) -> bytes:
    """The strings' UTF-8, one after the other."""
    _, offsets, data = values.buffers()
    if data is None or not len(values):
        return b""
    bounds = memoryview(offsets).cast("i")  # int32 offsets: `pa.string()`
    text: bytes = data.to_pybytes()[bounds[values.offset] : bounds[values.offset + len(values)]]
    return text


def _nonempty(lists: pa.ListArray) -> int:
    return _count(pc.greater(pc.list_value_length(lists), 0))


def _count(mask: pa.Array) -> int:
    return int(pc.sum(pc.cast(mask, _INT)).as_py() or 0)


def _sum(values: pa.Array) -> int:
    return int(pc.sum(values).as_py() or 0)


def _struct(kind: pa.StructType, given: dict[str, pa.Array], n: int) -> pa.StructArray:
    """A struct array of ``kind``: the fields ``given``, every other one null."""
    arrays = [given[f.name] if f.name in given else pa.nulls(n, f.type) for f in kind]
    return pa.StructArray.from_arrays(arrays, fields=list(kind))


def _null_token(values: pa.Array) -> bool:
    if b"null" not in _utf8(values):
        return False
    return bool(pc.any(pc.match_substring_regex(values, _NULL_TOKEN)).as_py())


# the fixed pieces of the text: a request's without its resource and spans (and newline),
# a span's without its values and attributes, an attribute's without key and value
_REQUEST_BASE = len(otlp_request([], [])) + 1
_SPAN_BASE = len(_span_text(("", "", None, "", 0, "", "", [], False))) - 7  # "" "" "" 0
_PARENT = len(_span_text(("", "", "", "", 0, "", "", [], False))) - _SPAN_BASE - 9
_ERROR = len(_span_text(("", "", None, "", 0, "", "", [], True))) - _SPAN_BASE - 7
_ATTR_BASE = len(attr_text(("", "", None, None, None))) - 4 - 14  # "" "", "stringValue":
_LABEL = {
    "stringValue": 14,
    "intValue": len(attr_text(("", None, "", None, None))) - 4 - _ATTR_BASE,
    "boolValue": len(attr_text(("", None, None, True, None))) - 6 - _ATTR_BASE,
    "doubleValue": len(attr_text(("", None, None, None, 0.0))) - 5 - _ATTR_BASE,
}
