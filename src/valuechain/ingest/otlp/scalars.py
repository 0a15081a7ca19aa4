"""Scalar fields of OTLP/JSON: uint64 times, uint32 counts, enums, strings (TRACE-FORMAT §1.6).

Each reader returns the value and, when the input was not canonical or not valid, a ``Note``
with the issue to record; none of them raises on bad data.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

import orjson

from valuechain.contract.issues import Code

UINT64_MAX = (1 << 64) - 1
UINT32_MAX = (1 << 32) - 1
# Decimal digits of the widest field (uint64): a longer decimal, leading zeros aside, is out of
# range without converting it (``int()`` of 10,000 digits raises, and costs quadratic time).
UINT64_DIGITS = 20

SPAN_KINDS = {
    "SPAN_KIND_UNSPECIFIED": 0,
    "SPAN_KIND_INTERNAL": 1,
    "SPAN_KIND_SERVER": 2,
    "SPAN_KIND_CLIENT": 3,
    "SPAN_KIND_PRODUCER": 4,
    "SPAN_KIND_CONSUMER": 5,
}
STATUS_CODES = {"STATUS_CODE_UNSET": 0, "STATUS_CODE_OK": 1, "STATUS_CODE_ERROR": 2}


@dataclass(frozen=True, slots=True)
class Note:
    code: Code
    message: str


_NUMERIC = Note(Code.I_NUMERIC_INT64, "a 64-bit integer written as a JSON number")


def text(raw: Any) -> str | None:
    """A string field; absent, null or a non-string reads as null."""
    return raw if isinstance(raw, str) else None


def _unsigned(raw: Any, limit: int, what: str) -> tuple[int | None, Note | None]:
    if raw is None:
        return None, None
    if isinstance(raw, str):
        if raw.isascii() and raw.isdigit() and fits_digits(raw):
            value = int(raw)
            if value <= limit:
                return value, None
        return None, Note(Code.W_INVALID_VALUE, f"not a decimal {what}")
    if isinstance(raw, bool):
        return None, Note(Code.W_INVALID_VALUE, f"a boolean where a {what} belongs")
    if isinstance(raw, int):
        if 0 <= raw <= limit:
            return raw, _NUMERIC if limit == UINT64_MAX else None
    elif isinstance(raw, float) and raw.is_integer() and 0 <= raw <= limit:
        return int(raw), _NUMERIC
    return None, Note(Code.W_INVALID_VALUE, f"not a {what}")


def fits_digits(digits: str) -> bool:
    """Whether a run of decimal digits is short enough to convert (at most a uint64's 20)."""
    return len(digits) <= UINT64_DIGITS or len(digits.lstrip("0")) <= UINT64_DIGITS


class BigNumber(float):
    """A JSON number beyond the range of a double (``1e999999``): infinite as a float, so a
    decoder that reads it as a number sees it is out of range, and keeping its literal text
    (``repr``, and the raw JSON written by ``json_literal``) for the issue that says so."""

    __slots__ = ("text",)
    text: str

    def __new__(cls, text: str) -> BigNumber:
        number = super().__new__(cls, text)
        number.text = text
        return number

    def __repr__(self) -> str:
        return self.text


def json_literal(value: Any) -> Any:
    """``orjson.dumps``' ``default``: a ``BigNumber`` is written as the literal it was read from."""
    if isinstance(value, BigNumber):
        return orjson.Fragment(value.text)
    raise TypeError


def uint64(raw: Any) -> tuple[int | None, Note | None]:
    """A fixed64 time: decimal string (canonical) or JSON number (accepted, noted)."""
    return _unsigned(raw, UINT64_MAX, "uint64")


def uint32(raw: Any) -> tuple[int | None, Note | None]:
    """A uint32 count or fixed32 flags field."""
    return _unsigned(raw, UINT32_MAX, "uint32")


def enum(raw: Any, names: dict[str, int]) -> tuple[int | None, str | None, Note | None]:
    """Return (int value, raw name when given as a name, note). Missing means 0."""
    if raw is None:
        return 0, None, None
    if isinstance(raw, bool):
        return None, None, Note(Code.W_INVALID_VALUE, "a boolean where an enum belongs")
    if isinstance(raw, int):
        if raw in names.values():
            return raw, None, None
        return raw, None, Note(Code.W_UNKNOWN_ENUM, f"unknown enum value {raw}")
    if isinstance(raw, str):
        if raw in names:
            return names[raw], raw, Note(Code.I_ENUM_NAMES, "enum given by name")
        return None, raw, Note(Code.W_UNKNOWN_ENUM, f"unknown enum name {raw!r}")
    return None, None, Note(Code.W_INVALID_VALUE, "not an enum value")


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


class Replaced(str):
    """A string whose lone surrogates became U+FFFD; ``escaped`` is the original JSON text."""

    escaped: str


def scrub_surrogates(obj: Any) -> tuple[Any, int]:
    """``obj`` with every lone surrogate (keys and values) replaced, and how many strings had one.

    Lone surrogate escapes are legal JSON text but not Unicode scalar values: they cannot be
    encoded as UTF-8, so they are stored with U+FFFD (TRACE-FORMAT §5.2 ``W_INVALID_UTF8``).
    """
    count = 0

    def scrub(value: Any) -> Any:
        nonlocal count
        if isinstance(value, str):
            if not _LONE_SURROGATE.search(value):
                return value
            count += 1
            fixed = Replaced(_LONE_SURROGATE.sub("\ufffd", value))
            fixed.escaped = json.dumps(value)
            return fixed
        if isinstance(value, list):
            return [scrub(v) for v in value]
        if isinstance(value, dict):  # field names stay plain str (orjson needs exact str keys)
            return {str(scrub(k)): scrub(v) for k, v in value.items()}
        return value

    return scrub(obj), count
