"""The importer's batches (in process, no server): every OTLP body serve answered 200 is in
the store after a cycle, whatever its neighbours in the batch — a body the batch would not
read as ``receive_traces`` read it is refused 400 rather than acknowledged and lost."""

from __future__ import annotations

import gzip
from pathlib import Path

import orjson
import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.trace.v1.trace_pb2 import Span

from valuechain.pipeline.imports import ImportOptions
from valuechain.serve.importer import Importer
from valuechain.serve.mcpjam import SdkRuns
from valuechain.serve.otlp import JSON, PROTOBUF, Accepted, Reply, receive_traces
from valuechain.serve.spool import Spool, spool_folder
from valuechain.store import Database


def proto(n: int) -> bytes:
    """The same request as protobuf."""
    return ExportTraceServiceRequest(
        resource_spans=[
            {
                "scope_spans": [
                    {
                        "spans": [
                            Span(
                                trace_id=n.to_bytes(16, "big"),
                                span_id=n.to_bytes(8, "big"),
                                name=f"span-{n}",
                                start_time_unix_nano=1_700_000_000_000_000_000 + n,
                                end_time_unix_nano=1_700_000_000_000_000_500 + n,
                            )
                        ]
                    }
                ]
            }
        ]
    ).SerializeToString()


def body(n: int) -> bytes:
    """An OTLP/JSON request of one span in trace ``n``."""
    span = {
        "traceId": f"{n:032x}",
        "spanId": f"{n:016x}",
        "name": f"span-{n}",
        "startTimeUnixNano": str(1_700_000_000_000_000_000 + n),
        "endTimeUnixNano": str(1_700_000_000_000_000_500 + n),
    }
    return orjson.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]})


ODD = {  # bodies receive_traces accepts (200, nothing rejected) that a batch holds mid-file
    "utf8-bom": b"\xef\xbb\xbf" + body(2),
    "line-breaks": orjson.dumps(orjson.loads(body(2)), option=orjson.OPT_INDENT_2),
    "crlf": orjson.dumps(orjson.loads(body(2)), option=orjson.OPT_INDENT_2).replace(b"\n", b"\r\n"),
}


def cycle(tmp_path: Path, bodies: list[bytes], media: str) -> list[str]:
    """Receive ``bodies``, spool those answered 200, run one import cycle: the trace ids
    in the store, after checking the batch was imported whole."""
    store = tmp_path / "s.duckdb"
    spool = Spool(spool_folder(store))
    for data in bodies:
        accepted = receive_traces(data, media, None, 1 << 20)
        assert isinstance(accepted, Accepted)
        assert accepted.reply.body in (b"", b"{}")  # nothing rejected
        spool.put(accepted.body, accepted.kind)
    importer = Importer(
        store, spool, SdkRuns(spool), ImportOptions(), open_store=lambda: Database(store)
    )
    done = importer.cycle()
    assert [s.outcome for s in done.sources] == ["imported"]
    with Database(store) as db:
        sql = "SELECT DISTINCT lower(hex(trace_id)) FROM core.spans ORDER BY 1"
        return [t for (t,) in db.con.execute(sql).fetchall()]


@pytest.mark.parametrize("odd", list(ODD.values()), ids=list(ODD))
def test_every_accepted_json_body_of_a_batch_is_imported(tmp_path: Path, odd: bytes) -> None:
    assert cycle(tmp_path, [body(1), odd, body(3)], JSON) == [f"{n:032x}" for n in (1, 2, 3)]


def test_an_accepted_protobuf_body_of_a_batch_is_imported(tmp_path: Path) -> None:
    assert cycle(tmp_path, [proto(1), proto(2), proto(3)], PROTOBUF) == [
        f"{n:032x}" for n in (1, 2, 3)
    ]


NOT_ONE_REQUEST = {  # read as files by the import, never one ExportTraceServiceRequest
    "length-prefixed": len(proto(2)).to_bytes(4, "big") + proto(2),
    "gzip-without-content-encoding": gzip.compress(proto(2)),
}


@pytest.mark.parametrize("odd", list(NOT_ONE_REQUEST.values()), ids=list(NOT_ONE_REQUEST))
def test_a_body_a_batch_would_misread_is_refused(odd: bytes) -> None:
    answer = receive_traces(odd, PROTOBUF, None, 1 << 20)
    assert isinstance(answer, Reply) and answer.status == 400
