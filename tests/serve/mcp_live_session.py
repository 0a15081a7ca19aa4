"""Run as a script: one MCP Python SDK session (fixtures/producers/mcp-python-sdk/make.py's
in-process server and calls, wrapped in an application span) whose built-in OpenTelemetry
spans the SDK's OTLP/HTTP exporter sends to the endpoint given as the first argument.

A tracer provider is set once per process (the MCP SDK uses the global one), hence a script.
Prints one line per export: SUCCESS or FAILURE.

    python mcp_live_session.py http://127.0.0.1:PORT/v1/traces
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Sequence
from pathlib import Path

from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExportResult

MAKE = Path(__file__).resolve().parents[2] / "fixtures" / "producers" / "mcp-python-sdk"
sys.path.insert(0, str(MAKE))
from make import wrapped_session  # noqa: E402 (the fixture generator's session)


class Exporter(OTLPSpanExporter):
    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        result = super().export(spans)
        print(f"export {len(spans)} spans: {result.name}", flush=True)
        return result


def main(endpoint: str) -> None:
    provider = TracerProvider(resource=Resource.create({"service.name": "mcp-python-sdk-demo"}))
    provider.add_span_processor(BatchSpanProcessor(Exporter(endpoint=endpoint)))
    trace.set_tracer_provider(provider)
    asyncio.run(wrapped_session("legacy"))
    provider.shutdown()


if __name__ == "__main__":
    main(sys.argv[1])
