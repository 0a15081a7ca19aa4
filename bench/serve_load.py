"""OTLP exporters against a ``valuechain serve`` subprocess: the load of ``python -m bench
serve`` and of tests/serve/test_serve_load.py.

- `span_batches`: pre-built SDK spans (``ReadableSpan``), ``per_batch`` a batch, ten a trace.
- `ServeProcess`: ``python -m valuechain --store S serve`` started, its banner read (the port),
  killed (SIGKILL) or stopped (SIGTERM); `tree_peak_mb` sums the VmHWM of its process tree.
- `Exporters`: threads, each an OpenTelemetry SDK ``OTLPSpanExporter`` (half of them gzip)
  sending its share of the batches in order; every export answered 200 is recorded, and a
  failed one is sent again (the same spans, so the same body) once serve is back — as an
  exporter's retry does. Every wait has a deadline and every loop a count.
"""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
import requests
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.exporter.otlp.proto.http import Compression
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export import SpanExportResult
from opentelemetry.sdk.util.instrumentation import InstrumentationScope
from opentelemetry.trace import SpanContext, SpanKind, TraceFlags
from opentelemetry.trace.status import Status, StatusCode

ROOT = Path(__file__).resolve().parent.parent
START_NS = 1_700_000_000_000_000_000
SPANS_PER_TRACE = 10

Batch = list[ReadableSpan]


def span_batches(spans: int, per_batch: int) -> list[Batch]:
    """``spans`` SDK spans in batches of ``per_batch``: trace ``i // 10 + 1``, span ``i + 1``,
    the first span of a trace the parent of the other nine."""
    resource = Resource({"service.name": "serve-load", "host.name": "bench"})
    scope = InstrumentationScope("valuechain.bench.serve_load", "1")
    flags, ok = TraceFlags(1), Status(StatusCode.OK)
    out: list[Batch] = []
    for first in range(0, spans, per_batch):
        batch = []
        for i in range(first, min(first + per_batch, spans)):
            trace = i // SPANS_PER_TRACE + 1
            root = (i // SPANS_PER_TRACE) * SPANS_PER_TRACE + 1
            batch.append(
                ReadableSpan(
                    name=f"step {i % SPANS_PER_TRACE}",
                    context=SpanContext(trace, i + 1, is_remote=False, trace_flags=flags),
                    parent=None if i + 1 == root else SpanContext(trace, root, is_remote=False),
                    resource=resource,
                    attributes={"load.index": i, "load.kind": "bench"},
                    kind=SpanKind.INTERNAL,
                    start_time=START_NS + i * 1_000,
                    end_time=START_NS + i * 1_000 + 500,
                    status=ok,
                    instrumentation_scope=scope,
                )
            )
        out.append(batch)
    return out


def body_of(batch: Batch) -> bytes:
    """The protobuf body the SDK exporter sends for ``batch`` (before gzip)."""
    return bytes(encode_spans(batch).SerializePartialToString())


def sha256_of(batch: Batch) -> str:
    return hashlib.sha256(body_of(batch)).hexdigest()


# ---------------------------------------------------------------------------------- serve
@dataclass
class ServeProcess:
    """One ``valuechain serve`` subprocess; its output lines kept in ``lines``."""

    store: Path
    port: int = 0
    interval: float | None = None
    workers: int | None = None
    process: subprocess.Popen[str] | None = None
    lines: list[str] = field(default_factory=list)
    pids: set[int] = field(default_factory=set)

    def start(self, timeout: float = 60.0) -> ServeProcess:
        command = [sys.executable, "-m", "valuechain", "--store", str(self.store), "serve"]
        command += ["--port", str(self.port)]
        if self.interval is not None:
            command += ["--interval", str(self.interval)]
        if self.workers is not None:
            command += ["--workers", str(self.workers)]
        env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "PYTHONUNBUFFERED": "1"}
        env["COLUMNS"] = "400"  # one line per message (rich wraps at the terminal width)
        self.lines = []
        self.process = subprocess.Popen(
            command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env
        )
        banner = threading.Event()
        threading.Thread(target=self._read, args=(self.process, banner), daemon=True).start()
        if not banner.wait(timeout) or self.process.poll() is not None:
            self.process.kill()
            raise RuntimeError("serve did not start:\n" + "\n".join(self.lines))
        return self

    def _read(self, process: subprocess.Popen[str], banner: threading.Event) -> None:
        assert process.stdout is not None
        for line in process.stdout:
            self.lines.append(line.rstrip("\n"))
            if "listening on http://" in line:
                self.port = int(line.split("listening on http://", 1)[1].split()[0].rsplit(":")[1])
                banner.set()
        banner.set()  # the process ended

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def health(self) -> dict[str, Any]:
        reply = requests.get(f"{self.url}/health", timeout=5)
        reply.raise_for_status()
        return dict(orjson.loads(reply.content))

    def drained(self, timeout: float) -> bool:
        """Wait until nothing waits in the spool (``GET /health``: backlog 0)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.health()["backlog"] == 0:
                return True
            time.sleep(0.05)
        return False

    def tree(self) -> list[int]:
        """The serve process and its descendants (Linux /proc)."""
        assert self.process is not None
        found, todo = [], [self.process.pid]
        while todo:
            pid = todo.pop()
            found.append(pid)
            try:
                for task in os.listdir(f"/proc/{pid}/task"):
                    with open(f"/proc/{pid}/task/{task}/children") as handle:
                        todo += [int(c) for c in handle.read().split()]
            except OSError:
                pass
        self.pids.update(found)
        return found

    def kill(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(30)

    def stop(self, timeout: float = 120.0) -> int:
        """SIGTERM; the exit status."""
        assert self.process is not None
        self.process.send_signal(signal.SIGTERM)
        return self.process.wait(timeout)


def tree_peak_mb(pids: Sequence[int]) -> int:
    """Summed VmHWM (peak resident set) of the live processes ``pids``, in MB: the tree's peak
    at most (each process's own peak, whenever it was)."""
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/status") as handle:
                total += next(
                    (int(line.split()[1]) for line in handle if line.startswith("VmHWM:")), 0
                )
        except OSError:
            pass
    return total // 1024


# ------------------------------------------------------------------------------ exporters
class _TimedSession(requests.Session):
    """The exporter's HTTP session: the seconds of every request answered 200 go to ``into``."""

    def __init__(self, into: list[float]) -> None:
        super().__init__()
        self.into = into

    def request(self, *args: Any, **kwargs: Any) -> requests.Response:  # type: ignore[override]
        start = time.perf_counter()
        response = super().request(*args, **kwargs)
        if response.status_code == 200:
            self.into.append(time.perf_counter() - start)
        return response


class Exporters:
    """``clients`` exporter threads sending ``batches`` to ``url`` (client ``k`` sends batches
    ``k, k + clients, …``; odd clients gzip). ``acked[i]``: batch ``i`` answered 200;
    ``latencies``: seconds of each HTTP request answered 200 (the exporter's encoding aside)."""

    def __init__(self, batches: list[Batch], clients: int, url: str, *, deadline: float) -> None:
        self.batches = batches
        self.clients = clients
        self.url = url
        self.deadline = deadline  # time.monotonic() by which every client gives up
        self.acked = [False] * len(batches)
        self.latencies: list[float] = []
        self.failures = 0
        self.generation = 0  # bumped by `restarted`
        self._changed = threading.Condition()
        self._threads = [
            threading.Thread(target=self._client, args=(k,), name=f"exporter-{k}", daemon=True)
            for k in range(clients)
        ]

    @property
    def answered(self) -> int:
        return sum(self.acked)

    def start(self) -> None:
        for thread in self._threads:
            thread.start()

    def join(self) -> None:
        for thread in self._threads:
            thread.join(max(0.0, self.deadline - time.monotonic()) + 5)

    def restarted(self, url: str) -> None:
        """Serve is back at ``url``: clients waiting to send again go on."""
        with self._changed:
            self.url = url
            self.generation += 1
            self._changed.notify_all()

    def _exporter(self, k: int) -> OTLPSpanExporter:
        return OTLPSpanExporter(
            endpoint=f"{self.url}/v1/traces",
            compression=Compression.Gzip if k % 2 else Compression.NoCompression,
            timeout=10,
            session=_TimedSession(self.latencies),
        )

    def _client(self, k: int) -> None:
        exporter, generation = self._exporter(k), self.generation
        for i in range(k, len(self.batches), self.clients):
            for _attempt in range(30):
                if time.monotonic() > self.deadline:
                    return
                if exporter.export(self.batches[i]) is SpanExportResult.SUCCESS:
                    self.acked[i] = True
                    break
                self.failures += 1
                with self._changed:  # wait for a restart (or a while: a 503, say)
                    self._changed.wait_for(
                        lambda seen=generation: self.generation != seen,  # type: ignore[misc]
                        timeout=min(2.0, max(0.0, self.deadline - time.monotonic())),
                    )
                if self.generation != generation:
                    exporter.shutdown()
                    exporter, generation = self._exporter(k), self.generation
        exporter.shutdown()


def store_counts(store: Path) -> dict[str, Any]:
    """What the store holds: spans, distinct span ids, served request hashes."""
    import duckdb  # noqa: PLC0415

    con = duckdb.connect(str(store), read_only=True)
    try:
        spans, distinct = con.execute(
            "SELECT count(*), count(DISTINCT (trace_id, span_id)) FROM core.spans"
        ).fetchone() or (0, 0)
        shas = [r[0] for r in con.execute("SELECT sha256 FROM core.served_requests").fetchall()]
        rows = con.execute("SELECT span_id FROM core.spans").fetchall()
        ids = {int.from_bytes(r[0], "big") for r in rows}
    finally:
        con.close()
    return {"spans": spans, "distinct": distinct, "shas": shas, "span_ids": ids}
