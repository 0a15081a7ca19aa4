"""Where a JSON path points inside a document's text: its byte offset, line and column.

Issues carry the JSON path of the offending value (``resourceSpans[0].scopeSpans[1].spans[7]
.traceId``); in a pretty-printed document the record's own position (line 1, byte 0) says
nothing, so ``Locator`` finds the value's position by walking the text along the path
(TRACE-FORMAT §5.1: line and byte offset of every issue). It scans without parsing — strings
skipped whole, containers by bracket depth — and remembers every member and element it passes,
so locating the issues of one document, in document order, reads the text about once.
Keys are compared as the decoder reads them (camelCase or snake_case); a path the text does
not hold (an unwrapped envelope, a rewritten key) is not located.
"""

from __future__ import annotations

import json
import re

_STEP = re.compile(r"([^.\[\]]+)|\[(\d+)\]")
# Unrolled and possessive: one state per escape, not per character (a 100 MiB string value
# cost a backtracking stack of gigabytes with ``(?:[^"\\]|\\.)*``).
_STRING_REST = re.compile(rb'[^"\\]*+(?:\\.[^"\\]*+)*+"', re.DOTALL)
_STRUCTURE = re.compile(rb'["\[\]{}]')
_SCALAR_END = re.compile(rb"[\s,\]}]")
_SPACE = re.compile(rb"\s*")


def _norm(key: str) -> str:
    return key.replace("_", "").lower()


def _child(prefix: str, key: str) -> str:
    return f"{prefix}.{_norm(key)}" if prefix else _norm(key)


class Locator:
    """Positions of JSON paths in the value that starts at ``start`` of ``data``."""

    def __init__(self, data: bytes, start: int) -> None:
        self.data = data
        self.start = start
        self._known: dict[str, int] = {"": start}
        self._resume: dict[str, tuple[int, int]] = {}  # container → (next item, its position)

    def offset(self, path: str) -> int | None:
        """The byte offset of the value at ``path``, or None when the text does not hold it."""
        prefix, pos = "", self.start
        for key, index in _STEP.findall(path):
            here = _child(prefix, key) if key else f"{prefix}[{index}]"
            known = self._known.get(here)
            if known is None:
                if key:
                    known = self._member(prefix, pos, key)
                else:
                    known = self._element(prefix, pos, int(index))
                if known is None:
                    return None
            prefix, pos = here, known
        return pos

    def line_column(self, offset: int) -> tuple[int, int]:
        """The 1-based line and column (in bytes) of ``offset``."""
        line_start = self.data.rfind(b"\n", 0, offset) + 1
        return self.data.count(b"\n", 0, offset) + 1, offset - line_start + 1

    # ------------------------------------------------------------------ scanning
    def _enter(self, prefix: str, pos: int, opener: bytes) -> tuple[int, int] | None:
        """Where to go on scanning a container: (next item, its position), None if ``pos`` does
        not open one."""
        resume = self._resume.get(prefix)
        if resume is not None:
            return resume
        at = _skip_space(self.data, pos)
        return (0, at + 1) if self.data[at : at + 1] == opener else None

    def _member(self, prefix: str, pos: int, key: str) -> int | None:
        data, wanted = self.data, _norm(key)
        entered = self._enter(prefix, pos, b"{")
        if entered is None:
            return None
        i, at = entered
        while True:
            at = _skip_space(data, at)
            if data[at : at + 1] != b'"':
                return None
            end = _string_end(data, at)
            name = data[at + 1 : end - 1].decode("utf-8", "replace")
            at = _skip_space(data, end)
            if data[at : at + 1] != b":":
                return None
            value = _skip_space(data, at + 1)
            self._known.setdefault(_child(prefix, name), value)
            at = _skip_space(data, _value_end(data, value))
            more = data[at : at + 1] == b","
            self._resume[prefix] = (i + 1, at + 1 if more else at)  # at "}": nothing more
            i += 1
            if _norm(name) == wanted:
                return value
            if not more:
                return None
            at += 1

    def _element(self, prefix: str, pos: int, index: int) -> int | None:
        data = self.data
        entered = self._enter(prefix, pos, b"[")
        if entered is None:
            return None
        i, at = entered
        while i <= index:
            value = _skip_space(data, at)
            if data[value : value + 1] in (b"]", b""):
                return None
            self._known.setdefault(f"{prefix}[{i}]", value)
            at = _skip_space(data, _value_end(data, value))
            more = data[at : at + 1] == b","
            self._resume[prefix] = (i + 1, at + 1 if more else at)  # at "]": nothing more
            if i == index:
                return value
            if not more:
                return None
            at += 1
            i += 1
        return None


def _skip_space(data: bytes, at: int) -> int:
    match = _SPACE.match(data, at)
    return match.end() if match else at


def _string_end(data: bytes, at: int) -> int:
    """The offset just past the string that opens at ``at``."""
    match = _STRING_REST.match(data, at + 1)
    return match.end() if match else len(data)


def _value_end(data: bytes, at: int) -> int:
    """The offset just past the value that starts at ``at`` (iterative: depth is counted)."""
    head = data[at : at + 1]
    if head == b'"':
        return _string_end(data, at)
    if head not in (b"{", b"["):
        match = _SCALAR_END.search(data, at)
        return match.start() if match else len(data)
    depth, pos = 0, at
    while True:
        match = _STRUCTURE.search(data, pos)
        if match is None:
            return len(data)
        char, pos = match.group(), match.end()
        if char == b'"':
            pos = _string_end(data, match.start())
        elif char in (b"{", b"["):
            depth += 1
        else:
            depth -= 1
            if depth == 0:
                return pos


# The tokens a path is made of: strings (skipped whole), brackets, commas, colons, and numbers
# (an integer is a number without a fraction or exponent).
_PATH_TOKEN = re.compile(r'"[^"\\]*+(?:\\.[^"\\]*+)*+"|[{}\[\],:]|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?')


def long_integer_path(text: str, digits: int) -> str | None:
    """The JSON path of the first integer in the value ``text`` longer than ``digits`` digits
    (``resourceSpans[0].scopeSpans[0].spans[3].startTimeUnixNano``), or None without one.

    The inverse of ``Locator``: a scan from the start, keeping the key or index of every open
    container; only a record found unreadable for such an integer pays for it.
    """
    frames: list[list[str | int]] = []  # per open container: its kind, and its key or index
    last_string = ""
    for match in _PATH_TOKEN.finditer(text):
        token = match.group()
        head = token[0]
        if head == '"':
            last_string = token
        elif head == ":":
            frames[-1][1] = json.loads(last_string) if frames else ""
        elif head in "{[":
            frames.append([head, 0 if head == "[" else ""])
        elif head in "}]":
            if frames:
                frames.pop()
        elif head == ",":
            if frames and frames[-1][0] == "[":
                frames[-1][1] = int(frames[-1][1]) + 1
        elif len(token) - (head == "-") > digits and token.lstrip("-").isdigit():
            return _render(frames) or None
    return None


def _render(frames: list[list[str | int]]) -> str:
    path = ""
    for kind, step in frames:
        if kind == "[":
            path += f"[{step}]"
        else:
            path += f".{step}" if path else str(step)
    return path
