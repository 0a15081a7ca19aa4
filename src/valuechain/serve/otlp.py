"""``POST /v1/traces`` as the OTLP/HTTP specification asks (pure: bytes and headers in, a
reply out; the app spools what it accepts).

- ``application/x-protobuf`` and ``application/json`` (parameters such as ``charset``
  ignored), anything else 415; ``Content-Encoding: gzip`` (or none) inflated up to the
  decompression cap (413 past it, 400 for a broken stream), any other encoding 415.
- An empty request (no bytes in protobuf, ``{}`` in JSON) is valid OTLP: 200, nothing kept.
- The body is decoded as an import would decode it (``decode_export``): a body the import
  would reject is answered 400 with a ``google.rpc.Status`` saying why, and never spooled; a
  body with quarantined spans is accepted with ``partial_success.rejected_spans`` and the
  first issue's message.
- The reply is encoded as the request was (protobuf or JSON).
"""

from __future__ import annotations

from dataclasses import dataclass

import orjson
from google.rpc import code_pb2, status_pb2
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceResponse

from valuechain.contract.issues import Severity
from valuechain.ingest.bytes.compression import GZIP_MAGIC, Unpacker
from valuechain.ingest.decode import DecodeOptions, decode_export
from valuechain.serve.spool import OTLP_JSON, OTLP_PROTO, batched

PROTOBUF = "application/x-protobuf"
JSON = "application/json"


@dataclass(frozen=True, slots=True)
class Reply:
    """An HTTP answer: status, body, content type."""

    status: int
    body: bytes
    media_type: str
    headers: dict[str, str] | None = None


@dataclass(frozen=True, slots=True)
class Accepted:
    """A body to spool (decompressed), of ``kind``, and the reply once it is durable."""

    body: bytes
    kind: str
    reply: Reply
    spans: int


def media_type(header: str | None) -> str:
    return (header or "").split(";", 1)[0].strip().lower()


def receive_traces(
    body: bytes, content_type: str | None, encoding: str | None, max_decompressed: int
) -> Accepted | Reply:
    """What to do with one ``POST /v1/traces``."""
    media = media_type(content_type)
    if media not in (PROTOBUF, JSON):
        return status_reply(
            415,
            JSON,
            f"content type {media or '(none)'} is not OTLP/HTTP: send {PROTOBUF} or {JSON}",
        )
    coding = (encoding or "identity").strip().lower()
    if coding not in ("gzip", "identity"):
        return status_reply(415, media, f"content encoding {coding} is not supported: gzip or none")
    if coding == "gzip" and not body.startswith(GZIP_MAGIC):
        return status_reply(400, media, "Content-Encoding says gzip but the body is not gzip")
    if coding == "gzip":
        unpacker = Unpacker([body], max_decompressed)
        data = b"".join(unpacker)
        if unpacker.problem is not None:
            code = 413 if unpacker.problem.value == "E_TOO_LARGE" else 400
            return status_reply(code, media, f"gzip body: {unpacker.message}")
        body = data
    if _empty_request(body, media):  # valid, and nothing to keep: an import would call it empty
        return export_reply(media, 0, "")
    kind = OTLP_PROTO if media == PROTOBUF else OTLP_JSON
    # decoded as the importer's batch will read it (one record of it), never as a file: a
    # gzip or framed stream sent as the body itself is no ExportTraceServiceRequest
    decoded = decode_export(batched(body, kind), f"POST /v1/traces ({media})", DecodeOptions())
    if decoded.status == "rejected" or decoded.rejection is not None:
        why = decoded.rejection.render() if decoded.rejection else "not an OTLP trace request"
        return status_reply(400, media, why)
    quarantined = decoded.accounting.spans_quarantined
    message = ""
    if quarantined:
        worst = [i for i in decoded.issues if i.severity is Severity.ERROR] or decoded.issues
        message = f"{quarantined} spans quarantined: {worst[0].code.value}: {worst[0].message}"
    return Accepted(body, kind, export_reply(media, quarantined, message), decoded.span_count)


def _empty_request(body: bytes, media: str) -> bool:
    """An ExportTraceServiceRequest without spans as its encodings write it: no bytes at all
    (protobuf), ``{}`` (JSON: the proto3 mapping omits an empty ``resourceSpans``)."""
    if media == PROTOBUF:
        return not body
    if len(body) > 64:
        return False
    try:
        return bool(orjson.loads(body) == {})
    except orjson.JSONDecodeError:
        return False


def export_reply(media: str, rejected_spans: int, message: str) -> Reply:
    """200 with an ``ExportTraceServiceResponse`` (empty unless spans were rejected)."""
    response = ExportTraceServiceResponse()
    if rejected_spans:
        response.partial_success.rejected_spans = rejected_spans
        response.partial_success.error_message = message
    if media == PROTOBUF:
        return Reply(200, response.SerializeToString(), PROTOBUF)
    partial = (
        {"partialSuccess": {"rejectedSpans": str(rejected_spans), "errorMessage": message}}
        if rejected_spans
        else {}
    )
    return Reply(200, orjson.dumps(partial), JSON)


_CODES = {
    400: code_pb2.INVALID_ARGUMENT,
    401: code_pb2.UNAUTHENTICATED,
    404: code_pb2.NOT_FOUND,
    413: code_pb2.RESOURCE_EXHAUSTED,
    415: code_pb2.INVALID_ARGUMENT,
    429: code_pb2.RESOURCE_EXHAUSTED,
    503: code_pb2.UNAVAILABLE,
}


def status_reply(
    http: int, media: str, message: str, headers: dict[str, str] | None = None
) -> Reply:
    """An error answer with a ``google.rpc.Status`` body (OTLP/HTTP "Failures")."""
    status = status_pb2.Status(code=_CODES.get(http, code_pb2.UNKNOWN), message=message)
    if media == PROTOBUF:
        return Reply(http, status.SerializeToString(), PROTOBUF, headers)
    return Reply(http, orjson.dumps({"code": status.code, "message": message}), JSON, headers)
