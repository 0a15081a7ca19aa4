"""AnyValue decoding (TRACE-FORMAT §1.5): every variant, both spellings, nothing raised on data.

Arrays and kvlists are kept as canonical JSON text (``json_value``) of their plain values:
bytes as lower-case hex, out-of-range ints as their raw text, NaN/Infinity as null.
"""

from __future__ import annotations

import base64
import binascii
import math
import re
from dataclasses import dataclass, field
from typing import Any

import orjson

from valuechain.contract.issues import Code
from valuechain.contract.tables import INT64_MAX
from valuechain.ingest.otlp.scalars import (
    BigNumber,
    Replaced,
    fits_digits,
    json_literal,
    scrub_surrogates,
)

MAX_DEPTH = 64  # TRACE-FORMAT §7 decision 5
INT64_MIN = -(1 << 63)

VARIANTS = {
    "stringValue": "string",
    "string_value": "string",
    "boolValue": "bool",
    "bool_value": "bool",
    "intValue": "int",
    "int_value": "int",
    "doubleValue": "double",
    "double_value": "double",
    "bytesValue": "bytes",
    "bytes_value": "bytes",
    "arrayValue": "array",
    "array_value": "array",
    "kvlistValue": "kvlist",
    "kvlist_value": "kvlist",
}
_SPECIAL_DOUBLES = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}
_DECIMAL = re.compile(r"-?[0-9]+")


class TooDeepError(Exception):
    """Nesting beyond ``MAX_DEPTH``; the whole attribute is quarantined."""


@dataclass(frozen=True, slots=True)
class ValueNote:
    code: Code
    message: str
    raw: Any = None
    subpath: str = ""


@dataclass(slots=True)
class Decoded:
    type: str = "empty"
    string: str | None = None
    int: int | None = None
    double: float | None = None
    bool: bool | None = None
    bytes: bytes | None = None
    json: str | None = None
    notes: list[ValueNote] = field(default_factory=list)

    def canonical(self) -> Any:
        """A JSON-safe, encoding-independent rendering used for content hashing."""
        if self.type == "double":
            return repr(self.double)
        if self.type == "bytes":
            return self.bytes.hex() if self.bytes is not None else None
        if self.type in ("array", "kvlist") or (self.int is None and self.type == "int"):
            return self.json
        return {"string": self.string, "int": self.int, "bool": self.bool}.get(self.type)


def decode(raw: Any) -> Decoded:
    """Decode one AnyValue object."""
    out = Decoded()
    if raw is None:
        return out
    if not isinstance(raw, dict):
        out.notes.append(ValueNote(Code.W_INVALID_VALUE, "an AnyValue must be an object", raw))
        out.json = _raw_text(raw)
        return out
    variant_key = None
    for key in raw:
        if key not in VARIANTS:
            out.notes.append(
                ValueNote(
                    Code.W_UNKNOWN_FIELD,
                    f"unknown AnyValue field {key!r}; value read as empty",
                    raw[key],
                    f".{key}",
                )
            )
        elif variant_key is None:
            variant_key = key
        else:
            out.notes.append(
                ValueNote(
                    Code.W_MULTIPLE_VARIANTS, f"extra variant {key!r} ignored", raw[key], f".{key}"
                )
            )
    if variant_key is None:
        return out
    if "_" in variant_key:
        out.notes.append(ValueNote(Code.I_SNAKE_CASE_KEYS, "snake_case AnyValue key"))
    _fill(out, VARIANTS[variant_key], raw[variant_key], 0)
    return out


def _fill(out: Decoded, kind: str, value: Any, depth: int) -> None:
    if value is None:  # proto3: null is the default value of the variant
        value = {
            "string": "",
            "bool": False,
            "int": "0",
            "double": 0.0,
            "bytes": "",
            "array": {},
            "kvlist": {},
        }[kind]
    out.type = kind
    if kind == "string":
        if isinstance(value, str):
            out.string = _valid_utf8(value, out)
        else:
            _invalid(out, value, "stringValue must be a string")
    elif kind == "bool":
        if isinstance(value, bool):
            out.bool = value
        else:
            _invalid(out, value, "boolValue must be true or false")
    elif kind == "int":
        _fill_int(out, value)
    elif kind == "double":
        out.double, problem = _double(value)
        if out.double is None:
            _invalid(out, value, problem)
    elif kind == "bytes":
        out.bytes = _bytes(value)
        if out.bytes is None:
            _invalid(out, value, "bytesValue must be base64")
    else:
        out.json = orjson.dumps(_plain_container(kind, value, depth + 1, out)).decode()


def _fill_int(out: Decoded, value: Any) -> None:
    if isinstance(value, bool):
        _invalid(out, value, "intValue must be an integer")
        return
    if isinstance(value, BigNumber) or (
        isinstance(value, str) and _DECIMAL.fullmatch(value) and not fits_digits(value.lstrip("-"))
    ):  # out of range whatever its digits: kept as the text it was written as, unconverted
        out.notes.append(ValueNote(Code.I_NUMERIC_INT64, "intValue written as a JSON number"))
        out.json = value if isinstance(value, str) else value.text
        out.notes.append(ValueNote(Code.W_INT_OUT_OF_RANGE, "intValue outside int64", value))
        return
    if isinstance(value, float) and value.is_integer():
        # A JSON integer beyond 64 bits reaches us as a float (the parser's choice): its digits
        # are already rounded, so it is out of range by construction if it does not fit.
        out.notes.append(ValueNote(Code.I_NUMERIC_INT64, "intValue written as a JSON number"))
        number: int = int(value)
    elif isinstance(value, int):
        out.notes.append(ValueNote(Code.I_NUMERIC_INT64, "intValue written as a JSON number"))
        number = value
    elif isinstance(value, str) and _DECIMAL.fullmatch(value):
        number = int(value)
    else:
        _invalid(out, value, "intValue must be a decimal integer")
        return
    if INT64_MIN <= number <= INT64_MAX:
        out.int = number
    else:
        out.json = str(value)
        out.notes.append(ValueNote(Code.W_INT_OUT_OF_RANGE, "intValue outside int64", value))


def _invalid(out: Decoded, value: Any, message: str) -> None:
    out.json = _raw_text(value)
    out.notes.append(ValueNote(Code.W_INVALID_VALUE, message, value))


def _raw_text(value: Any) -> str:
    """The JSON text of a value of the wrong type; ``TooDeepError`` when it nests beyond what
    JSON text can be written for (orjson stops at 255 levels): the attribute is quarantined."""
    try:
        return orjson.dumps(value, default=json_literal).decode()
    except TypeError as exc:
        if "Recursion" in str(exc):
            raise TooDeepError from exc
        raise


def _valid_utf8(text: str, out: Decoded) -> str:
    if isinstance(text, Replaced):  # scrubbed by the reader; the original escapes go to json
        out.json = text.escaped
        out.notes.append(
            ValueNote(Code.W_INVALID_UTF8, "lone surrogate escape stored as U+FFFD", text.escaped)
        )
        return str(text)
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # a caller-built dict can hold lone surrogates too
        return _valid_utf8(scrub_surrogates(text)[0], out)
    return text


_NOT_A_DOUBLE = "doubleValue must be a number, numeric string, NaN or Infinity"
_BEYOND_DOUBLE = "doubleValue beyond the range of a double (infinity is spelled Infinity)"


def _double(value: Any) -> tuple[float | None, str]:
    """The double, or None and why not: another type, or a number beyond the range of a double
    (``1e999999``, as a number or a numeric string) — which is no infinity: that is spelled."""
    if isinstance(value, bool):
        return None, _NOT_A_DOUBLE
    if isinstance(value, BigNumber):
        return None, _BEYOND_DOUBLE
    if isinstance(value, int | float):
        try:
            return float(value), ""
        except OverflowError:  # an int of a caller-built dict
            return None, _BEYOND_DOUBLE
    if isinstance(value, str):
        if value in _SPECIAL_DOUBLES:
            return _SPECIAL_DOUBLES[value], ""
        try:
            number = float(value)
        except ValueError:
            return None, _NOT_A_DOUBLE
        if math.isinf(number) and any(c.isdigit() for c in value):
            return None, _BEYOND_DOUBLE
        return number, ""
    return None, _NOT_A_DOUBLE


def decode_bytes(value: Any) -> bytes | None:
    """A ``bytesValue``: standard or URL-safe base64, padding optional; None if it is not."""
    return _bytes(value)


def _bytes(value: Any) -> bytes | None:
    if not isinstance(value, str):
        return None
    text = value.replace("-", "+").replace("_", "/")
    text += "=" * (-len(text) % 4)
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        return None


def _plain_container(kind: str, value: Any, depth: int, out: Decoded) -> Any:
    if depth > MAX_DEPTH:
        raise TooDeepError
    items = value.get("values") if isinstance(value, dict) else None
    if items is None:
        items = []
    if not isinstance(items, list):
        out.notes.append(
            ValueNote(Code.W_INVALID_VALUE, f"{kind}Value.values must be a list", value)
        )
        items = []
    if kind == "array":
        return [_plain(item, depth, out) for item in items]
    result: dict[str, Any] = {}
    for kv in items:
        key = kv.get("key") if isinstance(kv, dict) else None
        if not isinstance(key, str):
            out.notes.append(ValueNote(Code.W_INVALID_VALUE, "a kvlist entry without a key", kv))
            continue
        if key in result:
            out.notes.append(
                ValueNote(
                    Code.W_DUPLICATE_ATTRIBUTE_KEY, f"kvlist key {key!r} repeats; first kept", key
                )
            )
            continue
        result[key] = _plain(kv.get("value"), depth, out)
    return result


def _plain(raw: Any, depth: int, out: Decoded) -> Any:
    """A nested AnyValue as a plain JSON value."""
    if not isinstance(raw, dict):
        return None
    for key, value in raw.items():
        kind = VARIANTS.get(key)
        if kind is None:
            continue
        if kind in ("array", "kvlist"):
            return _plain_container(kind, value, depth + 1, out)
        inner = Decoded()
        _fill(inner, kind, value, depth)
        out.notes.extend(n for n in inner.notes if n.code is not Code.I_NUMERIC_INT64)
        if kind == "double":
            return (
                inner.double if inner.double is not None and math.isfinite(inner.double) else None
            )
        if kind == "bytes":
            return inner.bytes.hex() if inner.bytes is not None else None
        if kind == "int":
            return inner.int if inner.int is not None else inner.json
        return inner.string if kind == "string" else inner.bool
    return None
