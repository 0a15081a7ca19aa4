"""Keys repeated in one JSON object (TRACE-FORMAT §5.2 ``W_DUPLICATE_JSON_KEY``).

Every JSON reader the import uses keeps the last of a repeated key and says nothing (orjson,
msgspec, the stdlib; Arrow's reader refuses the record, which one of those then reads). So a
record is checked once parsed, in two steps:

1. ``may_repeat``, at C speed: the record's text and what its parse holds, written back as
   JSON by orjson or msgspec, have as many ``"`` — keys and strings are the same, and a string's
   quote is written ``\\"`` by both, or ``\\u0022`` in the text (counted as one) — unless a key
   was read twice in one object: then the text holds at least its two quotes more. Whitespace
   and the spelling of numbers do not count. A difference never misses a repeated key; it may
   flag a record that has none (an escape the writer spells otherwise), which costs step 2.
2. ``duplicate_keys`` parses a flagged record again with the stdlib, whose hook sees every pair
   of every object, and names each repeated key: its JSON path, how often, and the value kept.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from typing import Any

import orjson

from valuechain.ingest.otlp.scalars import json_literal

_ESCAPED_QUOTE = "\\u0022"


@dataclass(frozen=True, slots=True)
class DuplicateKey:
    """A key read more than once in one object; the readers keep its last value."""

    path: str  # the key's JSON path in its record's text (``resourceSpans[0]…spans[3].name``)
    key: str
    count: int
    kept: Any


def may_repeat(text: bytes | str, written: bytes) -> bool:
    """Whether the JSON ``text`` may repeat a key in one object, ``written`` being its parse
    written back as compact JSON (orjson or msgspec: quotes inside strings as ``\\"``)."""
    if isinstance(text, bytes):
        quotes = text.count(b'"') + text.count(_ESCAPED_QUOTE.encode())
    else:
        quotes = text.count('"') + text.count(_ESCAPED_QUOTE)
    return quotes != written.count(b'"')


def duplicate_keys(text: bytes | str, parsed: Any) -> tuple[DuplicateKey, ...]:
    """Every key repeated in one object of the JSON value ``text`` (read as ``parsed``), in
    the order of the parsed value; () at once for the record that repeats none."""
    try:
        written = orjson.dumps(parsed, default=json_literal)
    except TypeError:  # nested beyond orjson's 255 levels: step 2 tells
        written = b""
    if written and not may_repeat(text, written):
        return ()
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    try:
        value = json.loads(text, object_pairs_hook=_object)
    except (ValueError, RecursionError):  # it parsed once (leniently): nothing to name here
        return ()
    return tuple(_repeated(value))


class _Repeated(dict[str, Any]):
    """An object with a repeated key, read as the readers read it: the last value kept."""

    __slots__ = ("counts",)
    counts: dict[str, int]


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) == len(pairs):
        return obj
    repeated = _Repeated(obj)
    repeated.counts = {k: n for k, n in Counter(k for k, _ in pairs).items() if n > 1}
    return repeated


def _repeated(value: Any) -> list[DuplicateKey]:
    """The repeated keys under ``value``, depth first in its order (no recursion: a record may
    nest as deep as a reader follows)."""
    found: list[DuplicateKey] = []
    stack: list[tuple[Any, str]] = [(value, "")]
    while stack:
        item, path = stack.pop()
        if isinstance(item, dict):
            if isinstance(item, _Repeated):
                for key, count in item.counts.items():
                    found.append(DuplicateKey(_child(path, key), key, count, item[key]))
            stack.extend((v, _child(path, k)) for k, v in reversed(item.items()))
        elif isinstance(item, list):
            stack.extend((v, f"{path}[{i}]") for i, v in reversed(list(enumerate(item))))
    return found


def _child(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key
