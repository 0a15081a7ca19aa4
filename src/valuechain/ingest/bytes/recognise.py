"""Names what a non-OTLP input looks like, so a rejection tells the user what they have.

TRACE-FORMAT §5.2: Phoenix span JSON, an OpenTelemetry console-exporter dump, Langfuse trace
JSON, Jaeger UI JSON, and OTLP logs/metrics only are recognised by their top-level shape.
"""

from __future__ import annotations

from typing import Any

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
        keys = ", ".join(sorted(obj)[:6]) or "none"
        return f"a JSON object without resourceSpans (top-level keys: {keys})"
    return f"a JSON {type(obj).__name__}, not an object"


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
