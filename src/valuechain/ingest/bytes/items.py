"""Where the items of a single document's ``resourceSpans`` list start (TRACE-FORMAT §1.8).

A single OTLP/JSON document has no records to cut at, but the items of its ``resourceSpans``
list are independent: ``Framer`` cuts a large document between them, so that it streams in
parts as NDJSON does, in bounded memory and on every decode worker.

An item *start* is the ``{`` of an object whose first key is ``"resource"`` (how exporters
write a ResourceSpans: fields in their protobuf order), after the list's ``[`` or a ``,``.
In valid JSON those bytes are structural: inside a string, the unescaped ``"`` after the ``{``
would end it. Nothing is parsed here. The decoder checks that each part's items parse and
that there are as many as counted here; anything else — an item that starts with another key,
bytes that only look like a start, a document that is not one — refuses the streamed reading,
and the source is read again whole (``DocumentRefused``).
"""

from __future__ import annotations

import re

# `{"resourceSpans":[`, whitespace allowed (a pretty-printed document streams too)
HEAD = re.compile(rb'[ \t\r\n]*\{[ \t\r\n]*"resourceSpans"[ \t\r\n]*:[ \t\r\n]*\[[ \t\r\n]*')
OPEN = b'{"resourceSpans":['
CLOSE = b"]}"
# a `}` at the end of a line, a `{` starting another: in JSON (no raw newline in a string)
# only between two values at the top level — the document has ended, another record follows
_NEXT_RECORD = re.compile(rb"\}[ \t\r]*\n[ \t\r\n]*\{")
_KEY = b'"resource"'
_SPACE = frozenset(b" \t\r\n")
_COMMA, _COLON, _BRACE = 0x2C, 0x3A, 0x7B


class DocumentRefused(Exception):  # noqa: N818 — a signal to read the source whole, not an error
    """A document cannot be read in parts: its source is to be read again, whole."""


def _before(data: bytes | bytearray, pos: int) -> int:
    """The last non-space byte before ``pos`` (-1: none)."""
    pos -= 1
    while pos >= 0 and data[pos] in _SPACE:
        pos -= 1
    return pos


def _after(data: bytes | bytearray, pos: int) -> int:
    """The first non-space byte from ``pos`` on (``len(data)``: none)."""
    while pos < len(data) and data[pos] in _SPACE:
        pos += 1
    return pos


def _start(data: bytes | bytearray, key_at: int) -> int:
    """The ``{`` of the item whose ``"resource"`` key is at ``key_at``; -1 if it is none
    (the part's first item has nothing before it)."""
    colon = _after(data, key_at + len(_KEY))
    brace = _before(data, key_at)
    if colon == len(data) or data[colon] != _COLON or brace < 0 or data[brace] != _BRACE:
        return -1
    before = _before(data, brace)
    return brace if before < 0 or data[before] == _COMMA else -1


def last_start(data: bytes | bytearray) -> int:
    """The last item start after a comma (where a part may end); -1 if there is none."""
    end = len(data)
    while (at := data.rfind(_KEY, 0, end)) >= 0:
        start = _start(data, at)
        if start > 0:
            return start
        end = at
    return -1


def count(data: bytes | bytearray) -> int:
    """The item starts in ``data`` (a part's items)."""
    found, at = 0, data.find(_KEY)
    while at >= 0:
        found += _start(data, at) >= 0
        at = data.find(_KEY, at + len(_KEY))
    return found


def record_end(data: bytes | bytearray) -> int:
    """Just after the ``}`` that ends the document when another record follows (-1: none)."""
    found = _NEXT_RECORD.search(data)
    return found.start() + 1 if found is not None else -1


def separated(data: bytes | bytearray, start: int) -> bytes:
    """The items before the item start ``start``, without the comma between them."""
    comma = _before(data, start)
    assert data[comma] == _COMMA, "an item start follows a comma"
    return bytes(data[:comma])


def closed(data: bytes | bytearray) -> bytes:
    """The last items of a document: ``data`` without the ``]}`` that ends it.

    Raises:
        DocumentRefused: the document does not end right after its list (a key follows it,
            another document, or it is cut short).
    """
    brace = _before(data, len(data))
    bracket = _before(data, brace) if brace >= 0 and data[brace] == 0x7D else -1
    if bracket < 0 or data[bracket] != 0x5D:
        raise DocumentRefused("the document does not end with its resourceSpans list")
    return bytes(data[:bracket])
