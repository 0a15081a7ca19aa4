"""The importer's batches (in process, no server): every OTLP body serve answered 200 is in
the store after a cycle, whatever its neighbours in the batch — a body the batch would not
read as ``receive_traces`` read it is refused 400 rather than acknowledged and lost."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest
from serve_harness import otlp_json, otlp_proto, trace_id

from valuechain.pipeline.imports import ImportOptions
from valuechain.serve.importer import Importer
from valuechain.serve.mcpjam import SdkRuns
from valuechain.serve.otlp import JSON, PROTOBUF, Accepted, Reply, receive_traces
from valuechain.serve.spool import Spool, spool_folder
from valuechain.store import Database

ODD = {  # bodies receive_traces accepts (200, nothing rejected) that a batch holds mid-file
    "utf8-bom": b"\xef\xbb\xbf" + otlp_json(trace_id(2)),
    "line-breaks": otlp_json(trace_id(2), indent=True),
    "crlf": otlp_json(trace_id(2), indent=True).replace(b"\n", b"\r\n"),
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
    assert cycle(tmp_path, [otlp_json(trace_id(1)), odd, otlp_json(trace_id(3))], JSON) == [
        trace_id(n) for n in (1, 2, 3)
    ]


def test_an_accepted_protobuf_body_of_a_batch_is_imported(tmp_path: Path) -> None:
    bodies = [otlp_proto(trace_id(n)) for n in (1, 2, 3)]
    assert cycle(tmp_path, bodies, PROTOBUF) == [trace_id(n) for n in (1, 2, 3)]


NOT_ONE_REQUEST = {  # read as files by the import, never one ExportTraceServiceRequest
    "length-prefixed": len(otlp_proto(trace_id(2))).to_bytes(4, "big") + otlp_proto(trace_id(2)),
    "gzip-without-content-encoding": gzip.compress(otlp_proto(trace_id(2))),
}


@pytest.mark.parametrize("odd", list(NOT_ONE_REQUEST.values()), ids=list(NOT_ONE_REQUEST))
def test_a_body_a_batch_would_misread_is_refused(odd: bytes) -> None:
    answer = receive_traces(odd, PROTOBUF, None, 1 << 20)
    assert isinstance(answer, Reply) and answer.status == 400
