"""JavaScript string, number and JSON semantics the reference relies on (CONTRACT §0.2, §9 Q8/Q9).

The reference is TypeScript: its string lengths, slices and orderings are in UTF-16 code
units, its `trim()` strips a different whitespace set from Python's `str.strip()`, its
`typeof x === "number"` excludes booleans, and `JSON.stringify` formats numbers its own way.
Everything here is pure and total over JSON-shaped Python values.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping

from valuechain.contract.vocab import JS_MAX_SAFE_INTEGER, JS_WHITESPACE

_SURROGATE = re.compile("[\ud800-\udfff]")
_ASTRAL = re.compile("[\U00010000-\U0010ffff]")
_ARRAY_INDEX = re.compile(r"0|[1-9][0-9]*")
_MAX_ARRAY_INDEX = 2**32 - 2


def is_js_number(value: object) -> bool:
    """`typeof value === "number"`: int or float, never bool (CONTRACT §0.2 trap 1)."""
    return isinstance(value, int | float) and not isinstance(value, bool)


def js_trim(text: str) -> str:
    """`String.prototype.trim` (CONTRACT §9 Q8)."""
    return text.strip(JS_WHITESPACE)


def utf16_len(text: str) -> int:
    """`text.length`: the number of UTF-16 code units (CONTRACT §0.2 trap 2)."""
    if text.isascii():
        return len(text)
    return len(text) + len(_ASTRAL.findall(text))


def utf16_slice(text: str, start: int, end: int | None = None) -> str:
    """`text.slice(start, end)` in UTF-16 code units.

    Like the reference, a cut through a surrogate pair leaves a lone surrogate behind;
    `js_json` escapes it exactly as `JSON.stringify` does.
    """
    if text.isascii() or _ASTRAL.search(text) is None:
        length = len(text)
        lo, hi = _clamp_slice(length, start, end)
        return text[lo:hi]
    units = text.encode("utf-16-le", "surrogatepass")
    lo, hi = _clamp_slice(len(units) // 2, start, end)
    return units[2 * lo : 2 * hi].decode("utf-16-le", "surrogatepass")


def _clamp_slice(length: int, start: int, end: int | None) -> tuple[int, int]:
    lo = max(length + start, 0) if start < 0 else min(start, length)
    hi = length if end is None else (max(length + end, 0) if end < 0 else min(end, length))
    return lo, max(lo, hi)


def utf16_sort_key(text: str) -> bytes:
    """Key ordering strings by UTF-16 code units, as JS `<` and `Array.prototype.sort` do."""
    return text.encode("utf-16-be", "surrogatepass")


def js_number_str(value: int | float) -> str:
    """`String(value)` / `JSON.stringify(value)` for a finite number (CONTRACT §9 Q9)."""
    if isinstance(value, int):
        if -JS_MAX_SAFE_INTEGER <= value <= JS_MAX_SAFE_INTEGER:
            return str(value)
        value = float(value)  # JS holds every number as a double; may overflow to inf
    if value == 0:
        return "0"  # also -0
    # repr() gives the shortest round-trip digits, as ECMA-262 Number::toString requires;
    # only the layout differs. Normalise to value = 0.DIGITS × 10^point.
    mantissa, _, exp_text = repr(abs(value)).partition("e")
    whole, _, frac = mantissa.partition(".")
    raw = whole + frac
    digits = raw.lstrip("0")
    point = len(whole) + (int(exp_text) if exp_text else 0) - (len(raw) - len(digits))
    digits = digits.rstrip("0")
    sign = "-" if value < 0 else ""
    k = len(digits)
    if k <= point <= 21:
        return sign + digits + "0" * (point - k)
    if 0 < point <= 21:
        return sign + digits[:point] + "." + digits[point:]
    if -6 < point <= 0:
        return sign + "0." + "0" * -point + digits
    exponent = point - 1
    exp_sign = "+" if exponent >= 0 else "-"
    head = digits if k == 1 else digits[0] + "." + digits[1:]
    return f"{sign}{head}e{exp_sign}{abs(exponent)}"


def js_json(value: object, *, sort_keys: bool = False) -> str:
    """`JSON.stringify(value)`: compact, non-ASCII raw, integral floats without a fraction.

    Args:
        value: JSON-shaped data (None, bool, int, float, str, list/tuple, str-keyed Mapping).
        sort_keys: sort object keys by UTF-16 code units at every depth (the matcher's
            `stableStringify`, CONTRACT §2.4); otherwise keys follow JS property order
            (array-index keys ascending, then insertion order).

    Non-finite numbers print as `null` and lone surrogates as `\\udXXX`, as in JS.
    """
    parts: list[str] = []
    _emit(value, sort_keys, parts)
    return "".join(parts)


def _emit(value: object, sort_keys: bool, out: list[str]) -> None:
    if value is None:
        out.append("null")
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif isinstance(value, str):
        out.append(_js_string(value))
    elif isinstance(value, int | float):
        finite = isinstance(value, int) or math.isfinite(value)
        out.append(js_number_str(value) if finite else "null")
    elif isinstance(value, list | tuple):
        out.append("[")
        for index, item in enumerate(value):
            if index:
                out.append(",")
            _emit(item, sort_keys, out)
        out.append("]")
    elif isinstance(value, Mapping):
        _emit_object(value, sort_keys, out)
    else:
        raise TypeError(f"js_json: {type(value).__name__} is not JSON-shaped")


def _emit_object(value: Mapping[object, object], sort_keys: bool, out: list[str]) -> None:
    keys: list[str] = []
    for key in value:
        if not isinstance(key, str):
            raise TypeError(f"js_json: object key {key!r} is not a string")
        keys.append(key)
    if sort_keys:
        keys.sort(key=utf16_sort_key)
    else:
        keys = _js_property_order(keys)
    out.append("{")
    for index, key in enumerate(keys):
        if index:
            out.append(",")
        out.append(_js_string(key))
        out.append(":")
        _emit(value[key], sort_keys, out)
    out.append("}")


def _js_property_order(keys: list[str]) -> list[str]:
    indexes = [k for k in keys if _ARRAY_INDEX.fullmatch(k) and int(k) <= _MAX_ARRAY_INDEX]
    if not indexes:
        return keys
    index_set = set(indexes)
    return sorted(indexes, key=int) + [k for k in keys if k not in index_set]


def _js_string(text: str) -> str:
    encoded = json.dumps(text, ensure_ascii=False)
    if _SURROGATE.search(encoded) is None:
        return encoded
    # Re-pair adjacent surrogates (a JS string sees them as one character), then escape
    # whatever is still lone, as well-formed `JSON.stringify` (ES2019) does.
    paired = encoded.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", paired)
