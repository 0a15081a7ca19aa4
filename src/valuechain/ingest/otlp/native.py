"""The native path of OTLP/JSON decoding: Arrow's JSON reader, then Arrow compute.

``parse`` reads canonical NDJSON records (or one document) with ``pyarrow.json`` and the
explicit OTLP schema of ``native_text.otlp_schema`` — in C++, strictly: an unknown field, a
value of another JSON type, a duplicate key, a NaN or Infinity token outside a double or a lone
surrogate fails the parse (``decode`` refuses a non-finite double).
``decode`` flattens the parsed records into the span tables with vectorised compute and writes
each span's canonical content (``canonical.py``) as the bytes orjson would, so its hashes are
the reference's.

It is bound by the fast path's fallback rule (``fast.py``): it takes a record only when the
reference decoder would note nothing about it. ``decode`` returns the records it refuses
instead of tables; the caller hands those to the msgspec fast path or the reference decoder.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

import orjson
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.json as pa_json

from valuechain.contract import tables
from valuechain.contract.tables import INT64_MAX, MCP_APP_ROLE
from valuechain.ingest.otlp import native_tables as tb
from valuechain.ingest.otlp import native_text as nt
from valuechain.ingest.otlp.native_attributes import Owners, attribute_rows
from valuechain.ingest.otlp.scalars import UINT32_MAX

SCHEMA = nt.otlp_schema()
_sha256 = hashlib.sha256
_dumps = orjson.dumps


def parse(data: bytes, *, threads: bool = False, document: bool = False) -> pa.Table | None:
    """The records of ``data`` (one per line, or one ``document``), or None if any record
    does not parse under the explicit schema."""
    try:
        return pa_json.read_json(
            pa.BufferReader(data),
            read_options=pa_json.ReadOptions(use_threads=threads, block_size=len(data) + 1),
            parse_options=pa_json.ParseOptions(
                explicit_schema=SCHEMA,
                unexpected_field_behavior="error",
                newlines_in_values=document,
            ),
        )
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return None


@dataclass(slots=True)
class Decoded:
    tables: dict[str, pa.Table]
    spans: int
    attributes: int


def _flat(lists: Any, parent_records: Any) -> tuple[Any, Any, Any, Any]:
    """Items of ``lists``, each item's list index, index within the list, and record."""
    items = pc.list_flatten(lists)
    parents = pc.list_parent_indices(lists).cast(pa.int64())
    return items, parents, nt.positions(lists, parents), pc.take(parent_records, parents)


def _nonempty(lists: Any, records: Any, bad: set[int]) -> tuple[Any, Any, Any, Any]:
    """``_flat`` of envelope lists; an empty one is I_EMPTY_ENVELOPE: the record is refused."""
    _bad(pc.equal(_lengths(lists), 0), records, bad)
    return _flat(lists, records)


def _owner(items: Any, name: str, records: Any, bad: set[int]) -> tuple[Any, Any]:
    """The resource (scope) of each item and its dropped-attributes count (uint32 or refused)."""
    owner = pc.struct_field(items, name)
    dropped = pc.fill_null(pc.struct_field(owner, "droppedAttributesCount"), 0)
    _bad(nt.outside(dropped, 0, UINT32_MAX), records, bad)
    return owner, dropped


def _lengths(lists: Any) -> Any:
    return pc.fill_null(pc.list_value_length(lists), 0).cast(pa.int64())


def _exclusive_cumsum(values: Any) -> Any:
    return pc.subtract(pc.cumulative_sum(values), values)


def _bad(mask: Any, records: Any, into: set[int]) -> None:
    into.update(pc.unique(pc.filter(records, pc.fill_null(mask, True))).to_pylist())


def _time(values: Any, records: Any, bad: set[int], *, required: bool) -> Any:
    """Decimal times as uint64 (absent: null); non-canonical, zero or beyond int64: bad."""
    ok = nt.digits(values, 19)
    _bad(pc.and_kleene(pc.is_valid(values), pc.invert(ok)), records, bad)
    if required:
        _bad(pc.is_null(values), records, bad)
    number = pc.cast(pc.if_else(ok, values, pa.scalar("0")), pa.uint64())
    _bad(pc.greater(number, pa.scalar(INT64_MAX, pa.uint64())), records, bad)
    if required:
        _bad(pc.equal(number, pa.scalar(0, pa.uint64())), records, bad)
    return pc.if_else(ok, number, pa.scalar(None, pa.uint64()))


def _ids(values: Any, size: int, records: Any, bad: set[int], *, optional: bool = False) -> Any:
    ok = nt.hex_id(values, size)
    missing = pc.or_kleene(pc.is_null(values), pc.equal(pc.binary_length(values), 0))
    _bad(pc.invert(pc.or_kleene(ok, missing)) if optional else pc.invert(ok), records, bad)
    return ok


def decode(
    table: pa.Table,
    threshold: int,
    first_resource: int = 0,
    *,
    continued: tuple[int, int] | None = None,
) -> Decoded | set[int]:
    """The span tables of the parsed records, or the (table-local) records to refuse.
    ``first_resource``: the index of the records' first ``resourceSpans`` item in its list
    (a run of a document decoded on its own, ``native_parts``). ``continued`` (first scope,
    first span): that item and its first scope are the ones an earlier run began, this run
    holding them from that scope and span on — their rows are the earlier run's
    (``native_tables.continuing``), so the caller refuses a run whose continued item or scope
    has a schema URL, which the earlier run may not have seen (``native_parts``)."""
    n_records = table.num_rows
    bad: set[int] = set()
    record_ids = nt.arange(n_records)
    requests = table.column("resourceSpans").combine_chunks()
    _bad(pc.fill_null(pc.equal(pc.list_value_length(requests), 0), True), record_ids, bad)
    rs, _, rs_index, rs_rec = _flat(requests, record_ids)
    if first_resource:
        rs_index = pc.add(rs_index, first_resource)
    resource, res_dropped = _owner(rs, "resource", rs_rec, bad)
    scope_lists = pc.struct_field(rs, "scopeSpans")
    ss, ss_rs, ss_index, ss_rec = _nonempty(scope_lists, rs_rec, bad)
    scope, scope_dropped = _owner(ss, "scope", ss_rec, bad)
    span_lists = pc.struct_field(ss, "spans")
    sp, sp_ss, sp_index, sp_rec = _nonempty(span_lists, ss_rec, bad)
    sp_rs = pc.take(ss_rs, sp_ss)
    if continued is not None:  # places in the item and scope an earlier run began
        ss_index = pc.add(ss_index, pc.if_else(pc.equal(ss_rs, 0), continued[0], 0))
        sp_index = pc.add(sp_index, pc.if_else(pc.equal(sp_ss, 0), continued[1], 0))
    f = {name: pc.struct_field(sp, name) for name in SCHEMA_SPAN_FIELDS}
    _ids(f["traceId"], 16, sp_rec, bad)
    _ids(f["spanId"], 8, sp_rec, bad)
    parent_ok = _ids(f["parentSpanId"], 8, sp_rec, bad, optional=True)
    kind = pc.fill_null(f["kind"], 0)
    _bad(nt.outside(kind, 0, 5), sp_rec, bad)
    status = f["status"]
    code = pc.fill_null(pc.struct_field(status, "code"), 0)
    _bad(nt.outside(code, 0, 2), sp_rec, bad)
    start = _time(f["startTimeUnixNano"], sp_rec, bad, required=True)
    end = _time(f["endTimeUnixNano"], sp_rec, bad, required=True)
    _bad(pc.fill_null(pc.less(end, start), False), sp_rec, bad)
    for name in ("droppedAttributesCount", "droppedEventsCount", "droppedLinksCount"):
        _bad(pc.fill_null(pc.not_equal(f[name], 0), False), sp_rec, bad)
    flags = f["flags"]
    _bad(nt.outside(flags, 0, UINT32_MAX), sp_rec, bad)
    ev, ev_sp, ev_index, ev_rec = _flat(f["events"], sp_rec)
    ev_time = _time(pc.struct_field(ev, "timeUnixNano"), ev_rec, bad, required=False)
    ev_dropped = pc.fill_null(pc.struct_field(ev, "droppedAttributesCount"), 0)
    _bad(nt.outside(ev_dropped, 0, UINT32_MAX), ev_rec, bad)
    ln, ln_sp, ln_index, ln_rec = _flat(f["links"], sp_rec)
    ln_trace, ln_span = pc.struct_field(ln, "traceId"), pc.struct_field(ln, "spanId")
    _ids(ln_trace, 16, ln_rec, bad)
    _ids(ln_span, 8, ln_rec, bad)
    ln_flags = pc.struct_field(ln, "flags")
    _bad(nt.outside(ln_flags, 0, UINT32_MAX), ln_rec, bad)
    ln_dropped = pc.fill_null(pc.struct_field(ln, "droppedAttributesCount"), 0)
    _bad(nt.outside(ln_dropped, 0, UINT32_MAX), ln_rec, bad)
    if bad:
        return bad
    # each owner's place in the reference decoder's depth-first order (attribute row order)
    n_events, n_links = _lengths(f["events"]), _lengths(f["links"])
    span_cost = pc.add(pc.add(n_events, n_links), 1)
    before = _exclusive_cumsum(span_cost)
    sp_scope_row = sp_ss
    span_seq = pc.add(pc.add(pc.add(sp_rs, 1), pc.add(sp_scope_row, 1)), before)
    first_span = pc.take(_exclusive_starts(span_lists), nt.arange(len(ss)))
    scope_seq = pc.add(pc.add(pc.add(ss_rs, 1), nt.arange(len(ss))), pc.take(before, first_span))
    first_scope = _exclusive_starts(scope_lists)
    res_seq = pc.add(
        pc.add(nt.arange(len(rs)), first_scope),
        pc.take(before, pc.take(_exclusive_starts(span_lists), first_scope)),
    )
    ev_seq = pc.add(pc.add(pc.take(span_seq, ev_sp), 1), ev_index)
    ln_seq = pc.add(pc.add(pc.take(span_seq, ln_sp), pc.add(pc.take(n_events, ln_sp), 1)), ln_index)
    groups = [
        Owners("resource", pc.struct_field(resource, "attributes"), rs_rec, res_seq),
        Owners("scope", pc.struct_field(scope, "attributes"), ss_rec, scope_seq),
        Owners("span", f["attributes"], sp_rec, span_seq),
        Owners("event", pc.struct_field(ev, "attributes"), ev_rec, ev_seq),
        Owners("link", pc.struct_field(ln, "attributes"), ln_rec, ln_seq),
    ]
    attrs = attribute_rows(groups, threshold, MCP_APP_ROLE)
    if attrs.bad_records:
        return attrs.bad_records
    # resources and scopes: few; their identities and owner texts are written in Python
    rs_url = pc.struct_field(rs, "schemaUrl")
    res_identity, res_hash = tb.resource_identities(
        rs_url.to_pylist(),
        res_dropped.to_pylist(),
        attrs.canon["resource"].to_pylist(),
        attrs.resource_keys,
        attrs.resource_pieces,
    )
    ss_url = pc.struct_field(ss, "schemaUrl")
    names, versions = pc.struct_field(scope, "name"), pc.struct_field(scope, "version")
    scope_identity, owner_json = tb.scope_identities(
        res_identity,
        res_hash,
        zip(
            ss_rs.to_pylist(),
            names.to_pylist(),
            versions.to_pylist(),
            ss_url.to_pylist(),
            scope_dropped.to_pylist(),
            attrs.canon["scope"].to_pylist(),
            strict=True,
        ),
    )
    # spans: canonical content, vectorised, then one sha256 each
    trace_hex = pc.utf8_lower(f["traceId"])
    span_hex = pc.utf8_lower(f["spanId"])
    parent_hex = pc.if_else(
        parent_ok, pc.utf8_lower(f["parentSpanId"]), pa.scalar(None, pa.string())
    )
    ev_canon = nt.json_list(
        nt.decimal(ev_time, zero_is_null=True),
        nt.quoted(pc.struct_field(ev, "name")),
        nt.decimal(ev_dropped),
        nt.bracketed(attrs.canon["event"]),
    )
    ln_trace_state = pc.struct_field(ln, "traceState")
    ln_canon = nt.json_list(
        nt.quoted(pc.utf8_lower(ln_trace), escape=False),
        nt.quoted(pc.utf8_lower(ln_span), escape=False),
        nt.quoted(ln_trace_state),
        nt.decimal(ln_flags, zero_is_null=True),
        nt.bracketed(attrs.canon["link"]),
    )
    message = pc.struct_field(status, "message")
    canon_text = nt.json_list(  # canonical.span_hash's list, as orjson writes it
        pc.take(pa.array(owner_json, pa.large_string()), sp_ss),
        nt.quoted(trace_hex, escape=False),
        nt.quoted(span_hex, escape=False),
        nt.quoted(parent_hex, escape=False),
        nt.quoted(f["traceState"]),
        nt.decimal(flags, zero_is_null=True),
        nt.quoted(f["name"]),
        nt.decimal(kind),
        "null",  # kind_name_raw: kind is known
        nt.decimal(start),
        nt.decimal(end),
        nt.decimal(code),
        "null",  # status_code_name_raw
        nt.quoted(message),
        "[0,0,0]",  # dropped counts (a span with any falls back)
        nt.bracketed(attrs.canon["span"]),
        nt.bracketed(nt.joined(ev_canon, n_events)),
        nt.bracketed(nt.joined(ln_canon, n_links)),
    )
    n_spans = len(sp)
    out = {
        "resources": {
            "resource_row": nt.arange(len(rs)),
            "record_index": rs_rec,
            "resource_index": rs_index,
            "schema_url": rs_url,
            "dropped_attributes_count": res_dropped,
            "content_hash": tb.fixed(res_identity, 32),
        },
        "scopes": {
            "scope_row": nt.arange(len(ss)),
            "resource_row": ss_rs,
            "name": names,
            "version": versions,
            "schema_url": ss_url,
            "dropped_attributes_count": scope_dropped,
            "content_hash": tb.fixed(scope_identity, 32),
        },
        "spans": {
            "span_row": nt.arange(n_spans),
            "scope_row": sp_ss,
            "resource_row": sp_rs,
            "record_index": sp_rec,
            "trace_id": nt.id_bytes(f["traceId"], 16),
            "span_id": nt.id_bytes(f["spanId"], 8),
            "parent_span_id": tb.optional_ids(parent_hex, 8),
            "trace_state": f["traceState"],
            "flags": flags,
            "name": f["name"],
            "kind": kind,
            "kind_name_raw": pa.nulls(n_spans, pa.string()),
            "start_time_unix_nano": start,
            "end_time_unix_nano": end,
            "start_time": tb.timestamp(start),
            "end_time": tb.timestamp(end),
            "duration_ns": pc.subtract(end.cast(pa.int64()), start.cast(pa.int64())),
            "status_code": code,
            "status_code_name_raw": pa.nulls(n_spans, pa.string()),
            "status_message": message,
            "dropped_attributes_count": tb.zeros(n_spans),
            "dropped_events_count": tb.zeros(n_spans),
            "dropped_links_count": tb.zeros(n_spans),
            "oi_span_kind": attrs.oi_kind,
            "mcp_app_role": attrs.role,
            "content_hash": tb.hashes(canon_text),
            "json_path": nt.concat(
                "resourceSpans[",
                nt.decimal(pc.take(rs_index, sp_rs)),
                "].scopeSpans[",
                nt.decimal(pc.take(ss_index, sp_ss)),
                "].spans[",
                nt.decimal(sp_index),
                "]",
            ),
        },
        "events": {
            "event_row": nt.arange(len(ev)),
            "span_row": ev_sp,
            "ordinal": ev_index,
            "time_unix_nano": pc.if_else(
                pc.fill_null(pc.equal(ev_time, pa.scalar(0, pa.uint64())), False),
                pa.scalar(None, pa.uint64()),
                ev_time,
            ),
            "name": pc.struct_field(ev, "name"),
            "dropped_attributes_count": ev_dropped,
        },
        "links": {
            "link_row": nt.arange(len(ln)),
            "span_row": ln_sp,
            "ordinal": ln_index,
            "trace_id": nt.id_bytes(ln_trace, 16),
            "span_id": nt.id_bytes(ln_span, 8),
            "trace_state": ln_trace_state,
            "flags": ln_flags,
            "dropped_attributes_count": ln_dropped,
        },
    }
    events = out["events"]
    events["time"] = tb.timestamp(events["time_unix_nano"])
    result = {name: tb.conform(name, cols) for name, cols in out.items()}
    result["attributes"] = tb.conform(
        "attributes", dict(zip(attrs.table.column_names, attrs.table.columns, strict=True))
    )
    for name in ("large_values", "quarantine", "unknown_fields"):
        result[name] = tables.SPAN_TABLES[name].empty_table()
    if continued is not None:
        result, dropped = tb.continuing(result)
        return Decoded(result, n_spans, attrs.count - dropped)
    return Decoded(result, n_spans, attrs.count)


SCHEMA_SPAN_FIELDS = tuple(
    f.name
    for f in SCHEMA.field("resourceSpans")
    .type.value_type.field("scopeSpans")
    .type.value_type.field("spans")
    .type.value_type
)


def _exclusive_starts(lists: Any) -> Any:
    return _exclusive_cumsum(_lengths(lists))
