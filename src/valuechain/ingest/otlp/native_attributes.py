"""The native path's attribute rows: every owner's KeyValue lists, in one vectorised pass.

``attribute_rows`` takes the flattened KeyValues of all owners (with each owner's place in the
reference decoder's depth-first order) and returns the attribute table in that order, each
owner's canonical attribute text (``canonical.attributes`` as orjson writes it), and the
records the native path must not take: those holding a value the reference would note
(``fast_attributes.py``'s fallback rule, read conservatively — a refused record costs speed,
never correctness).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from valuechain.contract.tables import OI_SPAN_KIND
from valuechain.ingest.otlp import anyvalue
from valuechain.ingest.otlp import native_text as nt

_EXACT_INT_DOUBLE = float(1 << 53)
_ORDINAL_BITS = 24


@dataclass(slots=True)
class Owners:
    """The KeyValues of one owner type, flattened, with their owners."""

    owner_type: str
    kvs: Any  # the owners' list<KeyValue> column
    records: Any  # record index of each owner
    seq: Any  # each owner's place in the depth-first order


@dataclass(slots=True)
class Attributes:
    table: pa.Table  # attribute rows without their owner-type grouping, in reference order
    canon: dict[str, Any]  # owner type → "[…]" canonical text per owner
    resource_keys: list[list[str]]  # per resource: sorted keys (for the envelope-free hash)
    resource_pieces: list[list[str]]
    oi_kind: Any  # per span: the openinference.span.kind string, or null
    role: Any  # per span: the mcp.app.span.role string, or null
    bad_records: set[int]
    count: int


def attribute_rows(groups: list[Owners], threshold: int, role_key: str) -> Attributes:
    """Attribute rows of all owners, or the records that must fall back."""
    parts: list[dict[str, Any]] = []
    for g in groups:
        kvs = g.kvs
        flat = pc.list_flatten(kvs)
        parents = pc.list_parent_indices(kvs)
        n = len(flat)
        parts.append(
            {
                "owner_type": _repeat(g.owner_type, n, pa.string()),
                "type_code": _repeat(len(parts), n, pa.int8()),
                "owner_row": parents.cast(pa.int64()),
                "ordinal": nt.positions(kvs, parents),
                "record": pc.take(g.records, parents),
                "order": pc.add(
                    pc.multiply(pc.take(g.seq, parents), 1 << _ORDINAL_BITS),
                    nt.positions(kvs, parents),
                ),
                "key": pc.struct_field(flat, "key"),
                "value": pc.struct_field(flat, "value"),
                "lengths": pc.list_value_length(kvs),
            }
        )
    key = pa.concat_arrays([p["key"] for p in parts]) if parts else pa.array([], pa.string())
    value = pa.concat_arrays([p["value"] for p in parts])
    record = pa.concat_arrays([p["record"] for p in parts])
    ordinal = pa.concat_arrays([p["ordinal"] for p in parts])
    n = len(key)
    bad = pc.or_kleene(pc.is_null(key), pc.greater_equal(ordinal, 1 << _ORDINAL_BITS))
    fields = {v: pc.struct_field(value, v) for v in nt.VARIANTS}
    present = {v: pc.is_valid(f) for v, f in fields.items()}
    count = _repeat(0, n, pa.int64())
    for mask in present.values():
        count = pc.add(count, pc.cast(mask, pa.int64()))
    bad = pc.or_kleene(bad, pc.greater(count, 1))
    strings = fields[nt.STRING_VALUE]
    bad = pc.or_kleene(bad, pc.fill_null(pc.greater(pc.utf8_length(strings), threshold), False))
    ints = fields[nt.INT_VALUE]
    bad = pc.or_kleene(bad, pc.and_kleene(present[nt.INT_VALUE], pc.invert(nt.int64_text(ints))))
    doubles = fields[nt.DOUBLE_VALUE]
    bad = pc.or_kleene(bad, pc.fill_null(pc.greater(pc.abs(doubles), _EXACT_INT_DOUBLE), False))
    bad = pc.or_kleene(bad, present[nt.KVLIST_VALUE])
    array_text, array_bad = _scalar_arrays(fields[nt.ARRAY_VALUE])
    bad = pc.or_kleene(bad, pc.and_kleene(present[nt.ARRAY_VALUE], array_bad))
    bytes_values, bytes_bad = _bytes(fields[nt.BYTES_VALUE], threshold)
    bad = pc.or_kleene(bad, bytes_bad)
    # duplicate keys within an owner (W_DUPLICATE_ATTRIBUTE_KEY): the reference notes them
    owner_code = pa.concat_arrays([p["order"] for p in parts])
    owner_only = pc.shift_right(owner_code, _ORDINAL_BITS)
    by_key = pc.sort_indices(
        pa.table({"o": owner_only, "k": key}), sort_keys=[("o", "ascending"), ("k", "ascending")]
    )
    sorted_owner = pc.take(owner_only, by_key)
    sorted_key = pc.take(key, by_key)
    if n > 1:
        same = pc.and_kleene(
            pc.equal(sorted_owner[1:], sorted_owner[:-1]), pc.equal(sorted_key[1:], sorted_key[:-1])
        )
        dup_records = pc.filter(pc.take(record, by_key)[1:], pc.fill_null(same, False))
    else:
        dup_records = pa.array([], pa.int64())
    bad_records = set(pc.unique(pc.filter(record, pc.fill_null(bad, True))).to_pylist())
    bad_records |= set(dup_records.to_pylist())
    if bad_records:
        return Attributes(pa.table({}), {}, [], [], None, None, bad_records, n)
    # values, value types and each attribute's canonical piece: ["key","type",value]
    code = _repeat(len(_TYPES) - 1, n, pa.int8())  # empty
    int_values = pc.cast(pc.if_else(present[nt.INT_VALUE], ints, pa.scalar("0")), pa.int64())
    int_values = pc.if_else(present[nt.INT_VALUE], int_values, pa.scalar(None, pa.int64()))
    texts = []  # each variant's text where it is present (null elsewhere), merged in one pass
    for index, (variant, _, _) in enumerate(_TYPES[:-1]):
        mask = present[variant]
        if not pc.any(mask).as_py():
            continue
        code = pc.if_else(mask, pa.scalar(index, pa.int8()), code)
        if variant in (nt.DOUBLE_VALUE, nt.BYTES_VALUE):  # few: spelled in Python
            source = fields[variant] if variant == nt.DOUBLE_VALUE else bytes_values
            spelled = [_spelled(x) for x in pc.filter(source, mask).to_pylist()]
            empty = pa.nulls(n, pa.large_string())
            texts.append(pc.replace_with_mask(empty, mask, pa.array(spelled, pa.large_string())))
            continue
        texts.append(_render(variant, fields, int_values, array_text, mask))
    text = pc.coalesce(*texts, pa.scalar("", pa.large_string()))
    value_type = pc.take(_TYPE_NAMES, code)
    piece = nt.concat('["', nt.escaped(key), pc.take(_MIDDLES, code), text, pc.take(_ENDS, code))
    table = pa.table(
        {
            "owner_type": pa.concat_arrays([p["owner_type"] for p in parts]),
            "owner_row": pa.concat_arrays([p["owner_row"] for p in parts]),
            "ordinal": ordinal,
            "key": key,
            "value_type": value_type,
            "string_value": strings,
            "int_value": int_values,
            "double_value": doubles,
            "bool_value": fields[nt.BOOL_VALUE],
            "bytes_value": bytes_values,
            "json_value": array_text,
            "large_value_ref": pa.nulls(n, pa.int64()),
        }
    )
    table = table.take(pc.sort_indices(owner_code))
    # canonical text per owner: pieces in key order, grouped by owner
    canon: dict[str, Any] = {}
    sorted_piece = pc.take(piece, by_key)
    resource_keys: list[list[str]] = []
    resource_pieces: list[list[str]] = []
    oi_kind = role = None
    sorted_type = pc.take(pa.concat_arrays([p["type_code"] for p in parts]), by_key)
    for code, (g, p) in enumerate(zip(groups, parts, strict=True)):
        # (owner seq, key) order keeps one owner type's rows in owner order, keys sorted
        mine = pc.equal(sorted_type, pa.scalar(code, pa.int8()))
        group_pieces = pc.filter(sorted_piece, mine)
        canon[g.owner_type] = nt.joined(group_pieces, p["lengths"])
        if g.owner_type == "resource":
            keys = pc.filter(sorted_key, mine)
            resource_keys, resource_pieces = _per_owner(keys, group_pieces, p["lengths"])
        if g.owner_type == "span":
            owners = p["owner_row"]
            strings_of = pc.struct_field(p["value"], nt.STRING_VALUE)
            oi_kind = _first(owners, p["key"], strings_of, OI_SPAN_KIND, len(g.kvs))
            role = _first(owners, p["key"], strings_of, role_key, len(g.kvs))
    return Attributes(table, canon, resource_keys, resource_pieces, oi_kind, role, set(), n)


def _per_owner(keys: Any, pieces: Any, lengths: Any) -> tuple[list[list[str]], list[list[str]]]:
    ks, ps = keys.to_pylist(), pieces.to_pylist()
    out_k: list[list[str]] = []
    out_p: list[list[str]] = []
    at = 0
    for length in pc.fill_null(lengths, 0).to_pylist():
        out_k.append(ks[at : at + length])
        out_p.append(ps[at : at + length])
        at += length
    return out_k, out_p


def _first(owners: Any, keys: Any, strings: Any, key: str, n: int) -> Any:
    """Per owner: the string value of attribute ``key`` (keys are unique here), else null."""
    mask = pc.fill_null(pc.and_kleene(pc.equal(keys, key), pc.is_valid(strings)), False)
    rows = pc.filter(owners, mask)
    values = pc.filter(strings, mask)
    where = pc.index_in(nt.arange(n), value_set=rows)
    return pc.take(values, where)


def _scalar_arrays(arrays: Any) -> tuple[Any, Any]:
    """JSON text of arrays of strings, ints and bools (``["a",1,true]``, as ``anyvalue``
    renders them), and a mask of the other arrays (doubles, bytes, empty or nested items)."""
    values = pc.struct_field(arrays, "values")
    flat = pc.list_flatten(values)
    parents = pc.list_parent_indices(values)
    bad = pc.is_null(values)
    item = {v: pc.struct_field(flat, v) for v in (nt.STRING_VALUE, nt.INT_VALUE, nt.BOOL_VALUE)}
    present = {v: pc.is_valid(x) for v, x in item.items()}
    count = _repeat(0, len(flat), pa.int64())
    for mask in present.values():
        count = pc.add(count, pc.cast(mask, pa.int64()))
    item_bad = pc.not_equal(count, 1)
    for variant in (nt.DOUBLE_VALUE, nt.BYTES_VALUE):
        item_bad = pc.or_kleene(item_bad, pc.is_valid(pc.struct_field(flat, variant)))
    ints = item[nt.INT_VALUE]
    item_bad = pc.or_kleene(
        item_bad, pc.and_kleene(present[nt.INT_VALUE], pc.invert(nt.int64_text(ints)))
    )
    if len(flat):
        bad_rows = pc.filter(parents, pc.fill_null(item_bad, True))
        bad = pc.or_kleene(bad, pc.is_in(nt.arange(len(arrays)), value_set=bad_rows))
    text = nt.quoted(pc.fill_null(item[nt.STRING_VALUE], ""), empty_is_null=False)
    if pc.any(present[nt.INT_VALUE]).as_py():
        numbers = pc.cast(pc.if_else(present[nt.INT_VALUE], ints, pa.scalar("0")), pa.int64())
        text = pc.if_else(present[nt.INT_VALUE], nt.decimal(numbers), text)
    if pc.any(present[nt.BOOL_VALUE]).as_py():
        flags = pc.fill_null(item[nt.BOOL_VALUE], False)
        spelled = pc.if_else(flags, "true", "false").cast(pa.large_string())
        text = pc.if_else(present[nt.BOOL_VALUE], spelled, text)
    text = nt.joined(text, pc.list_value_length(values))
    text = pc.if_else(pc.is_valid(arrays), text, pa.scalar(None, pa.large_string()))
    return text, pc.fill_null(bad, True)


def _bytes(values: Any, threshold: int) -> tuple[Any, Any]:
    """bytesValue strings decoded (base64, as ``anyvalue.decode_bytes``), and a mask of the
    ones the reference would note."""
    n = len(values)
    if not pc.any(pc.is_valid(values)).as_py():
        return pa.nulls(n, pa.large_binary()), _repeat(False, n, pa.bool_())

    out: list[bytes | None] = []
    bad: list[bool] = []
    for text in values.to_pylist():
        if text is None:
            out.append(None)
            bad.append(False)
            continue
        data = anyvalue.decode_bytes(text)
        out.append(data)
        bad.append(data is None or len(data) > threshold)
    return pa.array(out, pa.large_binary()), pa.array(bad, pa.bool_())


# variant, value_type, whether the canonical value is a JSON string (else a bare token)
_TYPES = (
    (nt.STRING_VALUE, "string", True),
    (nt.INT_VALUE, "int", False),
    (nt.BOOL_VALUE, "bool", False),
    (nt.DOUBLE_VALUE, "double", True),
    (nt.ARRAY_VALUE, "array", True),
    (nt.BYTES_VALUE, "bytes", True),
    ("", "empty", False),
)
_TYPE_NAMES = pa.array([name for _, name, _ in _TYPES], pa.string())
_MIDDLES = pa.array(
    [
        f'","{name}",' + ('"' if quoted else "null" if name == "empty" else "")
        for _, name, quoted in _TYPES
    ],
    pa.large_string(),
)
_ENDS = pa.array(['"]' if quoted else "]" for _, _, quoted in _TYPES], pa.large_string())


def _render(variant: str, fields: dict[str, Any], ints: Any, arrays: Any, mask: Any) -> Any:
    """The canonical value of one variant where it is present, without its quotes
    (``canonical`` as orjson writes it); null elsewhere."""
    if variant == nt.STRING_VALUE:
        return nt.escaped(fields[variant])
    if variant == nt.INT_VALUE:
        return pc.cast(ints, pa.large_string())
    if variant == nt.BOOL_VALUE:
        return pc.if_else(fields[variant], "true", "false").cast(pa.large_string())
    return pc.if_else(
        mask, nt.escaped(pc.fill_null(arrays, "")), pa.scalar(None, pa.large_string())
    )


def _spelled(value: float | bytes) -> str:
    """A double as ``repr`` spells it, bytes as lower-case hex (inside the quotes)."""
    return value.hex() if isinstance(value, bytes) else repr(value)


def _repeat(value: Any, n: int, type_: pa.DataType) -> Any:
    if n == 0:
        return pa.array([], type_)
    return pc.fill_null(pa.nulls(n, type_), pa.scalar(value, type_))
