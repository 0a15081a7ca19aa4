"""``serve`` over its life: other commands read the store while it runs (between import
cycles), and a SIGKILL loses no request it answered 200 — the next start imports the spool,
each body once."""

from __future__ import annotations

import signal
from pathlib import Path

import orjson
import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.trace.v1.trace_pb2 import Span
from serve_harness import (
    MCPJAM,
    Start,
    cli,
    drained,
    imported_runs,
    sdk_runs,
    served_requests,
    span_ids,
)

PROTOBUF = {"Content-Type": "application/x-protobuf"}
JSON = {"Content-Type": "application/json"}


def traces(n: int, spans: int = 3) -> bytes:
    """Request ``n``: one trace (id n) of ``spans`` spans."""
    message = ExportTraceServiceRequest()
    out = message.resource_spans.add().scope_spans.add().spans
    for s in range(1, spans + 1):
        out.append(
            Span(
                trace_id=n.to_bytes(16, "big"),
                span_id=s.to_bytes(8, "big"),
                name=f"request-{n} span-{s}",
                start_time_unix_nano=1_700_000_000_000_000_000 + s,
                end_time_unix_nano=1_700_000_000_000_001_000 + s,
            )
        )
    return message.SerializeToString()


def traces_json(n: int) -> bytes:
    spans = [
        {
            "traceId": f"{n:032x}",
            "spanId": f"{s:016x}",
            "name": f"request-{n} span-{s}",
            "startTimeUnixNano": str(1_700_000_000_000_000_000 + s),
            "endTimeUnixNano": str(1_700_000_000_000_001_000 + s),
        }
        for s in (1, 2)
    ]
    return orjson.dumps({"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]})


@pytest.mark.slow
def test_commands_read_the_store_while_serve_runs(serve: Start, store: Path) -> None:
    served = serve(store)
    assert served.post("/v1/traces", traces(1), **PROTOBUF).status_code == 200
    drained(served, 1)  # imported: the importer waits for the next request, the store free

    runs = cli(store, "--wait", "10", "runs")
    assert runs.returncode == 0, runs.stdout + runs.stderr
    count = cli(store, "--wait", "10", "sql", "select count(*) AS n from spans", "--format", "csv")
    assert count.returncode == 0, count.stdout + count.stderr
    assert count.stdout.split() == ["n", "3"]

    assert served.post("/v1/traces", traces(2), **PROTOBUF).status_code == 200  # still serving
    assert served.stop() == 0
    assert len(span_ids(store)) == 6


@pytest.mark.slow
def test_sigkill_loses_no_answered_request(serve: Start, store: Path, tmp_path: Path) -> None:
    reporter = sorted((MCPJAM / "1.14.0" / "captured" / "reporter").glob("0*.json"))
    start_body, *batches, finalize = reporter

    served = serve(store, interval=30)
    assert served.post("/v1/traces", traces(1), **PROTOBUF).status_code == 200
    drained(served, 1)  # the first cycle is over: the next one is 30 s away
    bodies = [(traces(n), PROTOBUF) for n in range(2, 6)] + [(traces_json(6), JSON)]
    for body, headers in bodies:
        assert served.post("/v1/traces", body, **headers).status_code == 200
    # a streaming SDK run, open when serve dies: started, its iterations sent
    run_id = served.post("/sdk/v1/evals/runs/start", start_body.read_bytes()).json()["runId"]
    for batch in batches:
        body = batch.read_bytes().replace(b"run_fixture_1", run_id.encode())
        assert served.post("/sdk/v1/evals/runs/iterations", body).status_code == 200
    assert served.stop(signal.SIGKILL) == -signal.SIGKILL

    again = serve(store)
    assert "imported 5 requests left in the spool by an earlier serve" in again.output
    body = finalize.read_bytes().replace(b"run_fixture_1", run_id.encode())
    assert again.post("/sdk/v1/evals/runs/finalize", body).status_code == 200
    assert again.stop() == 0

    expected = sorted(
        (f"{n:032x}", f"{s:016x}") for n in range(1, 7) for s in range(1, 4 if n < 6 else 3)
    )
    ours = {f"{n:032x}" for n in range(1, 7)}  # (the SDK run's trials are spans of their own)
    assert [s for s in span_ids(store) if s[0] in ours] == expected  # each answered span, once
    # one ledger row per OTLP body; the SDK run's bodies: start, iterations, finalize
    assert served_requests(store) == 6 + len(reporter)
    sdk = [run for run in sdk_runs(store) if run[0]["case_title"] is not None]  # not the traces
    assert sdk == imported_runs(tmp_path, reporter[0].parent)
