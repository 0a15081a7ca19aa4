"""Names what a non-OTLP input looks like, so a rejection tells the user what they have.

TRACE-FORMAT §5.2: Phoenix span JSON, an OpenTelemetry console-exporter dump, Langfuse trace
JSON, Jaeger UI JSON, and OTLP logs/metrics only are recognised by their top-level shape.
JSON in UTF-16 or UTF-32 (Windows PowerShell's ``>`` writes UTF-16) is named by its encoding,
with the conversion that makes it UTF-8 (§1.8 step 3: the input is UTF-8, a BOM aside).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

# Byte-order marks, the longer first: UTF-32LE's starts as UTF-16LE's does.
_BOMS = (
    (b"\x00\x00\xfe\xff", "UTF-32", "big"),
    (b"\xff\xfe\x00\x00", "UTF-32", "little"),
    (b"\xfe\xff", "UTF-16", "big"),
    (b"\xff\xfe", "UTF-16", "little"),
)
_SNIFFED_BYTES = 64  # enough ASCII characters (16 to 32) to tell the encoding by its NULs


@dataclass(frozen=True, slots=True)
class WideText:
    """Text in UTF-16 or UTF-32: its encoding, byte order, and whether a BOM says so."""

    encoding: str  # UTF-16 | UTF-32
    endian: str  # little | big
    bom: bool

    def problem(self) -> str:
        marked = "with a byte-order mark" if self.bom else "without a byte-order mark"
        return f"the input is {self.encoding} ({self.endian}-endian, {marked}); OTLP/JSON is UTF-8"

    def hint(self) -> str:
        # with a BOM iconv finds the byte order itself (and drops the mark); without one it
        # must be told, or it takes big-endian
        suffix = "" if self.bom else {"little": "LE", "big": "BE"}[self.endian]
        text = f"convert it, e.g. iconv -f {self.encoding}{suffix} -t UTF-8 FILE > FILE.utf8.json"
        if self.encoding == "UTF-16":  # how most such files come about
            text += " (Windows PowerShell's > writes UTF-16; Out-File -Encoding utf8 does not)"
        return text


def wide_text(data: bytes) -> WideText | None:
    """The UTF-16 or UTF-32 encoding ``data`` starts in: by its byte-order mark, or by the
    NULs beside each character of an ASCII start (``{\\0"\\0`` …); None for anything else.
    UTF-8 JSON never holds a raw NUL, so no OTLP input is taken for one."""
    for bom, encoding, endian in _BOMS:
        if data.startswith(bom):
            return WideText(encoding, endian, bom=True)
    head = data[:_SNIFFED_BYTES]
    for width, encoding in ((4, "UTF-32"), (2, "UTF-16")):
        for endian in ("little", "big"):
            if _ascii_units(head, width, endian):
                return WideText(encoding, endian, bom=False)
    return None


def _ascii_units(head: bytes, width: int, endian: str) -> bool:
    """Whether ``head`` is at least two ``width``-byte units, each an ASCII character."""
    units = [head[i : i + width] for i in range(0, len(head) - width + 1, width)]
    at = 0 if endian == "little" else width - 1
    return len(units) >= 2 and all(
        0 < unit[at] < 0x80 and unit.count(0) == width - 1 for unit in units
    )


OPENINFERENCE_HINT = (
    "for OpenInference spans, export OTLP with the OpenInference "
    "instrumentation and an OTLP exporter, then import that"
)


def describe_non_otlp(obj: Any) -> str:
    """A short description of a parsed JSON value that is not an OTLP trace request."""
    if isinstance(obj, list):
        first = obj[0] if obj else None
        if (
            isinstance(first, dict)
            and isinstance(first.get("context"), dict)
            and ("span_kind" in first or "parent_id" in first)
        ):
            return (
                "Phoenix/OpenInference span JSON (a list of spans with context.trace_id); "
                + OPENINFERENCE_HINT
            )
        return f"a JSON array of {len(obj)} items that are not OTLP requests"
    if isinstance(obj, dict):
        context = obj.get("context")
        if isinstance(context, dict) and "trace_id" in context:
            return (
                "an OpenTelemetry console-exporter span (context.trace_id as 0x-hex); "
                "use an OTLP exporter instead of ConsoleSpanExporter"
            )
        data = obj.get("data")
        if isinstance(data, list) and data and isinstance(data[0], dict) and ("traceID" in data[0]):
            return "Jaeger UI JSON (data[].spans[].traceID); export OTLP from Jaeger's api_v3"
        if "observations" in obj or obj.get("object") == "trace":
            return "Langfuse trace JSON (observations); export OTLP instead"
        nested = nested_otlp(obj)
        if nested is not None:
            return nested
        keys = ", ".join(sorted(obj)[:6]) or "none"
        return f"a JSON object without resourceSpans (top-level keys: {keys})"
    return f"a JSON {type(obj).__name__}, not an object"


_OTLP_KEYS = ("resourceSpans", "resource_spans")
_NESTED_NODES = 10_000  # how many JSON values the search for a nested request looks at


def nested_otlp(obj: Any) -> str | None:
    """Where an OTLP trace request sits inside another JSON document (issue 39.3): an object
    with ``resourceSpans``, or a string holding one as JSON text, below the top level — e.g. a
    tracing backend's ``{"trace_requests": [{"pbreq": {...}}]}``. None when there is none.
    Breadth first, so the shallowest wins; at most ``_NESTED_NODES`` values are looked at."""
    queue: list[tuple[str, Any]] = [("", obj)]
    for _ in range(_NESTED_NODES):
        if not queue:
            return None
        path, node = queue.pop(0)
        if isinstance(node, str) and path and '"resource' in node and node.lstrip()[:1] == "{":
            try:
                node = json.loads(node)
            except ValueError:
                continue
            if isinstance(node, dict) and any(k in node for k in _OTLP_KEYS):
                return _nested_message(path, as_text=True)
            continue
        if isinstance(node, dict):
            if path and any(k in node for k in _OTLP_KEYS):
                return _nested_message(path, as_text=False)
            queue.extend((f"{path}.{k}" if path else str(k), v) for k, v in node.items())
        elif isinstance(node, list):
            queue.extend((f"{path}[{i}]", v) for i, v in enumerate(node))
    return None


def _nested_message(path: str, *, as_text: bool) -> str:
    jq = "." + re.sub(r"\[\d+\]", "[]", path)
    inner = "as a JSON string " if as_text else ""
    unpack = f"jq -c '{jq}{' | fromjson' if as_text else ''}' FILE > requests.jsonl"
    return (
        f"an OTLP trace request nested inside another JSON document, {inner}at {path} "
        f"(not at the top level); extract it and import that, e.g. {unpack}"
    )


def describe_text(data: bytes) -> str:
    """A short description of input that does not start with a JSON object or array."""
    head = data[:4096].decode("utf-8", "replace")
    if '"context"' in head and '"trace_id": "0x' in head:
        return (
            "an OpenTelemetry console-exporter dump (not JSON); "
            "use an OTLP exporter instead of ConsoleSpanExporter"
        )
    if (not head.isprintable() and "\x00" in head) or not mostly_text(data[:4096]):
        return (
            "binary data that is neither gzip/zstd, length-prefixed OTLP records nor one "
            "protobuf ExportTraceServiceRequest"
        )
    first = head.strip().splitlines()[0][:60] if head.strip() else ""
    return f"not JSON: the input starts with {first!r}"


def mostly_text(chunk: bytes) -> bool:
    """Whether at least 90% of ``chunk`` reads as printable text."""
    text = chunk.decode("utf-8", "replace")
    return sum(ch.isprintable() or ch.isspace() for ch in text) >= 0.9 * max(len(text), 1)
