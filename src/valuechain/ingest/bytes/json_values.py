"""A decompressed buffer as JSON values with line and byte offsets (TRACE-FORMAT §1.8, §5.2, §5.3).

Pure functions over bytes, the one-shot reading of a source: ``split_values`` yields every
JSON value of a single document, an NDJSON stream or concatenated pretty-printed documents,
each with its line and byte offset, and a ``Broken`` item for every stretch that does not
parse (corrupt record, truncated tail); ``split_lines`` does the same for a run of whole
NDJSON lines. The streaming reader (``framing``) asks ``parses`` which first line makes a
stream and decodes every part it cuts with these same functions, so that a source read in
parts gives exactly what it gives read whole: each rule (which first line makes a stream,
where a value ends, which tail is a truncation) lives here once; the length-prefix rules live
in ``framing``.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import orjson

from valuechain.contract.issues import Code
from valuechain.ingest.bytes.json_keys import DuplicateKey, duplicate_keys
from valuechain.ingest.bytes.json_locate import long_integer_path
from valuechain.ingest.otlp.scalars import BigNumber, scrub_surrogates

BOM = b"\xef\xbb\xbf"
# Python's own default limit on the digits of an integer it converts (CVE-2020-10735: the
# conversion takes quadratic time), fixed here so that no interpreter setting changes what a
# record reads as: a JSON integer longer than this makes its record unreadable.
MAX_INT_DIGITS = 4300
_UINT64_DIGITS = 20


@dataclass(slots=True)
class Value:
    """One parsed JSON value and where it starts."""

    obj: Any
    line: int | None  # None inside length-prefixed records, which have no lines
    byte_offset: int
    nonstandard: bool = False  # bare NaN/Infinity tokens: read by the lenient path
    invalid_utf8: int = 0  # strings whose lone surrogate escapes were replaced with U+FFFD
    duplicates: tuple[DuplicateKey, ...] = ()  # keys repeated in one object: the last was read


@dataclass(slots=True)
class Broken:
    """A stretch of input that is not a JSON value."""

    code: Code  # E_INVALID_RECORD | E_TRUNCATED_RECORD | E_TRUNCATED_JSON | E_RECORD_TOO_DEEP
    line: int | None
    byte_offset: int
    end_offset: int
    message: str
    raw: str = field(repr=False, default="")
    path: str | None = None  # the JSON path of what makes it unreadable, when one value does


def split_values(data: bytes, nuls: int = 0) -> Iterator[Value | Broken]:
    """Yield the consecutive JSON values of ``data`` (BOM and leading whitespace stripped).

    ``nuls`` NUL bytes followed ``data``, not held (``framing.Whole``): ``data`` ends in at
    least one, so it breaks where the whole body would, and the value broken at the end
    ends where the body's would."""
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
        yield Value(obj, line, offset, duplicates=duplicate_keys(body, obj))
        return
    first = body.lstrip().split(b"\n", 1)[0]
    if parses(first):  # NDJSON / JSON Lines: one value per non-empty line
        yield from split_lines(body, start)
    else:
        yield from _concatenated(body, start, nuls)


def first_value(data: bytes) -> tuple[bytes, int, int]:
    """``data`` without its BOM, and the line and byte offset where its first value starts."""
    body = data[len(BOM) :] if data.startswith(BOM) else data
    first = skip_space(body)
    return body, body.count(b"\n", 0, first) + 1, len(data) - len(body) + first


def skip_space(data: bytes | bytearray, start: int = 0) -> int:
    """The offset of the first byte from ``start`` on that is not ASCII whitespace."""
    return len(data) - len(data[start:].lstrip())


def parses(chunk: bytes) -> bool:
    """Whether ``chunk`` is one JSON value (orjson, else the lenient stdlib path)."""
    try:
        orjson.loads(chunk)
    except orjson.JSONDecodeError:
        try:
            return _lenient(chunk.decode("utf-8", "replace"))[0]
        except NumberTooLongError:  # one value, if not a readable one
            return True
    return True


class NumberTooLongError(Exception):
    """A JSON value that parses but holds an integer longer than ``MAX_INT_DIGITS``: its record
    is unreadable (``E_INVALID_RECORD``), named by the integer's JSON path."""

    def __init__(self, text: str, digits: int) -> None:
        self.path = long_integer_path(text, MAX_INT_DIGITS)
        where = f" at {self.path}" if self.path else ""
        super().__init__(
            f"a JSON integer of {digits:,} digits{where}, longer than the {MAX_INT_DIGITS:,} "
            "digits a reader converts"
        )


class _Reading:
    """The stdlib parser's hooks for one value: which bare NaN/Infinity tokens it met, and
    numbers read as orjson reads them (an integer beyond 64 bits is a float, a number beyond
    the range of a double a ``BigNumber``), never converting an integer longer than
    ``MAX_INT_DIGITS`` — it is noted instead, so that the parse still tells what else is wrong."""

    def __init__(self) -> None:
        self.constants: list[str] = []
        self.too_long = 0  # digits of the first integer longer than MAX_INT_DIGITS
        self.decoder = json.JSONDecoder(
            parse_constant=self._constant, parse_int=self._int, parse_float=self._float
        )

    def reset(self) -> None:
        self.constants.clear()
        self.too_long = 0

    def _constant(self, name: str) -> float:
        self.constants.append(name)
        return {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}[name]

    def _int(self, text: str) -> int | float:
        digits = len(text) - (text[0] == "-")
        if digits > MAX_INT_DIGITS:
            self.too_long = self.too_long or digits
            return 0  # never read: the value is unreadable
        if digits > _UINT64_DIGITS:
            return self._float(text)
        value = int(text)
        return value if -(1 << 63) <= value < (1 << 64) else float(text)

    @staticmethod
    def _float(text: str) -> float:
        number = float(text)
        return BigNumber(text) if math.isinf(number) else number


def _lenient(text: str) -> tuple[bool, Any, bool]:
    """Parse with the stdlib: (ok, value, whether bare NaN/Infinity tokens were used).

    The stdlib accepts what orjson refuses and OTLP producers still write: bare NaN and
    Infinity tokens (Python ``json.dumps``) and lone surrogate escapes; and it reads the numbers
    orjson refuses, beyond the range of a double. ``NumberTooLongError`` if the value holds an
    integer longer than ``MAX_INT_DIGITS``.
    """
    reading = _Reading()
    try:
        value = reading.decoder.decode(text)
    except (json.JSONDecodeError, RecursionError):
        return False, None, False
    if reading.too_long:
        raise NumberTooLongError(text, reading.too_long)
    return True, value, bool(reading.constants)


def lenient_value(text: str, line: int | None, byte_offset: int) -> Value | None:
    """``text`` as one JSON value by the lenient path (surrogates scrubbed), or None;
    ``NumberTooLongError`` if it holds an integer too long to read."""
    ok, obj, nonstandard = _lenient(text)
    if not ok:
        return None
    return _scrubbed(Value(obj, line, byte_offset, nonstandard), text)


def _scrubbed(value: Value, text: str) -> Value:
    """A value of the lenient path, made what the orjson path makes: lone surrogates replaced,
    repeated keys found."""
    # Only the stdlib path can produce lone surrogates (from \uD800-style escapes); they cannot
    # be encoded as UTF-8 and would break Arrow and hashing downstream (TRACE-FORMAT §5.2).
    if _SURROGATE_ESCAPE.search(text):
        value.obj, value.invalid_utf8 = scrub_surrogates(value.obj)
    value.duplicates = duplicate_keys(text, value.obj)
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
            obj = orjson.loads(raw)
        except orjson.JSONDecodeError as exc:
            error = str(exc)
        else:
            yield Value(obj, number, start + here, duplicates=duplicate_keys(raw, obj))
            continue
        text = raw.decode("utf-8", "replace")
        try:
            value = lenient_value(text, number, start + here)
        except NumberTooLongError as exc:
            end = start + here + len(raw)
            yield Broken(Code.E_INVALID_RECORD, number, start + here, end, str(exc), text, exc.path)
            continue
        if value is not None:
            yield value
            continue
        tail = number - first_line == last and (not ends_with_newline or "end of data" in error)
        if error.startswith(_DEPTH_ERROR):
            code, what = Code.E_RECORD_TOO_DEEP, TOO_DEEP_MESSAGE
        elif tail:
            code, what = Code.E_TRUNCATED_RECORD, "the last line ends inside a JSON value"
        else:
            code, what = Code.E_INVALID_RECORD, f"not valid JSON ({error})"
        yield Broken(code, number, start + here, start + here + len(raw), what, text)


# orjson refuses values nested beyond 1024 levels; the stdlib parser raises RecursionError
# about as deep. Neither is OTLP (nesting beyond 64 AnyValue levels is quarantined anyway,
# TRACE-FORMAT §5.2), so such a record is quarantined whole with its raw text.
_DEPTH_ERROR = "depth limit exceeded"
TOO_DEEP_MESSAGE = "the record nests deeper than a JSON reader follows (about 1,000 levels)"
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


def _concatenated(body: bytes, start: int, nuls: int = 0) -> Iterator[Value | Broken]:
    """Concatenated (pretty-printed) documents, or one document that does not parse (``nuls``:
    NUL bytes after ``body``, counted, not held)."""
    text = body.decode("utf-8", "replace")
    reading = _Reading()
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
        reading.reset()
        try:
            obj, end = reading.decoder.raw_decode(text, pos)
        except RecursionError:  # nesting deeper than the parser's stack: not readable data
            resync = _RESYNC.search(text, pos + 1)
            end = resync.start() + 1 if resync else len(text)
            raw = text[pos:end]
            yield Broken(
                Code.E_RECORD_TOO_DEEP,
                line,
                byte_offset,
                byte_offset + len(raw.encode()) + (0 if resync else nuls),
                TOO_DEEP_MESSAGE,
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
            size = len(raw.encode()) + (0 if resync else nuls)
            yield Broken(code, line, byte_offset, byte_offset + size, message, raw)
        else:
            parsed += 1
            raw = text[pos:end]
            if reading.too_long:
                too_long = NumberTooLongError(raw, reading.too_long)
                size = len(raw.encode())
                yield Broken(
                    Code.E_INVALID_RECORD,
                    line,
                    byte_offset,
                    byte_offset + size,
                    str(too_long),
                    raw,
                    too_long.path,
                )
            else:
                yield _scrubbed(Value(obj, line, byte_offset, bool(reading.constants)), raw)
        line += text.count("\n", pos, end)
        byte_offset += len(text[pos:end].encode())
        pos = end
