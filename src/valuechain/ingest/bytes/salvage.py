"""Salvage of a truncated single OTLP/JSON document (TRACE-FORMAT §5.2 ``E_TRUNCATED_JSON``).

Scans the text token by token (strings skipped whole by a regex, so it runs at C speed), notes
where each *complete* element of a ``spans`` array ended and which containers were open there,
and rebuilds a valid document from the prefix: every complete span, nothing half-read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"|[{}\[\]:,]')
_CLOSER = {"{": "}", "[": "]"}


@dataclass(frozen=True, slots=True)
class Salvage:
    complete_spans: int
    text: str | None  # the repaired document, or None when no span was complete


def salvage(text: str) -> Salvage:
    """Count the complete spans before the cut and rebuild the document around them."""
    stack: list[tuple[str, str | None]] = []  # (opener, key that led to it)
    key: str | None = None
    last_string: str | None = None
    spans = 0
    cut: tuple[int, str] | None = None
    for match in _TOKENS.finditer(text):
        token = match.group()
        if token[0] == '"':
            last_string = token
            continue
        if token == ":":
            key = last_string[1:-1] if last_string else None
        elif token in "{[":
            stack.append((token, key if stack and stack[-1][0] == "{" else None))
            key = None
        elif token in "}]" and stack:
            opener, _ = stack.pop()
            if opener == "{" and stack and stack[-1] == ("[", "spans"):
                spans += 1
                closers = "".join(_CLOSER[o] for o, _ in reversed(stack))
                cut = (match.end(), closers)
        last_string = None
    if cut is None:
        return Salvage(0, None)
    end, closers = cut
    return Salvage(spans, text[:end] + closers)
