"""Vectorised pieces of the native path: the explicit OTLP schema, JSON text, ranges, ids.

The canonical content of ``canonical.py`` is ``orjson.dumps`` of nested lists; the native path
writes the same bytes with Arrow compute: ``quoted`` escapes a string exactly as orjson does
(``"``, ``\\``, and the control characters below U+0020 — ``\\b \\t \\n \\f \\r`` by name, the
others as ``\\u00xx``; nothing else), ``decimal`` renders an integer, ``concat`` joins columns;
``Fragments`` keeps many texts in one array, so that pieces are taken from it, not rebuilt.
"""

from __future__ import annotations

from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

STRING_VALUE, INT_VALUE, BOOL_VALUE, DOUBLE_VALUE, BYTES_VALUE = (
    "stringValue",
    "intValue",
    "boolValue",
    "doubleValue",
    "bytesValue",
)
ARRAY_VALUE, KVLIST_VALUE = "arrayValue", "kvlistValue"
_SCALARS = [
    (STRING_VALUE, pa.string()),
    (INT_VALUE, pa.string()),
    (BOOL_VALUE, pa.bool_()),
    (DOUBLE_VALUE, pa.float64()),
    (BYTES_VALUE, pa.string()),
]
_ANY0 = pa.struct(_SCALARS)
ANY_VALUE = pa.struct(
    [
        *_SCALARS,
        (ARRAY_VALUE, pa.struct([("values", pa.list_(_ANY0))])),
        (
            KVLIST_VALUE,
            pa.struct([("values", pa.list_(pa.struct([("key", pa.string()), ("value", _ANY0)])))]),
        ),
    ]
)
VARIANTS = (
    STRING_VALUE,
    INT_VALUE,
    BOOL_VALUE,
    DOUBLE_VALUE,
    BYTES_VALUE,
    ARRAY_VALUE,
    KVLIST_VALUE,
)
_KVS = pa.list_(pa.struct([("key", pa.string()), ("value", ANY_VALUE)]))
_COUNT = pa.int64()


def otlp_schema() -> pa.Schema:
    """ExportTraceServiceRequest as an Arrow schema (camelCase OTLP/JSON field names): the
    fields the msgspec fast path knows, AnyValues one container level deep. A record with any
    other field, or a value of another JSON type, does not parse (and falls back)."""
    span = pa.struct(
        [
            ("traceId", pa.string()),
            ("spanId", pa.string()),
            ("parentSpanId", pa.string()),
            ("traceState", pa.string()),
            ("flags", _COUNT),
            ("name", pa.string()),
            ("kind", _COUNT),
            ("startTimeUnixNano", pa.string()),
            ("endTimeUnixNano", pa.string()),
            ("attributes", _KVS),
            ("droppedAttributesCount", _COUNT),
            (
                "events",
                pa.list_(
                    pa.struct(
                        [
                            ("timeUnixNano", pa.string()),
                            ("name", pa.string()),
                            ("attributes", _KVS),
                            ("droppedAttributesCount", _COUNT),
                        ]
                    )
                ),
            ),
            ("droppedEventsCount", _COUNT),
            (
                "links",
                pa.list_(
                    pa.struct(
                        [
                            ("traceId", pa.string()),
                            ("spanId", pa.string()),
                            ("traceState", pa.string()),
                            ("attributes", _KVS),
                            ("droppedAttributesCount", _COUNT),
                            ("flags", _COUNT),
                        ]
                    )
                ),
            ),
            ("droppedLinksCount", _COUNT),
            ("status", pa.struct([("message", pa.string()), ("code", _COUNT)])),
        ]
    )
    scope = pa.struct(
        [
            ("name", pa.string()),
            ("version", pa.string()),
            ("attributes", _KVS),
            ("droppedAttributesCount", _COUNT),
        ]
    )
    scope_spans = pa.struct(
        [("scope", scope), ("spans", pa.list_(span)), ("schemaUrl", pa.string())]
    )
    resource = pa.struct([("attributes", _KVS), ("droppedAttributesCount", _COUNT)])
    resource_spans = pa.struct(
        [("resource", resource), ("scopeSpans", pa.list_(scope_spans)), ("schemaUrl", pa.string())]
    )
    return pa.schema([("resourceSpans", pa.list_(resource_spans))])


# ---------------------------------------------------------------------------- JSON text
_NEEDS_ESCAPE = r'[\x00-\x1f"\\]'
_NAMED = (("\\", "\\\\"), ('"', '\\"'), ("\n", "\\n"), ("\r", "\\r"), ("\t", "\\t"))
_OTHER_CONTROL = r"[\x00-\x08\x0b\x0c\x0e-\x1f]"
_OTHERS = [("\x08", "\\b"), ("\x0c", "\\f")]
_OTHERS += [(chr(c), f"\\u{c:04x}") for c in range(0x20) if c not in (0x08, 0x09, 0x0A, 0x0C, 0x0D)]


def escaped(values: Any) -> Any:
    """String values with JSON escapes as orjson writes them (no quotes added)."""
    values = _plain(values)
    found = escapes(values)
    if found is None:
        return values
    mask, sub = found
    return pc.replace_with_mask(values, mask, sub)


def escapes(values: Any) -> tuple[Any, Any] | None:
    """The values that need JSON escapes, as a mask and their escaped text (only theirs);
    None when none does."""
    values = _plain(values)
    mask = pc.match_substring_regex(values, _NEEDS_ESCAPE)
    if not pc.any(mask).as_py():
        return None
    mask = pc.fill_null(mask, False)
    sub = pc.filter(values, mask)
    for raw, text in _NAMED[:2]:  # the backslash first
        sub = pc.replace_substring(sub, raw, text)
    if pc.any(pc.match_substring_regex(sub, r"[\x00-\x1f]")).as_py():
        for raw, text in _NAMED[2:]:
            sub = pc.replace_substring(sub, raw, text)
        if pc.any(pc.match_substring_regex(sub, _OTHER_CONTROL)).as_py():
            for raw, text in _OTHERS:
                sub = pc.replace_substring(sub, raw, text)
    return mask, sub


def _plain(values: Any) -> Any:
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks()
    if values.type != pa.large_string():
        values = values.cast(pa.large_string())
    return values


def quoted(values: Any, empty_is_null: bool = True, escape: bool = True) -> Any:
    """``"value"`` (escaped, unless the values are known to need none: hex ids), and ``null``
    for a null (or, by default, an empty) string."""
    values = _plain(values)
    text = concat('"', escaped(values) if escape else values, '"')
    missing = pc.is_null(values)
    if empty_is_null:
        missing = pc.or_kleene(missing, pc.equal(pc.binary_length(values), 0))
    return pc.if_else(pc.fill_null(missing, True), pa.scalar("null", pa.large_string()), text)


def decimal(values: Any, zero_is_null: bool = False) -> Any:
    """Integers as JSON numbers; ``null`` for a null (and optionally for 0)."""
    text = pc.cast(values, pa.large_string())
    missing = pc.is_null(values)
    if zero_is_null:
        missing = pc.or_kleene(missing, pc.equal(values, pa.scalar(0, values.type)))
    return pc.if_else(pc.fill_null(missing, True), pa.scalar("null", pa.large_string()), text)


def concat(*parts: Any) -> Any:
    """Element-wise concatenation of string arrays and literals."""
    args = [pa.scalar(p, pa.large_string()) if isinstance(p, str) else _plain(p) for p in parts]
    return pc.binary_join_element_wise(*args, pa.scalar("", pa.large_string()))


def json_list(*items: Any) -> Any:
    """``[a,b,…]`` element-wise: items already JSON text (arrays, or literal tokens; a tuple
    is its parts, concatenated)."""
    parts: list[Any] = ["["]
    for item in items:
        parts += [*item, ","] if isinstance(item, tuple) else [item, ","]
    parts[-1] = "]"
    return concat(*parts)


def joined(pieces: Any, lengths: Any, separator: str = ",") -> Any:
    """Per owner, its pieces (in order; ``lengths`` says how many each has) joined with
    ``separator``, without brackets (``json_list`` takes ``("[", text, "]")``)."""
    offsets = pc.cumulative_sum(pc.fill_null(lengths, 0).cast(pa.int64()))
    offsets = pa.concat_arrays([pa.array([0], pa.int64()), offsets.cast(pa.int64())])
    lists = pa.LargeListArray.from_arrays(offsets, _plain(pieces))
    return pc.binary_join(lists, pa.scalar(separator, pa.large_string()))


def bracketed(text: Any) -> tuple[str, Any, str]:
    """``[text]``, as one item of ``json_list``."""
    return ("[", text, "]")


class Fragments:
    """Texts of ``n`` rows as fragments of one array: whole columns, one per code (row i's
    text is the column's item i), and subsets (the rows of a mask, in order; a subset
    overrides a column)."""

    def __init__(self, n: int, codes: int) -> None:
        self.n = n
        self.arrays: list[Any] = []
        self.at = 0
        self.bases = [0] * codes
        self.subsets: list[tuple[Any, int]] = []

    def _add(self, text: Any) -> int:
        at = self.at
        self.arrays.append(text)
        self.at += len(text)
        return at

    def column(self, code: int, text: Any) -> None:
        self.bases[code] = self._add(text)

    def subset(self, mask: Any, text: Any) -> None:
        self.subsets.append((mask, self._add(text)))

    def indexes(self, code: Any) -> tuple[Any, Any]:
        """All fragments, and each row's fragment."""
        rows = pc.add(pc.take(pa.array(self.bases, pa.int64()), code), arange(self.n))
        for mask, base in self.subsets:
            rows = pc.if_else(
                mask, pc.add(pc.cumulative_sum(mask.cast(pa.int64())), base - 1), rows
            )
        if not self.arrays:
            return pa.array([], pa.large_string()), rows
        return pa.concat_arrays(self.arrays), rows


def spread(mask: Any, subset: Any) -> Any:
    """The items of ``subset`` at the rows of ``mask`` (in order), null elsewhere."""
    where = pc.subtract(pc.cumulative_sum(mask.cast(pa.int64())), 1)
    return pc.take(subset, pc.if_else(mask, where, pa.scalar(None, pa.int64())))


def blank(n: int) -> Any:
    """``n`` empty strings."""
    return pa.LargeStringArray.from_buffers(n, pa.py_buffer(bytes(8 * (n + 1))), pa.py_buffer(b""))


# ---------------------------------------------------------------------------- numbers
def arange(n: int) -> Any:
    """0, 1, …, n-1 as int64."""
    if n == 0:
        return pa.array([], pa.int64())
    ones = pc.fill_null(pa.nulls(n, pa.int64()), 1)
    return pc.subtract(pc.cumulative_sum(ones), 1)


def positions(lists: Any, parents: Any) -> Any:
    """Each flattened item's index within its list."""
    lengths = pc.fill_null(pc.list_value_length(lists), 0).cast(pa.int64())
    starts = pc.subtract(pc.cumulative_sum(lengths), lengths)
    return pc.subtract(arange(len(parents)), pc.take(starts, parents))


def outside(values: Any, low: int, high: int) -> Any:
    """Mask: present and not within [low, high] (a null is fine: the default)."""
    bad = pc.or_kleene(pc.less(values, low), pc.greater(values, high))
    return pc.fill_null(bad, False)


def digits(values: Any, most: int, sign: bool = False) -> Any:
    """Mask: present and canonical decimal digits (``-`` allowed with ``sign``) of at most
    ``most`` digits; a null is False."""
    body = values
    if sign:
        negative = pc.fill_null(pc.starts_with(values, "-"), False)
        body = pc.if_else(negative, pc.utf8_slice_codeunits(values, 1), values)
    ok = pc.and_kleene(pc.ascii_is_decimal(body), pc.less_equal(pc.binary_length(body), most))
    return pc.fill_null(ok, False)


def int64_text(values: Any) -> Any:
    """Mask: present, a canonical decimal (optional ``-``) within int64 (null is False)."""
    negative = pc.fill_null(pc.starts_with(values, "-"), False)
    body = pc.if_else(negative, pc.utf8_slice_codeunits(values, 1), values)
    size = pc.binary_length(body)
    limit = pc.if_else(negative, "9223372036854775808", "9223372036854775807")
    fits = pc.or_kleene(
        pc.less(size, 19), pc.and_kleene(pc.equal(size, 19), pc.less_equal(body, limit))
    )
    return pc.fill_null(pc.and_kleene(pc.ascii_is_decimal(body), fits), False)


def hex_id(values: Any, size: int) -> Any:
    """Mask: a canonical non-zero hex id of ``size`` bytes (null is False)."""
    ok = pc.and_kleene(
        pc.equal(pc.binary_length(values), size * 2),
        pc.match_substring_regex(values, "^[0-9a-fA-F]+$"),
    )
    zero = pc.match_substring_regex(values, "^0+$")
    return pc.fill_null(pc.and_kleene(ok, pc.invert(zero)), False)


def id_bytes(values: Any, size: int) -> pa.Array:
    """Validated hex ids as fixed-size binary (one ``bytes.fromhex`` over all of them)."""
    raw = bytes.fromhex("".join(_plain(values).to_pylist()))
    return pa.FixedSizeBinaryArray.from_buffers(
        pa.binary(size), len(values), [None, pa.py_buffer(raw)]
    )
