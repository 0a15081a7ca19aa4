"""Where a single document can be cut: between its spans, or its ``resourceSpans`` items.

A single OTLP/JSON document has no records to cut at, but its spans are independent:
``Framer`` cuts a large document between two spans (or two items), so that it streams in
parts as NDJSON does, in bounded memory and on every decode worker. A part that starts inside
an item carries that item's and that scope's *heads* — the bytes from the item's ``{`` to its
``"scopeSpans":[`` and from the scope's ``{`` to its ``"spans":[`` — and where it is: the item,
scope and span indexes of its first span (``Context``); the decoder reopens them before the
part's bytes and closes them after.

A *span start* is the ``{`` of an object that begins ``"traceId"``, ``"spanId"``, a few
scalars, then ``"name"`` (how exporters write a Span: fields in their protobuf order; a link
never has a name), after a ``,``. An *item start* is a ``{`` whose first key is
``"resource"``, after a ``,``. In valid JSON those bytes are structural: inside a string, the
unescaped ``"`` after the ``{`` would end it. Items, scopes and spans are counted by their
keys (``"scopeSpans"``, ``"spans"``, ``"startTimeUnixNano"``: one each, and no other object
has them). Nothing is parsed here: the decoder checks that each part parses and that it holds
as many of each as its bytes have keys. Anything else — a key that only looks like one, a span
or item in another field order, a document that is not one — refuses the streamed reading,
and the source is read again, in runs of whole items or whole (``DocumentRefused``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# `{"resourceSpans":[`, whitespace allowed (a pretty-printed document streams too)
HEAD = re.compile(rb'[ \t\r\n]*\{[ \t\r\n]*"resourceSpans"[ \t\r\n]*:[ \t\r\n]*\[[ \t\r\n]*')
OPEN = b'{"resourceSpans":['
CLOSE = b"]}"
# a `}` at the end of a line, a `{` starting another: in JSON (no raw newline in a string)
# only between two values at the top level — the document has ended, another record follows
_NEXT_RECORD = re.compile(rb"\}[ \t\r]*\n[ \t\r\n]*\{")
_KEY = b'"resource"'
ITEM_KEY, SCOPE_KEY, SPAN_KEY = b'"scopeSpans"', b'"spans"', b'"startTimeUnixNano"'
INSIDE = b"]}]}"  # closes a part cut inside a spans list: the list, its scope, scopeSpans, item
# ~: spaces; V: a scalar (a string without escapes, or digits)
_SPAN_START = re.compile(
    rb'\{~"traceId"~:~V~,~"spanId"~:~V~(?:,~"(?:traceState|parentSpanId|flags)"~:~V~)*,~"name"~:'.replace(
        b"~", rb"[ \t\r\n]*"
    ).replace(b"V", rb'(?:"[^"\\]*"|[0-9]+)')
)
_TRACE_KEY = b'"traceId"'
_SPACE = frozenset(b" \t\r\n")
_COMMA, _COLON, _BRACE = 0x2C, 0x3A, 0x7B


SPANS, ITEMS = "spans", "items"  # how a document may be cut: between spans, or whole items


class DocumentRefused(Exception):  # noqa: N818 — a signal to read the source again, not an error
    """A document cannot be read in the parts it was cut in: its source is to be read again,
    in runs of whole items (``again == ITEMS``) or whole (``again == ""``)."""

    def __init__(self, message: str, again: str = "") -> None:
        super().__init__(message)
        self.again = again


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


def last_cut(data: bytes | bytearray, cuts: str = SPANS) -> tuple[int, bool]:
    """The last place a part may end in ``data`` — a span start (True: inside an item; only
    with ``cuts == SPANS``) or else an item start (False); -1 if there is none."""
    if cuts != SPANS:
        return last_start(data), False
    end = len(data)
    while (at := data.rfind(_TRACE_KEY, 0, end)) >= 0:
        brace = _before(data, at)
        after_comma = brace > 0 and data[brace] == _BRACE and data[_before(data, brace)] == _COMMA
        if after_comma and _SPAN_START.match(data, brace):
            return brace, True
        end = at
    return last_start(data), False


@dataclass(slots=True)
class Context:
    """Where a document is at the end of the bytes read so far: inside item ``item`` (its
    head ``item_head``) and its scope ``scope`` (``scope_head``), after ``spans`` of its spans."""

    item: int = -1
    item_head: bytes = b""
    scope: int = -1
    scope_head: bytes = b""
    spans: int = 0

    def advance(self, data: bytes) -> None:
        """Move past ``data``, a part's bytes.

        Raises:
            DocumentRefused: an item or scope head is not where a part may reopen it.
        """
        after = 0
        items = keys(data, ITEM_KEY)
        if items:
            after = items[-1]
            self.item += len(items)
            self.item_head = _head(data, after, _KEY, ITEM_KEY)
            self.scope = -1
        scopes = keys(data, SCOPE_KEY, after)
        if scopes:
            self.scope += len(scopes)
            self.scope_head = _head(data, scopes[-1], b'"scope"', SCOPE_KEY)
            self.spans = count_keys(data, SPAN_KEY, scopes[-1])
        elif items:
            raise DocumentRefused("an item without a scope of spans")
        else:
            self.spans += count_keys(data, SPAN_KEY)


def keys(data: bytes, key: bytes, start: int = 0) -> list[int]:
    """Where ``key`` is a key in ``data`` from ``start`` on: a colon follows it (the same
    bytes as a value, ``"key":"spans"``, are not one). ``bytes.find`` and a look at the next
    byte: a regular expression over a part took twice as long."""
    found, at = [], data.find(key, start)
    while at >= 0:
        colon = _after(data, at + len(key))
        if colon < len(data) and data[colon] == _COLON:
            found.append(at)
        at = data.find(key, at + len(key))
    return found


def count_keys(data: bytes, key: bytes, start: int = 0) -> int:
    """How many times ``key`` is a key in ``data`` from ``start`` on."""
    return len(keys(data, key, start))


def _head(data: bytes, key_at: int, first: bytes, key: bytes) -> bytes:
    """The bytes from the ``{`` of the object whose ``key`` (a list) is at ``key_at`` — found
    by its ``first`` key — to that list's ``[``, holding no other item, scope or span key."""
    colon = _after(data, key_at + len(key))
    bracket = _after(data, colon + 1) if colon < len(data) and data[colon] == _COLON else -1
    if bracket < 0 or bracket >= len(data) or data[bracket] != 0x5B:
        raise DocumentRefused("a list that does not follow its key")
    end = key_at
    while (at := data.rfind(first, 0, end)) >= 0:
        brace = _before(data, at)
        colon = _after(data, at + len(first))
        if brace >= 0 and data[brace] == _BRACE and colon < len(data) and data[colon] == _COLON:
            head = data[brace : bracket + 1]
            wanted = {ITEM_KEY: key is ITEM_KEY, SCOPE_KEY: key is SCOPE_KEY, SPAN_KEY: False}
            if all(count_keys(head, k) == int(n) for k, n in wanted.items()):
                return head
            break
        end = at
    message = "an item or scope that does not start with its resource or scope"
    raise DocumentRefused(message, ITEMS)  # whole items need no head


def record_end(data: bytes | bytearray) -> int:
    """Just after the ``}`` that ends the document when another record follows (-1: none)."""
    found = _NEXT_RECORD.search(data)
    return found.start() + 1 if found is not None else -1


def separated(data: bytes | bytearray, start: int) -> bytes:
    """The bytes before the span or item start ``start``, without the comma before it."""
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
