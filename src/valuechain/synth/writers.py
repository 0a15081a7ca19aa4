"""The export's files: OTLP/JSON, NDJSON, protobuf records; gzip or zstd (§1.8, §5.3)."""

from __future__ import annotations

import io
import struct
from dataclasses import dataclass
from gzip import GzipFile
from pathlib import Path
from typing import Any, BinaryIO

import orjson

from valuechain.synth.config import SynthConfig
from valuechain.synth.runs import otlp_request, otlp_resource, traces
from valuechain.synth.suite import build_suite
from valuechain.synth.vocabulary import SCOPE

_BUFFER_BYTES = 1 << 20


@dataclass(frozen=True, slots=True)
class SynthSummary:
    """What `write_export` wrote; `bytes_written` is the file size on disk."""

    path: Path
    bytes_written: int
    runs: int
    trials: int
    spans: int
    traces: int


def _stream(out: BinaryIO, config: SynthConfig, ndjson: bool) -> tuple[int, int]:
    """Write the export to `out`, holding one trace in memory at a time: (trials, spans)."""
    emit, suite, trials, spans, current = out.write, build_suite(config), 0, 0, -1
    if not ndjson:
        emit(b'{"resourceSpans":[')
    for run, trace in traces(config, suite):
        trials, spans = trials + 1, spans + len(trace)
        if ndjson:
            emit(orjson.dumps(otlp_request(suite, trace)) + b"\n")
            continue
        if run != current:  # §3.3: one ResourceSpans per exported run, holding all its traces
            emit(
                (b"]}]}," if current >= 0 else b"")
                + b'{"resource":'
                + orjson.dumps(otlp_resource(suite))
                + b',"scopeSpans":[{"scope":'
                + orjson.dumps(SCOPE)
                + b',"spans":['
            )
            current = run
        else:
            emit(b",")
        emit(b",".join(orjson.dumps(span) for span in trace))
    if not ndjson:
        emit(b"]}]}]}")
    return trials, spans


def _proto(request: dict[str, Any]) -> bytes:
    """The request as a serialized ExportTraceServiceRequest (the collector's ``format: proto``).

    Built field by field from the OTLP/JSON dict (``json_format.ParseDict`` would do the same
    at a tenth of the speed); only the shapes this generator writes occur.
    """
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (  # noqa: PLC0415
        ExportTraceServiceRequest,
    )

    out = ExportTraceServiceRequest()
    for rs in request["resourceSpans"]:
        prs = out.resource_spans.add()
        _proto_attributes(prs.resource.attributes, rs["resource"]["attributes"])
        for ss in rs["scopeSpans"]:
            pss = prs.scope_spans.add()
            pss.scope.name = ss["scope"].get("name", "")
            pss.scope.version = ss["scope"].get("version", "")
            for span in ss["spans"]:
                p = pss.spans.add()
                p.trace_id = bytes.fromhex(span["traceId"])
                p.span_id = bytes.fromhex(span["spanId"])
                if "parentSpanId" in span:
                    p.parent_span_id = bytes.fromhex(span["parentSpanId"])
                p.name = span["name"]
                p.kind = span["kind"]
                p.start_time_unix_nano = int(span["startTimeUnixNano"])
                p.end_time_unix_nano = int(span["endTimeUnixNano"])
                _proto_attributes(p.attributes, span["attributes"])
                if "status" in span:
                    p.status.code = span["status"]["code"]
                    p.status.message = span["status"].get("message", "")
    return bytes(out.SerializeToString())


def _proto_attributes(target: Any, attributes: list[dict[str, Any]]) -> None:
    for kv in attributes:
        item = target.add()
        item.key = kv["key"]
        _proto_value(item.value, kv["value"])


def _proto_value(target: Any, value: dict[str, Any]) -> None:
    ((variant, raw),) = value.items()
    if variant == "stringValue":
        target.string_value = raw
    elif variant == "intValue":
        target.int_value = int(raw)
    elif variant == "boolValue":
        target.bool_value = raw
    elif variant == "doubleValue":
        target.double_value = raw
    elif variant == "arrayValue":
        target.array_value.SetInParent()
        for inner in raw.get("values", []):
            _proto_value(target.array_value.values.add(), inner)
    else:
        raise ValueError(f"synth writes no {variant} values")


def _stream_records(
    out: BinaryIO, config: SynthConfig, proto: bool, legacy: bool
) -> tuple[int, int]:
    """Length-prefixed records, one request per trace: 4-byte big-endian length, then the
    protobuf (or JSON) request, zstd-compressed on its own in the collector's legacy mode."""
    from valuechain.ingest.bytes.compression import zstd_compress  # noqa: PLC0415

    suite, trials, spans = build_suite(config), 0, 0
    for _, trace in traces(config, suite):
        trials, spans = trials + 1, spans + len(trace)
        request = otlp_request(suite, trace)
        payload = _proto(request) if proto else orjson.dumps(request)
        if legacy:
            payload = zstd_compress(payload)
        out.write(struct.pack(">I", len(payload)) + payload)
    return trials, spans


def write_export(
    path: str | Path,
    config: SynthConfig,
    *,
    ndjson: bool = False,
    gzip: bool = False,
    proto: bool = False,
    zstd: str | None = None,
) -> SynthSummary:
    """Stream the export to `path` in any framing of TRACE-FORMAT §1.8/§5.3, in bounded memory.

    - default: one OTLP/JSON document; ``ndjson``: one request per line (one per trace);
    - ``proto``: the collector's ``format: proto`` — length-prefixed binary protobuf records,
      one ExportTraceServiceRequest per trace (a single bare request would have to be built
      whole in memory, which a multi-gigabyte export cannot be);
    - ``gzip``: gzip the output; ``zstd="native"``: one standard zstd stream around it (the
      collector's ``nativeCompression``); ``zstd="legacy"``: the collector's default zstd mode,
      length-prefixed records each compressed on its own (JSON records unless ``proto``).
    """
    path = Path(path)
    if zstd not in (None, "native", "legacy"):
        raise ValueError(f"zstd must be 'native' or 'legacy', not {zstd!r}")
    if gzip and zstd:
        raise ValueError("choose one compression: gzip or zstd")
    records = proto or zstd == "legacy"
    with path.open("wb", buffering=_BUFFER_BYTES) as raw:
        if gzip or zstd == "native":
            from valuechain.ingest.bytes.compression import zstd_open_write  # noqa: PLC0415

            # gzip: mtime=0 and an empty name in the header: same config, same bytes
            wrapper = (
                GzipFile(filename="", mode="wb", compresslevel=6, fileobj=raw, mtime=0)
                if gzip
                else zstd_open_write(raw)
            )
            with wrapper as packed, io.BufferedWriter(packed, _BUFFER_BYTES) as out:
                trials, spans = (
                    _stream_records(out, config, proto, legacy=False)
                    if records
                    else _stream(out, config, ndjson)
                )
        elif records:
            trials, spans = _stream_records(raw, config, proto, legacy=zstd == "legacy")
        else:
            trials, spans = _stream(raw, config, ndjson)
    return SynthSummary(path, path.stat().st_size, config.runs, trials, spans, trials)
