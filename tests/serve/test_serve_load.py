"""``valuechain serve`` under load, SIGKILLed half-way: every request answered 200 is in the
store exactly once.

Twenty OpenTelemetry SDK exporters (``OTLPSpanExporter``, every other one gzip) send 200,000
spans in batches of 500 to a ``serve`` subprocess. Once about half of the requests have been
answered, serve is killed (SIGKILL: no clean-up at all) and started again on the same store
and port; an export that failed meanwhile is sent again, as an exporter retries (the same
spans, so the same body; the exporter's own retries may also land on the new serve). Then
serve is stopped (SIGTERM, exit 0) and the store must hold the spans of every distinct request
answered 200 — none lost, none twice — with one ``core.served_requests`` row per body.

35–55 s on two cores shared with other work (`bench/serve_load.py` drives it; ``python -m
bench serve`` times it).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from bench.serve_load import Exporters, ServeProcess, sha256_of, span_batches, store_counts

SPANS, PER_BATCH, CLIENTS = 200_000, 500, 20
DEADLINE = 150.0  # seconds for the whole load, the kill and restart included


def _gone(pids: list[int], within: float) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if not any(Path(f"/proc/{pid}").exists() for pid in pids):
            return True
        time.sleep(0.05)
    return False


@pytest.fixture
def quiet_exporters() -> Iterator[None]:
    """The SDK exporter logs every retry while serve is down: expected here."""
    logger = logging.getLogger("opentelemetry")
    level = logger.level
    logger.setLevel(logging.CRITICAL)
    yield
    logger.setLevel(level)


@pytest.mark.slow
@pytest.mark.usefixtures("quiet_exporters")
def test_every_acknowledged_request_survives_a_sigkill_exactly_once(tmp_path: Path) -> None:
    store = tmp_path / "served.duckdb"
    batches = span_batches(SPANS, PER_BATCH)
    serve = ServeProcess(store).start()
    deadline = time.monotonic() + DEADLINE
    exporters = Exporters(batches, CLIENTS, serve.url, deadline=deadline)
    try:
        exporters.start()
        while exporters.answered < len(batches) // 2 and time.monotonic() < deadline:
            time.sleep(0.02)
        answered_at_kill = exporters.answered
        tree = serve.tree()  # serve and its worker processes
        serve.kill()
        assert serve.process is not None and serve.process.returncode == -9
        assert _gone(tree[1:], within=10.0), "a worker outlived the killed serve"
        serve.start()  # same store, same port: the exporters' endpoint
        exporters.restarted(serve.url)
        exporters.join()
        assert serve.health()["ok"]
    finally:
        status = serve.stop()
    assert status == 0, "\n".join(serve.lines)

    assert len(batches) // 2 <= answered_at_kill < len(batches)  # killed mid-load
    assert all(exporters.acked), f"{exporters.acked.count(False)} requests never answered 200"
    acknowledged = {
        sha256_of(b): len(b) for b, ok in zip(batches, exporters.acked, strict=True) if ok
    }
    held = store_counts(store)
    assert sorted(held["shas"]) == sorted(acknowledged)  # one row per distinct body
    assert held["spans"] == held["distinct"] == sum(acknowledged.values()) == SPANS
    assert held["span_ids"] == set(range(1, SPANS + 1))
