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
    canon: dict[str, Any]  # owner type → canonical text per owner, without its brackets
    resource_keys: list[list[str]]  # per resource: sorted keys (for the envelope-free hash)
    resource_pieces: list[list[str]]
    oi_kind: Any  # per span: the openinference.span.kind string, or null
    role: Any  # per span: the mcp.app.span.role string, or null
    bad_records: set[int]
    count: int


def attribute_rows(groups: list[Owners], threshold: int, role_key: str) -> Attributes:
    """Attribute rows of all owners, or the records that must fall back."""
    parts = [_flat(g) for g in groups]
    key = pa.concat_arrays([p["key"] for p in parts])
    value = pa.concat_arrays([p["value"] for p in parts])
    record = pa.concat_arrays([p["record"] for p in parts])
    ordinal = pa.concat_arrays([p["ordinal"] for p in parts])
    owner_row = pa.concat_arrays([p["owner_row"] for p in parts])
    n = len(key)
    fields = {v: pc.struct_field(value, v) for v in nt.VARIANTS}
    present = {v: pc.is_valid(f) for v, f in fields.items()}
    strings, ints, doubles = fields[nt.STRING_VALUE], fields[nt.INT_VALUE], fields[nt.DOUBLE_VALUE]
    # the records the reference would note something about; each check reads only the values
    # it concerns
    bad: list[Any] = []
    _refuse(bad, record, pc.or_kleene(pc.is_null(key), pc.greater_equal(ordinal, _MAX_ORDINAL)))
    count = pc.cast(present[nt.STRING_VALUE], pa.int8())
    for variant in nt.VARIANTS[1:]:
        count = pc.add(count, pc.cast(present[variant], pa.int8()))
    _refuse(bad, record, pc.greater(count, 1))
    long = pc.fill_null(pc.greater(pc.binary_length(strings), threshold), False)
    if pc.any(long).as_py():  # a string's bytes are at least its characters
        too_long = pc.greater(pc.utf8_length(pc.filter(strings, long)), threshold)
        _refuse(bad, pc.filter(record, long), too_long)
    int_rows = present[nt.INT_VALUE]
    _refuse(bad, pc.filter(record, int_rows), pc.invert(nt.int64_text(pc.filter(ints, int_rows))))
    # beyond ±2^53, or not finite: a bare NaN or Infinity, which the reference notes
    unusual = pc.or_kleene(pc.greater(pc.abs(doubles), _EXACT_INT_DOUBLE), pc.is_nan(doubles))
    _refuse(bad, record, pc.fill_null(unusual, False))
    _refuse(bad, record, present[nt.KVLIST_VALUE])
    array_rows = present[nt.ARRAY_VALUE]
    array_text, array_bad = _scalar_arrays(pc.filter(fields[nt.ARRAY_VALUE], array_rows))
    _refuse(bad, pc.filter(record, array_rows), array_bad)
    bytes_values, bytes_bad = _bytes(fields[nt.BYTES_VALUE], threshold)
    _refuse(bad, record, bytes_bad)
    # one integer sort puts every owner's keys in order: (owner type, owner row, key's rank)
    keys = pc.dictionary_encode(key)
    key_index = keys.indices.cast(pa.int64())
    dictionary = keys.dictionary
    rank = pc.take(pc.subtract(pc.rank(dictionary, tiebreaker="first"), 1), key_index)
    type_code = pa.concat_arrays([_repeat(c, p["n"], pa.int64()) for c, p in enumerate(parts)])
    width = max(len(dictionary), 1)
    owners = max((len(g.kvs) for g in groups), default=0) + 1
    owner_code = pc.add(pc.multiply(type_code, owners), owner_row)
    if len(groups) * owners * width < 1 << 62:
        by_key = pc.sort_indices(pc.add(pc.multiply(owner_code, width), rank))
    else:  # beyond one int64: the same order, by two columns
        by_key = pc.sort_indices(
            pa.table({"o": owner_code, "k": rank}),
            sort_keys=[("o", "ascending"), ("k", "ascending")],
        )
    sorted_owner = pc.take(owner_code, by_key)
    if n > 1:  # duplicate keys within an owner (W_DUPLICATE_ATTRIBUTE_KEY): the reference notes
        sorted_rank = pc.take(rank, by_key)
        same = pc.and_kleene(
            pc.equal(sorted_owner[1:], sorted_owner[:-1]),
            pc.equal(sorted_rank[1:], sorted_rank[:-1]),
        )
        _refuse(bad, pc.take(record, by_key)[1:], same)
    bad_records: set[int] = set()
    for records in bad:
        bad_records.update(records.to_pylist())
    if bad_records:
        return Attributes(pa.table({}), {}, [], [], None, None, bad_records, n)
    # values and value types; each value's canonical text, without its quotes, as fragments
    code = _repeat(len(_TYPES) - 1, n, pa.int8())  # empty
    int_values = pc.cast(pc.if_else(int_rows, ints, pa.scalar("0")), pa.int64())
    int_values = pc.if_else(int_rows, int_values, pa.scalar(None, pa.int64()))
    array_full = nt.spread(array_rows, array_text)
    texts = nt.Fragments(n, len(_TYPES))
    for index, (variant, _, _) in enumerate(_TYPES):
        mask = present[variant] if variant else pc.equal(code, pa.scalar(index, pa.int8()))
        if not pc.any(mask).as_py():
            continue
        if variant:
            code = pc.if_else(mask, pa.scalar(index, pa.int8()), code)
        if variant == nt.STRING_VALUE:
            texts.column(index, strings.cast(pa.large_string()))
            found = nt.escapes(strings)
            if found is not None:  # the few with escapes: their own fragments
                texts.subset(*found)
        elif variant == nt.INT_VALUE:
            texts.column(index, pc.cast(int_values, pa.large_string()))
        elif variant == nt.BOOL_VALUE:
            spelled = pc.if_else(fields[variant], "true", "false")
            texts.column(index, spelled.cast(pa.large_string()))
        elif variant == nt.ARRAY_VALUE:
            texts.subset(mask, nt.escaped(array_text))
        elif variant:  # doubles and bytes: few, spelled in Python
            source = fields[variant] if variant == nt.DOUBLE_VALUE else bytes_values
            spelled = [_spelled(x) for x in pc.filter(source, mask).to_pylist()]
            texts.subset(mask, pa.array(spelled, pa.large_string()))
        else:  # empty: no text
            texts.subset(mask, nt.blank(pc.sum(mask.cast(pa.int64())).as_py()))
    value_type = pc.take(_TYPE_NAMES, code)
    table = pa.table(
        {
            "owner_type": pa.concat_arrays(
                [
                    _repeat(g.owner_type, p["n"], pa.string())
                    for g, p in zip(groups, parts, strict=True)
                ]
            ),
            "owner_row": owner_row,
            "ordinal": ordinal,
            "key": key,
            "value_type": value_type,
            "string_value": strings,
            "int_value": int_values,
            "double_value": doubles,
            "bool_value": fields[nt.BOOL_VALUE],
            "bytes_value": bytes_values,
            "json_value": array_full,
            "large_value_ref": pa.nulls(n, pa.int64()),
        }
    )
    order = pa.concat_arrays([p["order"] for p in parts])
    table = table.take(pc.sort_indices(order))
    # canonical texts: each attribute ["key","type",value] is three fragments, the head
    # ``["key","type",`` (one per distinct key and type), the value's text and the end; each
    # owner's text is its fragments in key order, joined
    head_texts, heads = _heads(dictionary, key_index, code)
    value_texts, values = texts.indexes(code)
    sorted_code = pc.take(code, by_key)
    last = _last_of_owner(sorted_owner)
    ends = pc.add(pc.take(_END_BY_CODE, sorted_code), pc.multiply(last.cast(pa.int8()), 2))
    pieces = nt.concat(
        pc.take(head_texts, pc.take(heads, by_key)),
        pc.take(value_texts, pc.take(values, by_key)),
        pc.take(_ENDS, ends),
    )
    canon: dict[str, Any] = {}
    start = 0
    resource_keys: list[list[str]] = []
    resource_pieces: list[list[str]] = []
    oi_kind = role = None
    for g, p in zip(groups, parts, strict=True):
        mine = pieces.slice(start, p["n"])
        canon[g.owner_type] = nt.joined(mine, p["lengths"], "")
        if g.owner_type == "resource":
            names = dictionary.to_pylist()
            sorted_keys = [
                names[i] for i in pc.take(key_index, by_key[start : start + p["n"]]).to_pylist()
            ]
            resource_keys, resource_pieces = _per_owner(sorted_keys, mine.to_pylist(), p["lengths"])
        if g.owner_type == "span":
            span_keys = key_index.slice(start, p["n"])
            span_strings = strings.slice(start, p["n"])
            oi_kind = _first(
                p["owner_row"], span_keys, span_strings, dictionary, OI_SPAN_KIND, len(g.kvs)
            )
            role = _first(p["owner_row"], span_keys, span_strings, dictionary, role_key, len(g.kvs))
        start += p["n"]
    return Attributes(table, canon, resource_keys, resource_pieces, oi_kind, role, set(), n)


def _flat(g: Owners) -> dict[str, Any]:
    kvs = g.kvs
    flat = pc.list_flatten(kvs)
    parents = pc.list_parent_indices(kvs).cast(pa.int64())
    ordinal = nt.positions(kvs, parents)
    return {
        "n": len(flat),
        "owner_row": parents,
        "ordinal": ordinal,
        "record": pc.take(g.records, parents),
        "order": pc.add(pc.multiply(pc.take(g.seq, parents), 1 << _ORDINAL_BITS), ordinal),
        "key": pc.struct_field(flat, "key"),
        "value": pc.struct_field(flat, "value"),
        "lengths": pc.fill_null(pc.list_value_length(kvs), 0).cast(pa.int64()),
    }


def _refuse(into: list[Any], records: Any, mask: Any) -> None:
    """Keep the records where ``mask`` holds (a null: it holds)."""
    if len(records):
        into.append(pc.unique(pc.filter(records, pc.fill_null(mask, True))))


def _heads(dictionary: Any, key_index: Any, code: Any) -> tuple[Any, Any]:
    """Each distinct (key, type)'s ``["key","type",`` head, and each attribute's."""
    n_types = len(_TYPES)
    pairs = pc.dictionary_encode(pc.add(pc.multiply(key_index, n_types), code.cast(pa.int64())))
    pair_keys = pc.divide(pairs.dictionary, n_types)
    pair_codes = pc.subtract(pairs.dictionary, pc.multiply(pair_keys, n_types))
    texts = nt.concat(
        '["', pc.take(nt.escaped(dictionary), pair_keys), pc.take(_MIDDLES, pair_codes)
    )
    return texts, pairs.indices


def _last_of_owner(sorted_owner: Any) -> Any:
    """Mask: the last attribute of its owner (in key order)."""
    n = len(sorted_owner)
    if n == 0:
        return pa.array([], pa.bool_())
    changes = pc.not_equal(sorted_owner[1:], sorted_owner[:-1])
    return pa.concat_arrays([changes, pa.array([True])])


def _per_owner(
    keys: list[str], fragments: list[str], lengths: Any
) -> tuple[list[list[str]], list[list[str]]]:
    """Per owner: its keys in order and their canonical pieces (from three fragments each)."""
    out_k: list[list[str]] = []
    out_p: list[list[str]] = []
    pieces = [p.rstrip(",") for p in fragments]  # the last one's end has no comma
    at = 0
    for length in lengths.to_pylist():
        out_k.append(keys[at : at + length])
        out_p.append(pieces[at : at + length])
        at += length
    return out_k, out_p


def _first(owners: Any, keys: Any, strings: Any, dictionary: Any, key: str, n: int) -> Any:
    """Per owner: the string value of attribute ``key`` (keys are unique here), else null."""
    index = pc.index(dictionary, key).as_py()
    if index < 0:
        return pa.nulls(n, pa.string())
    mask = pc.fill_null(pc.and_kleene(pc.equal(keys, index), pc.is_valid(strings)), False)
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
    text = nt.concat("[", nt.joined(text, pc.list_value_length(values)), "]")
    text = pc.if_else(pc.is_valid(arrays), text, pa.scalar(None, pa.large_string()))
    return text, pc.fill_null(bad, True)


def _bytes(values: Any, threshold: int) -> tuple[Any, Any]:
    """bytesValue strings decoded (base64, as ``anyvalue.decode_bytes``), and a mask of the
    ones the reference would note."""
    n = len(values)
    mask = pc.is_valid(values)
    if not pc.any(mask).as_py():
        return pa.nulls(n, pa.large_binary()), _repeat(False, n, pa.bool_())
    out: list[bytes | None] = []
    bad: list[bool] = []
    for text in pc.filter(values, mask).to_pylist():
        data = anyvalue.decode_bytes(text)
        out.append(data)
        bad.append(data is None or len(data) > threshold)
    decoded = nt.spread(mask, pa.array(out, pa.large_binary()))
    return decoded, pc.fill_null(nt.spread(mask, pa.array(bad, pa.bool_())), False)


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
# an attribute's end: after a quoted value or a bare one, before another attribute or last
_ENDS = pa.array(['"],', "],", '"]', "]"], pa.large_string())
_END_BY_CODE = pa.array([0 if quoted else 1 for _, _, quoted in _TYPES], pa.int8())
_MAX_ORDINAL = 1 << _ORDINAL_BITS


def _spelled(value: float | bytes) -> str:
    """A double as ``repr`` spells it, bytes as lower-case hex (inside the quotes)."""
    return value.hex() if isinstance(value, bytes) else repr(value)


def _repeat(value: Any, n: int, type_: pa.DataType) -> Any:
    if n == 0:
        return pa.array([], type_)
    return pc.fill_null(pa.nulls(n, type_), pa.scalar(value, type_))
