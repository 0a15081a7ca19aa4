"""``serve`` over its life: other commands read the store while it runs (between import
cycles), Ctrl-C stops it cleanly, and a SIGKILL loses no request it answered 200 — the next
start imports the spool, each body once."""

from __future__ import annotations

import signal
from pathlib import Path

import pytest
from serve_harness import (
    MCPJAM,
    Start,
    cli,
    drained,
    imported_runs,
    otlp_json,
    otlp_proto,
    sdk_runs,
    served_requests,
    span_ids,
    trace_id,
)

PROTOBUF = {"Content-Type": "application/x-protobuf"}
JSON = {"Content-Type": "application/json"}


def request(n: int) -> bytes:
    """Request ``n``: one trace (id n) of three spans, in protobuf."""
    return otlp_proto(trace_id(n), spans=3)


@pytest.mark.slow
def test_commands_read_the_store_while_serve_runs(serve: Start, store: Path) -> None:
    served = serve(store)
    assert served.post("/v1/traces", request(1), **PROTOBUF).status_code == 200
    drained(served, 1)  # imported: the importer waits for the next request, the store free

    runs = cli(store, "--wait", "10", "runs")
    assert runs.returncode == 0, runs.stdout + runs.stderr
    count = cli(store, "--wait", "10", "sql", "select count(*) AS n from spans", "--format", "csv")
    assert count.returncode == 0, count.stdout + count.stderr
    assert count.stdout.split() == ["n", "3"]

    assert served.post("/v1/traces", request(2), **PROTOBUF).status_code == 200  # still serving
    assert served.stop(signal.SIGINT) == 0  # Ctrl-C: a clean stop, the spool imported
    assert "stopped: 2 requests received" in served.output
    assert len(span_ids(store)) == 6


@pytest.mark.slow
def test_sigkill_loses_no_answered_request(serve: Start, store: Path, tmp_path: Path) -> None:
    reporter = sorted((MCPJAM / "1.14.0" / "captured" / "reporter").glob("0*.json"))
    start_body, *batches, finalize = reporter

    served = serve(store, interval=30)
    assert served.post("/v1/traces", request(1), **PROTOBUF).status_code == 200
    drained(served, 1)  # the first cycle is over: the next one is 30 s away
    bodies = [(otlp_proto(trace_id(n), spans=3), PROTOBUF) for n in range(2, 6)] + [
        (otlp_json(trace_id(6), spans=2), JSON)
    ]
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
