"""Pure OTLP/JSON decoding: one parsed trace request in, column rows out (TRACE-FORMAT §1).

``SpanDecoder.decode_request`` takes a request that a JSON parser already produced (dicts and
lists) and appends rows to the span tables of §6, recording every problem in the source's
``IssueLog``. It never opens files and never raises on bad *data*: bad items are quarantined
with their raw JSON, odd-but-legal constructs are noted, and the accounting invariant of §5.1
holds for everything it is given.
"""

from __future__ import annotations

from typing import Any

from valuechain.contract.issues import Code
from valuechain.contract.tables import INT64_MAX, MCP_APP_ROLE, OI_SPAN_KIND
from valuechain.ingest.otlp import canonical, scalars
from valuechain.ingest.otlp.fields import FieldDecoder
from valuechain.ingest.otlp.keys import (
    EVENT,
    LINK,
    RESOURCE,
    RESOURCE_SPANS,
    SCOPE,
    SCOPE_SPANS,
    SPAN,
    STATUS,
    normalise,
)
from valuechain.ingest.source.issue_log import Where


class SpanDecoder(FieldDecoder):
    """Accumulates the span tables of one source, record by record."""

    # ----------------------------------------------------------------- entry point
    def decode_request(self, request: dict[str, Any], where: Where, prefix: str = "") -> None:
        """Decode one ExportTraceServiceRequest-shaped object (``resourceSpans`` already found)."""
        self.where = where
        rs_key = "resourceSpans" if "resourceSpans" in request else "resource_spans"
        if rs_key == "resource_spans":
            self._note(Code.I_SNAKE_CASE_KEYS, "snake_case field names", prefix + rs_key)
        for key in request.keys() - {rs_key}:  # §5.2: unknown fields are ignored but kept
            self._unknown_field(f"{prefix}{key}", request[key])
        resource_spans = request.get(rs_key)
        path = f"{prefix}{rs_key}"
        if resource_spans is None:
            resource_spans = []
        if not isinstance(resource_spans, list):
            self._invalid(path, resource_spans, "expected a list of ResourceSpans")
            return
        if not resource_spans:
            self._note(Code.I_EMPTY_ENVELOPE, "a request with no ResourceSpans", path)
        for r_index, rs in enumerate(resource_spans):
            self._resource_spans(rs, r_index, f"{path}[{r_index}]")

    # ----------------------------------------------------------------- envelopes
    def _obj(self, value: Any, spec: Any, path: str) -> dict[str, Any] | None:
        if value is None:
            return {}
        if not isinstance(value, dict):
            self._invalid(path, value, "expected an object")
            return None
        obj, snake, unknown = normalise(value, spec)
        if snake:
            self._note(Code.I_SNAKE_CASE_KEYS, "snake_case field names", path)
        for key, raw in unknown:
            self._unknown_field(f"{path}.{key}", raw)
        return obj

    def _resource_spans(self, raw: Any, r_index: int, path: str) -> None:
        rs = self._obj(raw, RESOURCE_SPANS, path)
        if rs is None:
            return
        resource = self._obj(rs.get("resource"), RESOURCE, f"{path}.resource") or {}
        resource_row = len(self.cols["resources"]["resource_row"])
        c = self.cols["resources"]
        c["resource_row"].append(resource_row)
        c["record_index"].append(self.where.record_index or 0)
        c["resource_index"].append(r_index)
        c["schema_url"].append(scalars.text(rs.get("schemaUrl")))
        c["dropped_attributes_count"].append(
            self._count(resource.get("droppedAttributesCount"), f"{path}.resource")
        )
        resource_canon = self._attributes(
            resource.get("attributes"), "resource", resource_row, f"{path}.resource.attributes"
        )
        identity = canonical.resource_identity(
            c["schema_url"][-1], c["dropped_attributes_count"][-1], resource_canon
        )
        c["content_hash"].append(identity)
        scope_spans_key = "scopeSpans"
        scope_spans = rs.get("scopeSpans")
        if scope_spans is None and rs.get("instrumentationLibrarySpans") is not None:
            scope_spans_key = "instrumentationLibrarySpans"
            scope_spans = rs["instrumentationLibrarySpans"]
            self._note(Code.W_LEGACY_IL_SPANS, "legacy instrumentationLibrarySpans", path)
        scope_list = self._list(scope_spans, f"{path}.{scope_spans_key}")
        if not scope_list:
            self._note(Code.I_EMPTY_ENVELOPE, "a ResourceSpans with no ScopeSpans", path)
        resource_hash = canonical.resource_hash(resource_canon)
        for s_index, ss in enumerate(scope_list):
            self._scope_spans(
                ss, resource_row, (identity, resource_hash), f"{path}.{scope_spans_key}[{s_index}]"
            )

    def _scope_spans(
        self, raw: Any, resource_row: int, resource: tuple[bytes, str], path: str
    ) -> None:
        ss = self._obj(raw, SCOPE_SPANS, path)
        if ss is None:
            return
        scope_key = "scope"
        scope_raw = ss.get("scope")
        if scope_raw is None and ss.get("instrumentationLibrary") is not None:
            scope_key, scope_raw = "instrumentationLibrary", ss["instrumentationLibrary"]
            self._note(Code.W_LEGACY_IL_SPANS, "legacy instrumentationLibrary", path)
        scope = self._obj(scope_raw, SCOPE, f"{path}.{scope_key}") or {}
        scope_row = len(self.cols["scopes"]["scope_row"])
        c = self.cols["scopes"]
        c["scope_row"].append(scope_row)
        c["resource_row"].append(resource_row)
        c["name"].append(scalars.text(scope.get("name")))
        c["version"].append(scalars.text(scope.get("version")))
        c["schema_url"].append(scalars.text(ss.get("schemaUrl")))
        c["dropped_attributes_count"].append(
            self._count(scope.get("droppedAttributesCount"), f"{path}.{scope_key}")
        )
        scope_canon = self._attributes(
            scope.get("attributes"), "scope", scope_row, f"{path}.{scope_key}.attributes"
        )
        c["content_hash"].append(
            canonical.scope_identity(
                resource[0],
                c["name"][-1],
                c["version"][-1],
                c["schema_url"][-1],
                c["dropped_attributes_count"][-1],
                scope_canon,
            )
        )
        owner = canonical.owner(resource[1], c["name"][-1], c["version"][-1], scope_canon)
        spans = self._list(ss.get("spans"), f"{path}.spans")
        if not spans:
            self._note(Code.I_EMPTY_ENVELOPE, "a ScopeSpans with no spans", path)
        for k, span in enumerate(spans):
            self._span(span, scope_row, resource_row, owner, f"{path}.spans[{k}]")

    # ----------------------------------------------------------------- spans
    def _span(self, raw: Any, scope_row: int, resource_row: int, owner: str, path: str) -> None:
        self.spans_read += 1
        span = self._obj(raw, SPAN, path)
        if span is None:
            self._quarantine_span(raw, path, [Code.W_INVALID_VALUE.value])
            return
        trace_id = self._id(span.get("traceId"), 16, f"{path}.traceId")
        span_id = self._id(span.get("spanId"), 8, f"{path}.spanId")
        if isinstance(trace_id, str) or isinstance(span_id, str):
            codes = [c for c in (trace_id, span_id) if isinstance(c, str)]
            self._quarantine_span(raw, path, codes)
            return
        assert trace_id is not None and span_id is not None
        parent = self._parent_id(span.get("parentSpanId"), f"{path}.parentSpanId")
        span_row = len(self.cols["spans"]["span_row"])
        kind, kind_raw = self._enum(span.get("kind"), scalars.SPAN_KINDS, f"{path}.kind")
        status = self._obj(span.get("status"), STATUS, f"{path}.status") or {}
        code, code_raw = self._enum(status.get("code"), scalars.STATUS_CODES, f"{path}.status.code")
        start = self._time(span.get("startTimeUnixNano"), f"{path}.startTimeUnixNano")
        end = self._time(span.get("endTimeUnixNano"), f"{path}.endTimeUnixNano")
        duration = None
        if start is not None and end is not None:
            duration = end - start
            if duration < 0:
                self._issue(
                    Code.W_NEGATIVE_DURATION,
                    f"endTimeUnixNano is {-duration} ns before startTimeUnixNano",
                    path,
                    None,
                    span_row,
                )
        dropped = tuple(
            self._count(span.get(k), path)
            for k in ("droppedAttributesCount", "droppedEventsCount", "droppedLinksCount")
        )
        if any(dropped):
            self._issue(
                Code.W_DROPPED_AT_SOURCE,
                "the producer dropped attributes/events/links "
                f"({dropped[0]}/{dropped[1]}/{dropped[2]})",
                path,
                None,
                span_row,
            )
        attrs_canon = self._attributes(
            span.get("attributes"), "span", span_row, f"{path}.attributes"
        )
        events_canon = self._events(span.get("events"), span_row, f"{path}.events")
        links_canon = self._links(span.get("links"), span_row, f"{path}.links")
        trace_state = scalars.text(span.get("traceState"))
        flags = self._uint32(span.get("flags"), f"{path}.flags")
        name = scalars.text(span.get("name"))
        message = scalars.text(status.get("message"))
        content_hash = canonical.span_hash(
            owner,
            trace_id,
            span_id,
            parent,
            (trace_state, flags, name, kind, kind_raw, start, end, code, code_raw, message),
            dropped,
            attrs_canon,
            events_canon,
            links_canon,
        )
        c = self.cols["spans"]
        c["span_row"].append(span_row)
        c["scope_row"].append(scope_row)
        c["resource_row"].append(resource_row)
        c["record_index"].append(self.where.record_index or 0)
        c["trace_id"].append(trace_id)
        c["span_id"].append(span_id)
        c["parent_span_id"].append(parent)
        c["trace_state"].append(trace_state)
        c["flags"].append(flags)
        c["name"].append(name)
        c["kind"].append(kind)
        c["kind_name_raw"].append(kind_raw)
        c["start_time_unix_nano"].append(start)
        c["end_time_unix_nano"].append(end)
        c["start_time"].append(self._timestamp(start, f"{path}.startTimeUnixNano"))
        c["end_time"].append(self._timestamp(end, f"{path}.endTimeUnixNano"))
        c["duration_ns"].append(
            duration if duration is None or -INT64_MAX <= duration <= INT64_MAX else None
        )
        c["status_code"].append(code)
        c["status_code_name_raw"].append(code_raw)
        c["status_message"].append(message)
        c["dropped_attributes_count"].append(dropped[0])
        c["dropped_events_count"].append(dropped[1])
        c["dropped_links_count"].append(dropped[2])
        c["oi_span_kind"].append(_first_string(attrs_canon, OI_SPAN_KIND))
        c["mcp_app_role"].append(_first_string(attrs_canon, MCP_APP_ROLE))
        c["content_hash"].append(content_hash)
        c["json_path"].append(path)
        if start is None or end is None:
            self._issue(
                Code.W_MISSING_TIME, "the span has no start or end time", path, None, span_row
            )

    def _quarantine_span(self, raw: Any, path: str, codes: list[str]) -> None:
        self.spans_quarantined += 1
        if isinstance(raw, dict):
            n = _attribute_count(raw)
            self.attributes_read += n
            self.attributes_quarantined += n
        self._quarantine(raw, path, codes)

    def _events(self, raw: Any, span_row: int, path: str) -> list[Any]:
        canon: list[Any] = []
        for ordinal, item in enumerate(self._list(raw, path)):
            epath = f"{path}[{ordinal}]"
            event = self._obj(item, EVENT, epath)
            if event is None:
                continue
            event_row = len(self.cols["events"]["event_row"])
            time = self._time(event.get("timeUnixNano"), f"{epath}.timeUnixNano")
            c = self.cols["events"]
            c["event_row"].append(event_row)
            c["span_row"].append(span_row)
            c["ordinal"].append(ordinal)
            c["time_unix_nano"].append(time)
            c["time"].append(self._timestamp(time, f"{epath}.timeUnixNano"))
            c["name"].append(scalars.text(event.get("name")))
            c["dropped_attributes_count"].append(
                self._count(event.get("droppedAttributesCount"), epath)
            )
            attrs = self._attributes(
                event.get("attributes"), "event", event_row, f"{epath}.attributes"
            )
            canon.append(
                canonical.event(time, c["name"][-1], c["dropped_attributes_count"][-1], attrs)
            )
        return canon

    def _links(self, raw: Any, span_row: int, path: str) -> list[Any]:
        canon: list[Any] = []
        for ordinal, item in enumerate(self._list(raw, path)):
            lpath = f"{path}[{ordinal}]"
            link = self._obj(item, LINK, lpath)
            if link is None:
                continue
            trace_id = self._id(link.get("traceId"), 16, f"{lpath}.traceId")
            span_id = self._id(link.get("spanId"), 8, f"{lpath}.spanId")
            if isinstance(trace_id, str) or isinstance(span_id, str):
                n = len(self._list(link.get("attributes"), lpath))
                self.attributes_read += n
                self.attributes_quarantined += n
                self._quarantine(
                    item, lpath, [c for c in (trace_id, span_id) if isinstance(c, str)]
                )
                continue
            link_row = len(self.cols["links"]["link_row"])
            c = self.cols["links"]
            c["link_row"].append(link_row)
            c["span_row"].append(span_row)
            c["ordinal"].append(ordinal)
            c["trace_id"].append(trace_id)
            c["span_id"].append(span_id)
            c["trace_state"].append(scalars.text(link.get("traceState")))
            c["flags"].append(self._uint32(link.get("flags"), f"{lpath}.flags"))
            c["dropped_attributes_count"].append(
                self._count(link.get("droppedAttributesCount"), lpath)
            )
            attrs = self._attributes(
                link.get("attributes"), "link", link_row, f"{lpath}.attributes"
            )
            assert trace_id is not None and span_id is not None
            canon.append(
                canonical.link(trace_id, span_id, c["trace_state"][-1], c["flags"][-1], attrs)
            )
        return canon


def _first_string(canon: list[Any], key: str) -> str | None:
    for k, value_type, value in canon:
        if k == key:
            return value if value_type == "string" else None
    return None


def _attribute_count(span: dict[str, Any]) -> int:
    def n(obj: Any) -> int:
        attrs = obj.get("attributes") if isinstance(obj, dict) else None
        return len(attrs) if isinstance(attrs, list) else 0

    total = n(span)
    for key in ("events", "links"):
        items = span.get(key)
        if isinstance(items, list):
            total += sum(n(item) for item in items)
    return total
