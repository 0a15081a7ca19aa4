"""A span's canonical content: what the protocol means, hashed (TRACE-FORMAT §5.2).

Two copies of a span (same trace id and span id) are exact duplicates when their canonical
contents are equal, and conflicting duplicates otherwise. The canonical content is the span's
fields, attributes, events and links, its scope and its resource, read as the protocol means
them, so that the same span written by two exporters, or exported twice, is one span:

- proto3 defaults equal absence: an empty string (`traceState`, `name`, `status.message`,
  `scope.name`/`version`), a zero (`flags`, dropped counts, times) and an empty list
  (`attributes`, `events`, `links`) are the field left out, and so is `"status": {}`;
- an enum given by name is its integer (`"SPAN_KIND_SERVER"` is 2); an int64 written as a JSON
  number or a decimal string is one value; hex and base64 ids are one id (the decoders hand
  over bytes and typed values, so these already agree);
- attribute lists compare as the maps they are: in key order (a stable sort, so the first of
  duplicated keys still comes first);
- the resource is compared **without its export envelope** (`is_envelope`).

The export envelope is what describes one act of exporting rather than the spans: every
resource attribute whose key starts with `mcp.app.export.` (TRACE-FORMAT §3.4: `producer`,
`scope`, `created_time`, and any later key of that namespace) **except** `schema_version` and
`include_content`, which decide how the spans are read (whether the contract is in force and at
which version; whether absent content is redacted or missing) and are therefore content. The
same trace in a run export and a project export, or re-exported a day later, is one trace.

The store also keeps each resource and scope once (``resource_identity``, ``scope_identity``):
the same resource sent in every record of a stream, or again by an overlapping export, is one
row with one set of attributes. Identity there is the resource's whole content, envelope
included — two exports' envelopes are two resources, each kept as evidence of its export.

The decoders (reference, fast path, protobuf through the reference) all hash through here, so
they agree by construction.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any, Final

import orjson

ENVELOPE_PREFIX: Final = "mcp.app.export."
ENVELOPE_CONTENT_KEYS: Final = frozenset(
    {"mcp.app.export.schema_version", "mcp.app.export.include_content"}
)

_dumps = orjson.dumps
_sha256 = hashlib.sha256


def is_envelope(key: str) -> bool:
    """Whether a resource attribute describes the act of exporting, not the spans."""
    return key.startswith(ENVELOPE_PREFIX) and key not in ENVELOPE_CONTENT_KEYS


def _key(item: list[Any]) -> str:
    return item[0]  # type: ignore[no-any-return]


def attributes(canon: list[Any]) -> list[Any]:
    """An attribute list ([key, type, value] items) as the map it means: in key order."""
    return sorted(canon, key=_key) if len(canon) > 1 else canon


def resource_hash(canon: list[Any]) -> str:
    """The resource's content without its export envelope (hex sha256)."""
    content = [a for a in canon if not is_envelope(a[0])]
    return _sha256(_dumps(attributes(content))).hexdigest()


def resource_identity(schema_url: str | None, dropped: int | None, canon: list[Any]) -> bytes:
    """What makes two stored resources one (envelope included: it is the resource's content,
    kept as evidence of each export), so that each resource is stored once."""
    return _sha256(_dumps([schema_url or None, dropped or 0, attributes(canon)])).digest()


def scope_identity(
    resource: bytes,
    name: str | None,
    version: str | None,
    schema_url: str | None,
    dropped: int | None,
    canon: list[Any],
) -> bytes:
    """What makes two stored scopes one: the same content under the same resource."""
    content = [
        resource.hex(),
        name or None,
        version or None,
        schema_url or None,
        dropped or 0,
        attributes(canon),
    ]
    return _sha256(_dumps(content)).digest()


def owner(resource: str, name: str | None, version: str | None, scope_canon: list[Any]) -> str:
    """The canonical text of a span's resource and scope, shared by the spans under them."""
    return _dumps([resource, name or None, version or None, attributes(scope_canon)]).decode()


def event(time: int | None, name: str | None, dropped: int | None, canon: list[Any]) -> list[Any]:
    return [time or None, name or None, dropped or 0, attributes(canon)]


def link(
    trace_id: bytes,
    span_id: bytes,
    trace_state: str | None,
    flags: int | None,
    canon: list[Any],
) -> list[Any]:
    return [trace_id.hex(), span_id.hex(), trace_state or None, flags or None, attributes(canon)]


def span_hash(
    owner_text: str,
    trace_id: bytes,
    span_id: bytes,
    parent: bytes | None,
    fields: Sequence[Any],
    dropped: Sequence[int | None],
    attrs: list[Any],
    events: list[Any],
    links: list[Any],
) -> bytes:
    """The sha256 of a span's canonical content.

    Args:
        fields: (trace_state, flags, name, kind, kind_name_raw, start, end, status_code,
            status_code_name_raw, status_message) as decoded; a raw enum name counts only when
            it named no known value (then the integer is null).
    """
    trace_state, flags, name, kind, kind_raw, start, end, code, code_raw, message = fields
    canon = [
        owner_text,
        trace_id.hex(),
        span_id.hex(),
        parent.hex() if parent else None,
        trace_state or None,
        flags or None,
        name or None,
        kind,
        kind_raw if kind is None else None,
        start or None,
        end or None,
        code,
        code_raw if code is None else None,
        message or None,
        [d or 0 for d in dropped],
        attributes(attrs),
        events,
        links,
    ]
    return _sha256(_dumps(canon)).digest()
