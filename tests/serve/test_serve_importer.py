"""The importer's batches (in process, no server): every OTLP/JSON body serve answered 200
is in the store after a cycle, whatever its neighbours in the batch — each spooled body as
``receive_traces`` accepted it."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from valuechain.pipeline.imports import ImportOptions
from valuechain.serve.importer import Importer
from valuechain.serve.mcpjam import SdkRuns
from valuechain.serve.otlp import Accepted, receive_traces
from valuechain.serve.spool import Spool, spool_folder
from valuechain.store import Database


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


@pytest.mark.parametrize("odd", list(ODD.values()), ids=list(ODD))
def test_every_accepted_json_body_of_a_batch_is_imported(tmp_path: Path, odd: bytes) -> None:
    store = tmp_path / "s.duckdb"
    spool = Spool(spool_folder(store))
    for data in (body(1), odd, body(3)):
        accepted = receive_traces(data, "application/json", None, 1 << 20)
        assert isinstance(accepted, Accepted) and accepted.reply.body == b"{}"
        spool.put(accepted.body, accepted.kind)
    importer = Importer(
        store, spool, SdkRuns(spool), ImportOptions(), open_store=lambda: Database(store)
    )
    cycle = importer.cycle()
    assert [(s.outcome, s.spans) for s in cycle.sources] == [("imported", 3)]
    with Database(store) as db:
        sql = "SELECT DISTINCT lower(hex(trace_id)) FROM core.spans ORDER BY 1"
        traces = db.con.execute(sql).fetchall()
    assert [t for (t,) in traces] == [f"{n:032x}" for n in (1, 2, 3)]
