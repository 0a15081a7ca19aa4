"""The fast path's attribute rows: one canonical KeyValue list straight to attribute rows.

Part of the fast path of ``fast.py``, and bound by its fallback rule: ``FastAttributes._attrs``
appends the rows the reference decoder (``fields.py``) would append for the same attributes —
same columns, same canonical rendering for the content hash — or raises ``FallbackError``
(nothing kept) at the first value the reference would note: more than one AnyValue variant, an
unknown or snake_case field, a numeric or out-of-range int, an unusual double, a large value, a
container whose decoding notes anything, a duplicate key.
"""

from __future__ import annotations

from typing import Any

import orjson
from msgspec import UNSET, Struct, UnsetType

from valuechain.contract.tables import INT64_MAX, MCP_APP_ROLE, OI_SPAN_KIND
from valuechain.ingest.otlp import anyvalue

_ROLE_KEYS = frozenset({OI_SPAN_KIND, MCP_APP_ROLE})
_INT64_MIN = -(1 << 63)
_EXACT_INT_DOUBLE = 1 << 53
_EMPTY_ROW = ("empty", None, None, None, None, None, None)
_dumps = orjson.dumps


class FallbackError(Exception):
    """The record is not canonical: the reference decoder takes it."""


class KeyValue(Struct, forbid_unknown_fields=True, rename="camel"):
    key: str
    value: dict[str, Any] | UnsetType = UNSET


class FastAttributes:
    """The attribute rows of the fast path (``FastDecoder`` holds the state)."""

    threshold: int
    _attr_rows: list[tuple[Any, ...]]
    _attributes_read: int

    def _attrs(
        self, kvs: list[KeyValue] | UnsetType, owner_type: str, owner_row: int
    ) -> tuple[list[Any], str | None, str | None]:
        """Attribute rows of one owner; (canonical list, openinference kind, mcp.app role)."""
        if not kvs:
            return [], None, None
        canon: list[Any] = []
        append_row = self._attr_rows.append
        append_canon = canon.append
        threshold = self.threshold
        oi_kind = role = None
        for ordinal, kv in enumerate(kvs):
            key = kv.key
            value = kv.value
            if value is UNSET or not value:
                append_row((owner_type, owner_row, ordinal, key, *_EMPTY_ROW, None))
                append_canon([key, "empty", None])
                continue
            if len(value) != 1:
                raise FallbackError  # W_MULTIPLE_VARIANTS or an unknown field
            ((variant, x),) = value.items()
            if variant == "stringValue":
                if type(x) is not str or len(x) > threshold:
                    raise FallbackError
                append_row(
                    (
                        owner_type,
                        owner_row,
                        ordinal,
                        key,
                        "string",
                        x,
                        None,
                        None,
                        None,
                        None,
                        None,
                        None,
                    )
                )
                append_canon([key, "string", x])
                if key in _ROLE_KEYS:  # keys are unique here (duplicates fall back below)
                    if key == OI_SPAN_KIND:
                        oi_kind = x
                    else:
                        role = x
                continue
            if variant == "intValue":
                if type(x) is not str or not _decimal(x):
                    raise FallbackError  # I_NUMERIC_INT64, W_INVALID_VALUE
                number = int(x)
                if not _INT64_MIN <= number <= INT64_MAX:
                    raise FallbackError
                append_row(
                    (
                        owner_type,
                        owner_row,
                        ordinal,
                        key,
                        "int",
                        None,
                        number,
                        None,
                        None,
                        None,
                        None,
                        None,
                    )
                )
                append_canon([key, "int", number])
            elif variant == "boolValue":
                if type(x) is not bool:
                    raise FallbackError
                append_row(
                    (
                        owner_type,
                        owner_row,
                        ordinal,
                        key,
                        "bool",
                        None,
                        None,
                        None,
                        x,
                        None,
                        None,
                        None,
                    )
                )
                append_canon([key, "bool", x])
            elif variant == "doubleValue":
                if type(x) is float:
                    number_f = x
                elif type(x) is int and -_EXACT_INT_DOUBLE <= x <= _EXACT_INT_DOUBLE:
                    number_f = float(x)
                else:
                    raise FallbackError
                append_row(
                    (
                        owner_type,
                        owner_row,
                        ordinal,
                        key,
                        "double",
                        None,
                        None,
                        number_f,
                        None,
                        None,
                        None,
                        None,
                    )
                )
                append_canon([key, "double", repr(number_f)])
            elif variant == "arrayValue" and (strings := _string_array(x)) is not None:
                # the common array (tool names, finish reasons, tags): plain strings only,
                # rendered exactly as anyvalue.decode renders it
                text = _dumps(strings).decode()
                append_row(
                    (
                        owner_type,
                        owner_row,
                        ordinal,
                        key,
                        "array",
                        None,
                        None,
                        None,
                        None,
                        None,
                        text,
                        None,
                    )
                )
                append_canon([key, "array", text])
            elif variant in ("arrayValue", "kvlistValue"):
                try:
                    decoded = anyvalue.decode(value)
                except anyvalue.TooDeepError:
                    raise FallbackError from None
                if decoded.notes:
                    raise FallbackError
                append_row(
                    (
                        owner_type,
                        owner_row,
                        ordinal,
                        key,
                        decoded.type,
                        None,
                        None,
                        None,
                        None,
                        None,
                        decoded.json,
                        None,
                    )
                )
                append_canon([key, decoded.type, decoded.json])
            elif variant == "bytesValue":
                data = anyvalue.decode_bytes(x)
                if data is None or len(data) > threshold:
                    raise FallbackError
                append_row(
                    (
                        owner_type,
                        owner_row,
                        ordinal,
                        key,
                        "bytes",
                        None,
                        None,
                        None,
                        None,
                        data,
                        None,
                        None,
                    )
                )
                append_canon([key, "bytes", data.hex()])
            else:
                raise FallbackError  # snake_case variant, unknown AnyValue field
        if len(kvs) > 1 and len({kv.key for kv in kvs}) != len(kvs):
            raise FallbackError  # W_DUPLICATE_ATTRIBUTE_KEY
        self._attributes_read += len(kvs)
        return canon, oi_kind, role


def _string_array(value: Any) -> list[str] | None:
    """The strings of an ``arrayValue`` holding only ``stringValue`` items, else None."""
    if type(value) is not dict or len(value) != 1:
        return None
    items = value.get("values")
    if type(items) is not list:
        return None
    strings = []
    for item in items:
        if type(item) is not dict or len(item) != 1:
            return None
        text = item.get("stringValue")
        if type(text) is not str:
            return None
        strings.append(text)
    return strings


def _decimal(text: str) -> bool:
    """A decimal of at most int64's 19 digits: longer ones (zero-padded, out of range, or
    10,000 digits that ``int()`` refuses) are the reference's to note."""
    digits = text[1:] if text.startswith("-") else text
    return 0 < len(digits) <= 19 and digits.isascii() and digits.isdigit()
