"""The OpenTelemetry Python SDK's own OTLP/HTTP exporter against ``valuechain serve``: every
span it exports is in the store once serve stops, and each export succeeded at the first try.

The exporter (opentelemetry-exporter-otlp-proto-http 1.45) speaks protobuf only — it has no
JSON encoding option — so the JSON case posts the same ``ExportTraceServiceRequest`` the
exporter would send, written by ``google.protobuf.json_format``, with ``requests``.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
import requests
from google.protobuf import json_format
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.exporter.otlp.proto.http import Compression
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import (
    BatchSpanProcessor,
    SimpleSpanProcessor,
    SpanExporter,
    SpanExportResult,
)
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from serve_harness import Start, span_ids


class CountingSession(requests.Session):
    """The exporter's HTTP session, counting the requests it sends (a retry would add one)."""

    def __init__(self) -> None:
        super().__init__()
        self.sent: list[int] = []  # the status of each answer

    def request(self, *args: Any, **kwargs: Any) -> requests.Response:  # type: ignore[override]
        response = super().request(*args, **kwargs)
        self.sent.append(response.status_code)
        return response


class Recording(SpanExporter):
    """The exporter, keeping the result of each ``export`` call."""

    def __init__(self, inner: OTLPSpanExporter) -> None:
        self.inner = inner
        self.results: list[SpanExportResult] = []

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        result = self.inner.export(spans)
        self.results.append(result)
        return result

    def shutdown(self) -> None:
        self.inner.shutdown()


def _make_spans(provider: TracerProvider, traces: int = 3, children: int = 4) -> None:
    tracer = provider.get_tracer("valuechain-serve-test")
    for t in range(traces):
        with tracer.start_as_current_span(f"root-{t}", attributes={"case": t}):
            for c in range(children):
                with tracer.start_as_current_span(f"child-{t}-{c}", attributes={"n": c}):
                    pass


def _ids(spans: Sequence[ReadableSpan]) -> list[tuple[str, str]]:
    out = []
    for s in spans:
        ctx = s.get_span_context()
        assert ctx is not None
        out.append((f"{ctx.trace_id:032x}", f"{ctx.span_id:016x}"))
    return sorted(out)


@pytest.mark.slow
@pytest.mark.parametrize("processor", ["batch", "simple"])
def test_protobuf_gzip_exports_land_in_the_store(serve: Start, store: Path, processor: str) -> None:
    served = serve(store)
    session = CountingSession()
    exporter = Recording(
        OTLPSpanExporter(
            endpoint=f"{served.url}/v1/traces", compression=Compression.Gzip, session=session
        )
    )
    kept = InMemorySpanExporter()  # what the SDK ended, to compare ids with
    provider = TracerProvider(resource=Resource.create({"service.name": "otel-exporter-test"}))
    if processor == "batch":
        provider.add_span_processor(BatchSpanProcessor(exporter, max_export_batch_size=5))
    else:
        provider.add_span_processor(SimpleSpanProcessor(exporter))
    provider.add_span_processor(SimpleSpanProcessor(kept))
    _make_spans(provider)
    assert provider.force_flush()
    provider.shutdown()

    assert exporter.results and set(exporter.results) == {SpanExportResult.SUCCESS}
    assert session.sent == [200] * len(exporter.results)  # one request per export: no retry
    assert served.stop() == 0
    expected = _ids(kept.get_finished_spans())
    assert len(expected) == 15
    assert span_ids(store) == expected


def _otlp_json(spans: Sequence[ReadableSpan]) -> bytes:
    """The exporter's request as OTLP/JSON. ``json_format`` writes bytes fields in base64;
    OTLP/JSON wants trace and span ids in hex, so those are rewritten, and enums as numbers."""
    message = json_format.MessageToDict(encode_spans(spans), use_integers_for_enums=True)

    def hexed(node: Any) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key in ("traceId", "spanId", "parentSpanId") and isinstance(value, str):
                    node[key] = _b64_to_hex(value)
                else:
                    hexed(value)
        elif isinstance(node, list):
            for item in node:
                hexed(item)

    hexed(message)
    return json.dumps(message, indent=1).encode()  # line breaks too: the spool keeps them


def _b64_to_hex(value: str) -> str:
    return base64.b64decode(value).hex()


def test_json_export_request_lands_in_the_store(serve: Start, store: Path) -> None:
    served = serve(store)
    kept = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": "otel-json-test"}))
    provider.add_span_processor(SimpleSpanProcessor(kept))
    _make_spans(provider, traces=2, children=3)
    spans = kept.get_finished_spans()

    answer = served.post("/v1/traces", _otlp_json(spans), **{"Content-Type": "application/json"})
    assert answer.status_code == 200, answer.text
    assert answer.headers["content-type"].startswith("application/json")
    assert answer.json() == {}  # an empty ExportTraceServiceResponse: nothing rejected
    assert served.stop() == 0
    assert span_ids(store) == _ids(spans)
