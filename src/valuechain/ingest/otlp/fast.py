"""The fast path of OTLP/JSON decoding: canonical records only, byte-identical to the reference.

``FastDecoder.decode`` takes the raw bytes of one record (an NDJSON line), decodes it with a
schema-aware ``msgspec`` decoder (Structs for the request, ResourceSpans, ScopeSpans, Span,
Event, Link, Status; camelCase field names; unknown fields refused) and appends its rows to the
*same* ``SpanDecoder`` columns the reference decoder fills, with the same row ids, canonical
content hashes and JSON paths.

Fallback rule: the fast path handles a record only when the reference decoder would record
**no issue at all** for it and reads it as exactly one OTLP trace record. Anything else —
a parse or type error (snake_case keys, base64 or malformed ids, enum names, numeric 64-bit
ints, nulls, NaN tokens, lone surrogates, invalid UTF-8, unknown fields, envelopes, other
signals), a key repeated in one object (``json_keys.may_repeat``), an empty envelope, a
missing/zero/out-of-range time, a negative duration, dropped counts on a span, duplicate
attribute keys, more than one AnyValue variant, an unusual double spelling, a large value, a
container AnyValue whose decoding notes anything — makes ``decode``
return ``False`` having written nothing, and the caller hands the record to the reference
decoder. A record is therefore decoded by exactly one of the two, and the reference decoder
stays the definition of the semantics. Attribute lists are turned into rows, under the same
rule, by ``fast_attributes.py``.

Why it stays beside the native path (``python -m bench otlp-paths``, issue 43): on large
exports the native path takes ~0.7-0.9x its CPU time, but a small document costs the native
path's set-up (~50 ms of CPU for a 24 KB trial file, against ~7 here and ~10 in the reference),
and the small-file import (``pipeline.small_files``, ``source.documents``) is built on it.

The Struct schema and the one walk that turns it into rows are read against each other line by
line (a field added to one must be added to the other); attribute rows (`fast_attributes`) and
the scalars' checks (`fast_scalars`) live apart.
"""

from __future__ import annotations

from typing import Any

import msgspec
from msgspec import UNSET, Struct, UnsetType

from valuechain.ingest.bytes import json_keys
from valuechain.ingest.otlp import canonical
from valuechain.ingest.otlp.fast_attributes import FallbackError, FastAttributes, KeyValue
from valuechain.ingest.otlp.fast_scalars import (
    checked_count,
    checked_event_time,
    checked_flags,
    checked_id,
    checked_time,
)
from valuechain.ingest.otlp.json import SpanDecoder
from valuechain.ingest.source.issue_log import Where

_NO_DROPS = (0, 0, 0)  # a span with a dropped count is not the fast path
# Every field that may be absent is UNSET when it is, so that the request written back holds
# exactly the keys read (``json_keys.may_repeat``); absent reads as the proto3 default.
_Int = int | UnsetType
_Str = str | UnsetType


class _Status(Struct, forbid_unknown_fields=True, rename="camel"):
    message: _Str = UNSET
    code: _Int = UNSET


class _Event(Struct, forbid_unknown_fields=True, rename="camel"):
    time_unix_nano: _Str = UNSET
    name: _Str = UNSET
    attributes: list[KeyValue] | UnsetType = UNSET
    dropped_attributes_count: _Int = UNSET


class _Link(Struct, forbid_unknown_fields=True, rename="camel"):
    trace_id: str
    span_id: str
    trace_state: _Str = UNSET
    attributes: list[KeyValue] | UnsetType = UNSET
    dropped_attributes_count: _Int = UNSET
    flags: _Int = UNSET


class _Span(Struct, forbid_unknown_fields=True, rename="camel"):
    trace_id: str
    span_id: str
    parent_span_id: _Str = UNSET
    trace_state: _Str = UNSET
    flags: _Int = UNSET
    name: _Str = UNSET
    kind: _Int = UNSET
    start_time_unix_nano: _Str = UNSET
    end_time_unix_nano: _Str = UNSET
    attributes: list[KeyValue] | UnsetType = UNSET
    dropped_attributes_count: _Int = UNSET
    events: list[_Event] | UnsetType = UNSET
    dropped_events_count: _Int = UNSET
    links: list[_Link] | UnsetType = UNSET
    dropped_links_count: _Int = UNSET
    status: _Status | UnsetType = UNSET


class _Scope(Struct, forbid_unknown_fields=True, rename="camel"):
    name: _Str = UNSET
    version: _Str = UNSET
    attributes: list[KeyValue] | UnsetType = UNSET
    dropped_attributes_count: _Int = UNSET


class _ScopeSpans(Struct, forbid_unknown_fields=True, rename="camel"):
    scope: _Scope | UnsetType = UNSET
    spans: list[_Span] | UnsetType = UNSET
    schema_url: _Str = UNSET


class _Resource(Struct, forbid_unknown_fields=True, rename="camel"):
    attributes: list[KeyValue] | UnsetType = UNSET
    dropped_attributes_count: _Int = UNSET
    entity_refs: msgspec.Raw | UnsetType = UNSET  # known (development) field, not read


class _ResourceSpans(Struct, forbid_unknown_fields=True, rename="camel"):
    resource: _Resource | UnsetType = UNSET
    scope_spans: list[_ScopeSpans] | UnsetType = UNSET
    schema_url: _Str = UNSET


class _Request(Struct, forbid_unknown_fields=True, rename="camel"):
    resource_spans: list[_ResourceSpans]


_DECODER = msgspec.json.Decoder(_Request)
_ENCODER = msgspec.json.Encoder()


def _text(value: str | UnsetType) -> str | None:
    return None if value is UNSET else value


class FastDecoder(FastAttributes):
    """Decodes canonical OTLP/JSON records straight into a ``SpanDecoder``'s columns."""

    def __init__(self, spans: SpanDecoder) -> None:
        self.spans = spans
        self.threshold = spans.large_value_threshold
        self.records = 0  # records this path decoded
        self._attr_rows: list[tuple[Any, ...]] = []
        self._span_rows: list[tuple[Any, ...]] = []
        self._event_rows: list[tuple[Any, ...]] = []
        self._link_rows: list[tuple[Any, ...]] = []
        self._resource_rows: list[tuple[Any, ...]] = []
        self._scope_rows: list[tuple[Any, ...]] = []
        self._attributes_read = 0

    def decode(self, raw: bytes, where: Where, *, written_here: bool = False) -> bool:
        """Append the rows of one canonical record; False (nothing written) otherwise.
        ``written_here``: ``raw`` was written by valuechain (a protobuf record's JSON), so no
        key can repeat in it."""
        try:
            request = _DECODER.decode(raw)
        except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
            return False  # RecursionError: nested beyond msgspec's stack; the reference caps it
        if not request.resource_spans:
            return False
        if not written_here:
            try:
                read = _ENCODER.encode(request)
            except (msgspec.EncodeError, OverflowError):  # an AnyValue int beyond 64 bits
                return False
            if json_keys.may_repeat(raw, read):
                return False  # the reference names the repeated key (W_DUPLICATE_JSON_KEY)
        cols = self.spans.cols
        base = {name: len(cols[name][next(iter(cols[name]))]) for name in _TABLES}
        self._next = dict(base)
        self._attributes_read = 0
        for rows in self._rows():
            rows.clear()
        try:
            spans_read = self._request(request, where.record_index or 0)
        except FallbackError:
            return False
        for name, rows in zip(_TABLES, self._rows(), strict=True):
            if rows:
                for column, values in zip(
                    cols[name].values(), zip(*rows, strict=True), strict=True
                ):
                    column.extend(values)
        self.spans.spans_read += spans_read
        self.spans.attributes_read += self._attributes_read
        self.spans.id_encodings.add("hex")
        self.records += 1
        return True

    def _rows(self) -> tuple[list[tuple[Any, ...]], ...]:
        return (
            self._resource_rows,
            self._scope_rows,
            self._span_rows,
            self._attr_rows,
            self._event_rows,
            self._link_rows,
        )

    # ------------------------------------------------------------------ envelopes
    def _request(self, request: _Request, record_index: int) -> int:
        spans_read = 0
        nxt = self._next
        for r_index, rs in enumerate(request.resource_spans):
            resource = rs.resource
            if resource is UNSET:
                r_attrs: list[KeyValue] | UnsetType = UNSET
                r_dropped = 0
            else:
                r_attrs = resource.attributes
                r_dropped = checked_count(resource.dropped_attributes_count)
            resource_row = nxt["resources"]
            nxt["resources"] += 1
            r_url = _text(rs.schema_url)
            resource_canon = self._attrs(r_attrs, "resource", resource_row)[0]
            identity = canonical.resource_identity(r_url, r_dropped, resource_canon)
            self._resource_rows.append(
                (resource_row, record_index, r_index, r_url, r_dropped, identity)
            )
            if not rs.scope_spans:
                raise FallbackError  # I_EMPTY_ENVELOPE
            resource_hash = canonical.resource_hash(resource_canon)
            rpath = f"resourceSpans[{r_index}].scopeSpans["
            for s_index, ss in enumerate(rs.scope_spans):
                scope = ss.scope
                scope_row = nxt["scopes"]
                nxt["scopes"] += 1
                if scope is UNSET:
                    name = version = None
                    s_attrs: list[KeyValue] | UnsetType = UNSET
                    s_dropped = 0
                else:
                    name = _text(scope.name)
                    version = _text(scope.version)
                    s_attrs = scope.attributes
                    s_dropped = checked_count(scope.dropped_attributes_count)
                s_url = _text(ss.schema_url)
                scope_canon = self._attrs(s_attrs, "scope", scope_row)[0]
                scope_identity = canonical.scope_identity(
                    identity, name, version, s_url, s_dropped, scope_canon
                )
                self._scope_rows.append(
                    (scope_row, resource_row, name, version, s_url, s_dropped, scope_identity)
                )
                owner = canonical.owner(resource_hash, name, version, scope_canon)
                if not ss.spans:
                    raise FallbackError  # I_EMPTY_ENVELOPE
                spath = f"{rpath}{s_index}].spans["
                for k, span in enumerate(ss.spans):
                    self._span(span, scope_row, resource_row, record_index, owner, spath, k)
                spans_read += len(ss.spans)
        return spans_read

    # ------------------------------------------------------------------ spans
    def _span(
        self,
        span: _Span,
        scope_row: int,
        resource_row: int,
        record_index: int,
        owner: str,
        spath: str,
        k: int,
    ) -> None:
        trace_id = checked_id(span.trace_id, 16)
        span_id = checked_id(span.span_id, 8)
        parent_raw = span.parent_span_id
        parent = checked_id(parent_raw, 8) if parent_raw else None
        kind = 0 if span.kind is UNSET else span.kind
        if not 0 <= kind <= 5:
            raise FallbackError
        status = span.status
        if status is UNSET:
            code, message = 0, None
        else:
            code = 0 if status.code is UNSET else status.code
            message = _text(status.message)
            if not 0 <= code <= 2:
                raise FallbackError
        start = checked_time(span.start_time_unix_nano)
        end = checked_time(span.end_time_unix_nano)
        duration = end - start
        if duration < 0:
            raise FallbackError
        if span.dropped_attributes_count or span.dropped_events_count or span.dropped_links_count:
            raise FallbackError  # W_DROPPED_AT_SOURCE (or an invalid count)
        nxt = self._next
        span_row = nxt["spans"]
        nxt["spans"] += 1
        attrs_canon, oi_kind, role = self._attrs(span.attributes, "span", span_row)
        events_canon = self._events(span.events, span_row) if span.events else []
        links_canon = self._links(span.links, span_row) if span.links else []
        trace_state = _text(span.trace_state)
        flags = checked_flags(span.flags)
        name = _text(span.name)
        content_hash = canonical.span_hash(
            owner,
            trace_id,
            span_id,
            parent,
            (trace_state, flags, name, kind, None, start, end, code, None, message),
            _NO_DROPS,
            attrs_canon,
            events_canon,
            links_canon,
        )
        self._span_rows.append(
            (
                span_row,
                scope_row,
                resource_row,
                record_index,
                trace_id,
                span_id,
                parent,
                trace_state,
                flags,
                name,
                kind,
                None,
                start,
                end,
                start,
                end,
                duration,
                code,
                None,
                message,
                0,
                0,
                0,
                oi_kind,
                role,
                content_hash,
                f"{spath}{k}]",
            )
        )

    def _events(self, events: list[_Event], span_row: int) -> list[Any]:
        canon: list[Any] = []
        nxt = self._next
        for ordinal, event in enumerate(events):
            raw_time = event.time_unix_nano
            time = None if raw_time is UNSET else checked_event_time(raw_time)
            event_row = nxt["events"]
            nxt["events"] += 1
            name = _text(event.name)
            dropped = checked_count(event.dropped_attributes_count)
            self._event_rows.append((event_row, span_row, ordinal, time, time, name, dropped))
            attrs = self._attrs(event.attributes, "event", event_row)[0]
            canon.append(canonical.event(time, name, dropped, attrs))
        return canon

    def _links(self, links: list[_Link], span_row: int) -> list[Any]:
        canon: list[Any] = []
        nxt = self._next
        for ordinal, link in enumerate(links):
            trace_id = checked_id(link.trace_id, 16)
            span_id = checked_id(link.span_id, 8)
            link_row = nxt["links"]
            nxt["links"] += 1
            trace_state = _text(link.trace_state)
            flags = checked_flags(link.flags)
            dropped = checked_count(link.dropped_attributes_count)
            self._link_rows.append(
                (link_row, span_row, ordinal, trace_id, span_id, trace_state, flags, dropped)
            )
            attrs = self._attrs(link.attributes, "link", link_row)[0]
            canon.append(canonical.link(trace_id, span_id, trace_state, flags, attrs))
        return canon


_TABLES = ("resources", "scopes", "spans", "attributes", "events", "links")
