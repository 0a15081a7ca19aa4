"""The native path's output: identities of resources and scopes, span hashes, the tables.

Resources and scopes are few (one of each per record, typically): their identities and the
owner text their spans hash under are written in Python from the canonical attribute texts
``native_attributes`` built, exactly as ``canonical.py`` writes them. Spans are many: their
canonical texts are hashed over the Arrow buffer, one sha256 each.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from typing import Any

import orjson
import pyarrow as pa
import pyarrow.compute as pc

from valuechain.contract import tables
from valuechain.ingest.otlp import canonical

_sha256 = hashlib.sha256
_dumps = orjson.dumps


def resource_identities(
    urls: list[str | None],
    dropped: list[int],
    canon: list[str],
    keys: list[list[str]],
    pieces: list[list[str]],
) -> tuple[list[bytes], list[str]]:
    """Per resource: ``canonical.resource_identity`` and ``canonical.resource_hash``."""
    identities, hashes = [], []
    for url, count, text, ks, ps in zip(urls, dropped, canon, keys, pieces, strict=True):
        head = _dumps(url or None) + b"," + str(count or 0).encode() + b","
        identities.append(_sha256(b"[" + head + b"[" + text.encode() + b"]]").digest())
        content = ",".join(p for k, p in zip(ks, ps, strict=True) if not canonical.is_envelope(k))
        hashes.append(_sha256(f"[{content}]".encode()).hexdigest())
    return identities, hashes


def scope_identities(
    identities: list[bytes], hashes: list[str], scopes: Iterable[tuple[Any, ...]]
) -> tuple[list[bytes], list[str]]:
    """Per scope: ``canonical.scope_identity`` and ``canonical.owner`` as a JSON string."""
    out, owners = [], []
    for r, name, version, url, dropped, text in scopes:
        head = _dumps([identities[r].hex(), name or None, version or None, url or None])
        tail = b",[" + text.encode() + b"]]"
        out.append(_sha256(head[:-1] + b"," + str(dropped or 0).encode() + tail).digest())
        owner = _dumps([hashes[r], name or None, version or None])[:-1] + tail
        owners.append(_dumps(owner.decode()).decode())
    return out, owners


def zeros(n: int) -> Any:
    return pc.fill_null(pa.nulls(n, pa.uint32()), 0) if n else pa.array([], pa.uint32())


def timestamp(values: Any) -> Any:
    return pc.cast(pc.cast(values, pa.int64()), pa.timestamp("ns", tz="UTC"))


def fixed(digests: list[bytes], size: int) -> pa.Array:
    return pa.FixedSizeBinaryArray.from_buffers(
        pa.binary(size), len(digests), [None, pa.py_buffer(b"".join(digests))]
    )


def optional_ids(hex_values: Any, size: int) -> pa.Array:
    values = [None if h is None else bytes.fromhex(h) for h in hex_values.to_pylist()]
    return pa.array(values, pa.binary(size))


def hashes(texts: Any) -> pa.Array:
    """One sha256 per canonical text, over the Arrow buffer without copying each text."""
    texts = texts.cast(pa.large_string())
    if len(texts) == 0:
        return pa.array([], pa.binary(32))
    _, offsets_buffer, data_buffer = texts.buffers()
    offsets = memoryview(offsets_buffer).cast("q")[texts.offset : texts.offset + len(texts) + 1]
    data = memoryview(data_buffer)
    digests = [_sha256(data[offsets[i] : offsets[i + 1]]).digest() for i in range(len(texts))]
    return fixed(digests, 32)


def conform(name: str, cols: dict[str, Any]) -> pa.Table:
    schema = tables.SPAN_TABLES[name]
    arrays = {}
    for fld in schema:
        column = cols[fld.name]
        if isinstance(column, pa.ChunkedArray):
            column = column.combine_chunks()
        arrays[fld.name] = column.cast(fld.type)
    return tables.conform(pa.table(arrays), schema)


_OWNERS_BEFORE = pa.array(["resource", "scope"])


def continuing(result: dict[str, pa.Table]) -> tuple[dict[str, pa.Table], int]:
    """The tables of a run that goes on in an item and scope an earlier run began (their
    rows are row 0 of each here): those rows and their attributes are dropped, every other
    resource and scope row moves down one, and what pointed at them points at -1 — the row
    just before this run's, which ``merge.rebase`` makes the earlier run's. Returns the tables
    and how many attribute rows were dropped."""
    out = dict(result)
    out["resources"] = _moved(result["resources"].slice(1), ("resource_row",))
    out["scopes"] = _moved(result["scopes"].slice(1), ("scope_row", "resource_row"))
    out["spans"] = _moved(result["spans"], ("scope_row", "resource_row"))
    attributes = result["attributes"]
    before = pc.is_in(attributes["owner_type"], value_set=_OWNERS_BEFORE)
    kept = attributes.filter(pc.invert(pc.and_(before, pc.equal(attributes["owner_row"], 0))))
    shift = pc.if_else(pc.is_in(kept["owner_type"], value_set=_OWNERS_BEFORE), -1, 0)
    position = kept.schema.get_field_index("owner_row")
    moved = pc.add(kept["owner_row"], shift.cast(kept.schema.field(position).type))
    out["attributes"] = kept.set_column(position, kept.schema.field(position), moved)
    return out, attributes.num_rows - kept.num_rows


def _moved(table: pa.Table, columns: Iterable[str]) -> pa.Table:
    for column in columns:
        position = table.schema.get_field_index(column)
        field = table.schema.field(position)
        table = table.set_column(
            position, field, pc.subtract(table[column], pa.scalar(1, field.type))
        )
    return table
