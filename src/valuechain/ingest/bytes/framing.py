"""Framing of a decompressed source (TRACE-FORMAT §1.8 steps 2–3, §5.3): where its records are.

Two readings of the same rules, side by side so that they cannot drift apart:

- One shot, pure functions over bytes: ``split_values`` yields every JSON value of a single
  document, an NDJSON stream or concatenated pretty-printed documents, each with its line and
  byte offset, and a ``Broken`` item for every stretch that does not parse (corrupt record,
  truncated tail); ``split_lines`` does the same for a run of whole NDJSON lines.
- Streaming: ``Framer`` cuts a source into *parts*, runs of whole records that can be decoded
  independently, in bounded memory, by any process:

  - ``Lines``: whole NDJSON lines (the collector's ``json`` framing), cut every ~``batch_bytes``.
  - ``Records``: whole length-prefixed records (4-byte big-endian length, then a protobuf
    message, a zstd frame holding one — the collector's *legacy* compression — or JSON).
  - ``Whole``: the whole body, for everything else: a source that fits in one batch (so small
    sources take exactly the one-shot path), a single JSON document, concatenated
    pretty-printed documents, a stream whose first line is not a JSON value, and a bare ``.pb``
    request. A single document has to be parsed whole anyway; this is the one place memory is
    not bounded by the batch size.

Cuts never split a record. NDJSON parts are cut before the last non-blank line seen, so every
part but the final one is followed by another record and only the final part can end in a
truncated line (``E_TRUNCATED_RECORD``), exactly as when the body is read whole.

The module is a little over 400 lines on purpose: decoding the parts must give exactly what the
one-shot read gives (which first line makes a stream, where a record ends, which tail is a
truncation), and splitting the two readings would put those rules in two places again.
"""

from __future__ import annotations

import json
import math
import re
import struct
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import orjson

from valuechain.contract.issues import Code
from valuechain.ingest.bytes.compression import ZSTD_MAGIC
from valuechain.ingest.otlp.scalars import scrub_surrogates

BOM = b"\xef\xbb\xbf"
DEFAULT_BATCH_BYTES = 8 << 20
MAX_RECORD_BYTES = 1 << 30  # a longer length prefix is corrupt framing, not a record
_PREFIX = struct.Struct(">I")
_PROTO_FIRST = 0x0A  # field 1 (resource_spans), wire type 2: how every trace request starts


@dataclass(slots=True)
class Value:
    """One parsed JSON value and where it starts."""

    obj: Any
    line: int | None  # None inside length-prefixed records, which have no lines
    byte_offset: int
    nonstandard: bool = False  # bare NaN/Infinity tokens: read by the lenient path
    invalid_utf8: int = 0  # strings whose lone surrogate escapes were replaced with U+FFFD


@dataclass(slots=True)
class Broken:
    """A stretch of input that is not a JSON value."""

    code: Code  # E_INVALID_RECORD | E_TRUNCATED_RECORD | E_TRUNCATED_JSON | E_INVALID_PROTO_RECORD
    line: int | None
    byte_offset: int
    end_offset: int
    message: str
    raw: str = field(repr=False, default="")


def split_values(data: bytes) -> Iterator[Value | Broken]:
    """Yield the consecutive JSON values of ``data`` (BOM and leading whitespace stripped)."""
    start = len(BOM) if data.startswith(BOM) else 0
    body = data[start:]
    if not body.strip():
        return
    try:
        obj = orjson.loads(body)
    except orjson.JSONDecodeError:
        pass
    else:
        _, line, offset = first_value(data)
        yield Value(obj, line, offset)
        return
    first = body.lstrip().split(b"\n", 1)[0]
    if parses(first):  # NDJSON / JSON Lines: one value per non-empty line
        yield from split_lines(body, start)
    else:
        yield from _concatenated(body, start)


def first_value(data: bytes) -> tuple[bytes, int, int]:
    """``data`` without its BOM, and the line and byte offset where its first value starts."""
    body = data[len(BOM) :] if data.startswith(BOM) else data
    first = _skip_space(body)
    return body, body.count(b"\n", 0, first) + 1, len(data) - len(body) + first


def _skip_space(data: bytes | bytearray, start: int = 0) -> int:
    """The offset of the first byte from ``start`` on that is not ASCII whitespace."""
    return len(data) - len(data[start:].lstrip())


def parses(chunk: bytes) -> bool:
    """Whether ``chunk`` is one JSON value (orjson, else the lenient stdlib path)."""
    try:
        orjson.loads(chunk)
    except orjson.JSONDecodeError:
        return _lenient(chunk.decode("utf-8", "replace"))[0]
    return True


def _constants() -> tuple[list[str], Any]:
    seen: list[str] = []

    def constant(name: str) -> float:
        seen.append(name)
        return {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}[name]

    return seen, constant


def _lenient(text: str) -> tuple[bool, Any, bool]:
    """Parse with the stdlib: (ok, value, whether bare NaN/Infinity tokens were used).

    The stdlib accepts what orjson refuses and OTLP producers still write: bare NaN and
    Infinity tokens (Python ``json.dumps``) and lone surrogate escapes.
    """
    seen, constant = _constants()
    try:
        return True, json.loads(text, parse_constant=constant), bool(seen)
    except (json.JSONDecodeError, RecursionError):
        return False, None, False


def lenient_value(text: str, line: int | None, byte_offset: int) -> Value | None:
    """``text`` as one JSON value by the lenient path (surrogates scrubbed), or None."""
    ok, obj, nonstandard = _lenient(text)
    if not ok:
        return None
    return _scrubbed(Value(obj, line, byte_offset, nonstandard), text)


def _scrubbed(value: Value, text: str) -> Value:
    # Only the stdlib path can produce lone surrogates (from \uD800-style escapes); they cannot
    # be encoded as UTF-8 and would break Arrow and hashing downstream (TRACE-FORMAT §5.2).
    if _SURROGATE_ESCAPE.search(text):
        value.obj, value.invalid_utf8 = scrub_surrogates(value.obj)
    return value


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def split_lines(
    chunk: bytes,
    start: int,
    first_line: int = 1,
    *,
    final: bool = True,
    ends_with_newline: bool | None = None,
) -> Iterator[Value | Broken]:
    """The NDJSON values of ``chunk``, a run of whole lines of a larger body.

    ``start`` is the byte offset of ``chunk[0]`` in the decompressed source and ``first_line``
    its line number. Only a ``final`` chunk (the one holding the body's last non-blank line and
    its end) can end in a truncated record; the streaming reader cuts chunks so that every
    earlier chunk is followed by a non-blank line.
    """
    offset = 0
    if ends_with_newline is None:  # whether the whole body ends with a newline
        ends_with_newline = chunk.endswith(b"\n")
    lines = chunk.split(b"\n")
    last = max((i for i, raw in enumerate(lines) if raw.strip()), default=-1) if final else -1
    for number, raw in enumerate(lines, start=first_line):
        here = offset
        offset += len(raw) + 1
        if not raw.strip():
            continue
        try:
            yield Value(orjson.loads(raw), number, start + here)
            continue
        except orjson.JSONDecodeError as exc:
            error = str(exc)
        text = raw.decode("utf-8", "replace")
        value = lenient_value(text, number, start + here)
        if value is not None:
            yield value
            continue
        tail = number - first_line == last and (not ends_with_newline or "end of data" in error)
        code = Code.E_TRUNCATED_RECORD if tail else Code.E_INVALID_RECORD
        what = "the last line ends inside a JSON value" if tail else f"not valid JSON ({error})"
        yield Broken(code, number, start + here, start + here + len(raw), what, text)


_RESYNC = re.compile(r"\n(?=[{\[])")
# What a value cut off by the end of the input leaves after the parser's error position: a
# prefix of a literal or a number, or of a \u escape (TRACE-FORMAT §5.2 truncation cases).
_CUT_TAIL = re.compile(
    r"(?:-?(?:I(?:n(?:f(?:i(?:n(?:i(?:ty?)?)?)?)?)?)?)?|t(?:r(?:ue?)?)?|f(?:a(?:l(?:se?)?)?)?"
    r"|n(?:u(?:ll?)?)?|N(?:aN?)?|-?\d*\.?\d*(?:[eE][+-]?\d*)?|u[0-9A-Fa-f]{0,3})\s*"
)


def _cut_by_eof(text: str, exc: json.JSONDecodeError) -> bool:
    """Whether the parse failed only because the input ended inside a value."""
    if exc.msg.startswith("Unterminated string"):
        return True
    return _CUT_TAIL.fullmatch(text, exc.pos) is not None


def _concatenated(body: bytes, start: int) -> Iterator[Value | Broken]:
    """Concatenated (pretty-printed) documents, or one document that does not parse."""
    text = body.decode("utf-8", "replace")
    seen, constant = _constants()
    decoder = json.JSONDecoder(parse_constant=constant)
    pos, line, byte_offset, parsed = 0, 1, start, 0
    ws = re.compile(r"\s*")
    while True:
        skip = ws.match(text, pos)
        assert skip is not None
        line += text.count("\n", pos, skip.end())
        byte_offset += len(text[pos : skip.end()].encode())
        pos = skip.end()
        if pos >= len(text):
            return
        try:
            obj, end = decoder.raw_decode(text, pos)
        except RecursionError:  # nesting deeper than the parser's stack: not readable data
            resync = _RESYNC.search(text, pos + 1)
            end = resync.start() + 1 if resync else len(text)
            raw = text[pos:end]
            message = "not valid JSON (nested too deeply to parse)"
            yield Broken(
                Code.E_INVALID_RECORD,
                line,
                byte_offset,
                byte_offset + len(raw.encode()),
                message,
                raw,
            )
        except json.JSONDecodeError as exc:
            at_eof = _cut_by_eof(text, exc)
            resync = None if at_eof else _RESYNC.search(text, exc.pos)
            end = resync.start() + 1 if resync else len(text)
            raw = text[pos:end]
            if resync is None and at_eof:
                code = Code.E_TRUNCATED_RECORD if parsed else Code.E_TRUNCATED_JSON
                message = "the input ends inside a JSON value"
            else:
                code = Code.E_INVALID_RECORD
                message = f"not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})"
            yield Broken(code, line, byte_offset, byte_offset + len(raw.encode()), message, raw)
        else:
            parsed += 1
            yield _scrubbed(Value(obj, line, byte_offset, bool(seen)), text[pos:end])
            seen.clear()
        line += text.count("\n", pos, end)
        byte_offset += len(text[pos:end].encode())
        pos = end


# ---------------------------------------------------------------------------- parts
@dataclass(frozen=True, slots=True)
class Lines:
    data: bytes
    start: int  # byte offset of data[0] in the decompressed source
    first_line: int
    final: bool


@dataclass(frozen=True, slots=True)
class Records:
    data: bytes
    start: int
    final: bool  # only the final part may end in a cut record


@dataclass(frozen=True, slots=True)
class Whole:
    data: bytes


Part = Lines | Records | Whole


def length_prefixed(head: bytes) -> bool:
    """Whether ``head`` starts like the collector's length-prefixed framing (§1.8 step 2)."""
    if len(head) < 5:
        return False
    (size,) = _PREFIX.unpack_from(head)
    if size == 0 or size > MAX_RECORD_BYTES:
        return False
    payload = head[4:8]
    looks = payload.startswith(ZSTD_MAGIC) or payload[0] in (_PROTO_FIRST, 0x7B, 0x5B)
    # a bare request starts with 0x0A, i.e. a "length" of at least 167 MB: it needs the record to
    # fit in what was read, or a small length (< 16 MiB, first byte 0)
    return looks and (4 + size <= len(head) or head[0] == 0)


def iter_records(data: bytes, start: int) -> Iterator[tuple[int, int, int]]:
    """(offset of the prefix, payload start, payload end) of every record of a part; a cut
    last record has a payload end beyond ``len(data)`` (relative offsets)."""
    pos = 0
    while pos < len(data):
        if len(data) - pos < 4:
            yield pos, pos + 4, pos + 4
            return
        (size,) = _PREFIX.unpack_from(data, pos)
        yield pos, pos + 4, pos + 4 + size
        pos += 4 + size


class Framer:
    """The parts of one decompressed source, read from ``chunks`` a batch at a time."""

    def __init__(self, chunks: Iterable[bytes], batch_bytes: int = DEFAULT_BATCH_BYTES) -> None:
        self._chunks = iter(chunks)
        self.batch_bytes = max(batch_bytes, 1)
        self.framing = "single"  # single | stream | length-prefixed (final after iteration)
        self.streamed = False  # whether the source was read in several parts

    def _fill(self, buf: bytearray, want: int) -> bool:
        """Read until ``buf`` holds ``want`` bytes; False at the end of the input."""
        while len(buf) < want:
            piece = next(self._chunks, None)
            if piece is None:
                return False
            buf += piece
        return True

    def __iter__(self) -> Iterator[Part]:
        buf = bytearray()
        if not self._fill(buf, self.batch_bytes + 1):
            yield Whole(bytes(buf))
            return
        start = len(BOM) if buf.startswith(BOM) else 0
        first = _skip_space(buf, start)
        if first < len(buf) and buf[first] in (0x7B, 0x5B):  # { or [
            yield from self._lines(buf, start, first)
        elif length_prefixed(bytes(buf[:64])):
            yield from self._records(buf)
        else:
            yield self._whole(buf)

    def _whole(self, buf: bytearray) -> Whole:
        for piece in self._chunks:
            buf += piece
        return Whole(bytes(buf))

    # ------------------------------------------------------------------ NDJSON
    def _lines(self, buf: bytearray, start: int, first: int) -> Iterator[Part]:
        end = buf.find(b"\n", first)
        while end < 0:  # the first line is longer than a batch: read on to its end
            size = len(buf)
            if not self._fill(buf, size + self.batch_bytes):
                break
            end = buf.find(b"\n", size)
        line = bytes(buf[first:end]) if end >= 0 else b""
        rest_blank = end < 0 or not bytes(buf[end:]).strip()
        if end < 0 or rest_blank or not parses(line):
            yield self._whole(buf)  # one document, or not NDJSON: the one-shot path
            return
        self.framing, self.streamed = "stream", True
        del buf[:start]
        offset, line_no = start, 1
        while True:
            if not self._fill(buf, self.batch_bytes + 1):
                yield Lines(bytes(buf), offset, line_no, True)
                return
            cut = max(last_line_start(buf), 0)  # the tail starts with the last non-blank line
            if cut <= 0:  # one line longer than a batch: read on
                if not self._fill(buf, len(buf) + self.batch_bytes):
                    yield Lines(bytes(buf), offset, line_no, True)
                    return
                continue
            data = bytes(buf[:cut])
            del buf[:cut]
            yield Lines(data, offset, line_no, False)
            offset += len(data)
            line_no += data.count(b"\n")

    # ------------------------------------------------------------------ length-prefixed
    def _records(self, buf: bytearray) -> Iterator[Part]:
        self.framing, self.streamed = "length-prefixed", True
        offset = 0
        while True:
            if not self._fill(buf, self.batch_bytes + 4):
                yield Records(bytes(buf), offset, True)
                return
            pos = _complete(buf, self.batch_bytes)
            if pos == 0:
                (size,) = _PREFIX.unpack_from(buf)
                if size > MAX_RECORD_BYTES:  # corrupt framing: the rest is one broken item
                    yield Records(bytes(buf), offset, True)
                    return
                if not self._fill(buf, 4 + size):  # one record longer than a batch
                    yield Records(bytes(buf), offset, True)
                    return
                continue
            data = bytes(buf[:pos])
            del buf[:pos]
            yield Records(data, offset, False)
            offset += len(data)


def _complete(buf: bytearray, limit: int) -> int:
    """The end of the whole records at the start of ``buf``, stopping once past ``limit``."""
    pos = 0
    while len(buf) - pos >= 4:
        (size,) = _PREFIX.unpack_from(buf, pos)
        if size > MAX_RECORD_BYTES or pos + 4 + size > len(buf):
            break
        pos += 4 + size
        if pos >= limit:
            break
    return pos


def last_line_start(data: bytes | bytearray) -> int:
    """Where the last non-blank line of ``data`` starts (-1 when every line is blank)."""
    end = len(data)
    while end > 0:
        nl = data.rfind(b"\n", 0, end)
        if data[nl + 1 : end].strip():
            return nl + 1
        if nl < 0:
            return -1
        end = nl
    return -1
