"""``valuechain serve`` against ``valuechain import`` of the same spans (issue 40).

Twenty OpenTelemetry SDK exporters (`bench.serve_load`, every other one gzip) send N spans
(``VALUECHAIN_BENCH_SERVE_SPANS``, default 50,000; 200,000 for the load test's size) in
batches of 500 to a fresh ``serve`` (the default interval; ``--workers`` from
``VALUECHAIN_BENCH_SERVE_WORKERS``, default 2). Timed from the first request to the moment
every span is in the store (``GET /health``: backlog 0 — a spool file goes once its
transaction has committed); the spans are counted after serve stops. The same request bodies,
written as one length-prefixed file (the collector's file-exporter ``proto`` format), are
imported with ``valuechain import`` into a fresh store: the command's wall time, and that time
less the interpreter's start-up (``valuechain --version``).

Printed: spans/s of each, the ratio serve/file (goal ≥ 0.5), the p50/p99 latency of a request
answered 200, and the peak resident set of serve's process tree during the load (VmHWM summed
over serve and its live children, at its highest; goal ≤ 1 GB), and the CPU seconds of each
— the steadier figure on a shared machine, where wall times swing with the other work. Rounds
alternate (``VALUECHAIN_BENCH_SERVE_ROUNDS``, default 3), so both see the same machine load;
medians are printed.

Figures (two cores shared with another session's tests, load 4.5–6; medians of 3):

| spans | serve /s | import /s | ratio (less start-up) | p50/p99 ms | peak MB (PSS) | CPU s |
|---:|---:|---:|---:|---:|---:|---:|
| 50k | 8,534 | 11,199 | 0.76 (0.54) | 369/818 | 779 (521) | 6.1/3.5 |
| 200k | 9,154 | 18,224 | 0.50 (0.45) | 444/1,069 | 951 (717) | 17.7/9.2 |

Ranges over the rounds: serve 8,058–8,608 and 7,839–9,408 spans/s, the import 10,938–13,863
and 17,462–18,512; CPU s: serve / import.

Serve spends about twice the import's CPU: every body is decoded twice (checked before it is
answered, imported after), ~20 µs a span each time, and a long run is derived again every
``DERIVE_LAG`` seconds while requests keep coming.
"""

from __future__ import annotations

import logging
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import NamedTuple

from bench.common import TreeUsage, _cpu_s, _pss_mb, tree_usage
from bench.serve_load import (
    ROOT,
    Batch,
    Exporters,
    ServeProcess,
    body_of,
    span_batches,
    store_counts,
    tree_peak_mb,
)

CLIENTS, PER_BATCH = 20, 500


class ServeRound(NamedTuple):
    seconds: float
    p50: float
    p99: float
    peak_mb: int
    peak_pss: int  # the tree's summed PSS, sampled every 100 ms: a shared page counted once
    cycles: int
    cpu: float  # CPU seconds of serve's process tree, start-up included


def _serve_round(batches: list[Batch], spans: int, folder: Path) -> ServeRound:
    store = folder / f"serve-{time.monotonic_ns()}.duckdb"
    workers = os.environ.get("VALUECHAIN_BENCH_SERVE_WORKERS")
    serve = ServeProcess(store, workers=int(workers) if workers else None).start()
    peak = 0  # the live processes' VmHWM summed, at its highest
    cpu: dict[int, float] = {}
    pss = 0
    try:
        exporters = Exporters(batches, CLIENTS, serve.url, deadline=time.monotonic() + 600)
        start = time.perf_counter()
        exporters.start()
        drained = False
        for tick in range(60_000):  # every 10 ms, 10 minutes at most
            tree = serve.tree()
            peak = max(peak, tree_peak_mb(tree))  # not per pid: workers come and go
            for pid in tree:
                cpu[pid] = max(cpu.get(pid, 0.0), _cpu_s(pid))
            if tick % 10 == 0:
                pss = max(pss, sum(_pss_mb(pid) for pid in tree))
            if exporters.answered == len(batches) and serve.health()["backlog"] == 0:
                drained = True
                break
            time.sleep(0.01)
        seconds = time.perf_counter() - start
        exporters.join()
    finally:
        status = serve.stop()
    assert drained and status == 0, "\n".join(serve.lines)
    held = store_counts(store)["spans"]
    assert held == spans, f"{held} spans in the store, {spans} sent"
    latencies = sorted(exporters.latencies)
    for path in folder.glob(f"{store.name}*"):
        shutil.rmtree(path) if path.is_dir() else path.unlink()
    return ServeRound(
        seconds,
        latencies[len(latencies) // 2],
        latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))],
        peak,
        pss,
        sum(" imported " in line for line in serve.lines),
        sum(cpu.values()),
    )


def _import_round(source: Path, folder: Path) -> TreeUsage:
    store = folder / f"file-{time.monotonic_ns()}.duckdb"
    command = [sys.executable, "-m", "valuechain", "--store", str(store), "-q", "import"]
    usage = tree_usage([*command, str(source)])
    for path in folder.glob(f"{store.name}*"):
        path.unlink()
    return usage


def _startup() -> float:
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "valuechain", "--version"], check=True, capture_output=True
    )
    return time.perf_counter() - start


def run(size_mb: int = 0) -> None:
    del size_mb  # sized by spans, not bytes
    spans = int(os.environ.get("VALUECHAIN_BENCH_SERVE_SPANS", "50000"))
    rounds = int(os.environ.get("VALUECHAIN_BENCH_SERVE_ROUNDS", "3"))
    os.environ["PYTHONPATH"] = str(ROOT / "src")  # the import command: this tree's valuechain
    logging.getLogger("opentelemetry").setLevel(logging.CRITICAL)
    batches = span_batches(spans, PER_BATCH)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        source = folder / "requests.pb"
        with source.open("wb") as handle:
            for batch in batches:
                body = body_of(batch)
                handle.write(len(body).to_bytes(4, "big") + body)
        startup = statistics.median(_startup() for _ in range(3))
        served, imported = [], []
        for _ in range(rounds):  # in alternation, so both see the same machine load
            served.append(_serve_round(batches, spans, folder))
            imported.append(_import_round(source, folder))
        for k, (s, f) in enumerate(zip(served, imported, strict=True)):
            print(
                f"  round {k + 1}: serve {spans / s.seconds:,.0f} spans/s ({s.seconds:.2f} s, "
                f"{s.cycles} import cycles, p50 {s.p50 * 1e3:.0f} ms, p99 {s.p99 * 1e3:.0f} ms, "
                f"peak {s.peak_mb} MB, PSS {s.peak_pss} MB, CPU {s.cpu:.1f} s); "
                f"import {spans / f.wall:,.0f} spans/s ({f.wall:.2f} s, peak {f.peak_rss} MB, "
                f"CPU {f.cpu:.1f} s)"
            )
        wall = statistics.median(s.seconds for s in served)
        file_wall = statistics.median(f.wall for f in imported)
        serve_rate, file_rate = spans / wall, spans / file_wall
        net_rate = spans / max(file_wall - startup, 1e-3)
        serve_cpu = statistics.median(s.cpu for s in served)
        file_cpu = statistics.median(f.cpu for f in imported)
        print(
            f"serve: {spans:,} spans in {len(batches)} requests from {CLIENTS} exporters "
            f"(half gzip): serve {serve_rate:,.0f} spans/s (first request → all in the store), "
            f"p50 {statistics.median(s.p50 for s in served) * 1e3:.0f} ms, "
            f"p99 {statistics.median(s.p99 for s in served) * 1e3:.0f} ms, "
            f"peak RSS {max(s.peak_mb for s in served)} MB (serve's tree, VmHWM summed; goal ≤ "
            f"1024; PSS {max(s.peak_pss for s in served)} MB); "
            f"`valuechain import` of the same bodies ({source.stat().st_size / 1e6:.1f} MB, "
            f"length-prefixed) {file_rate:,.0f} spans/s ({net_rate:,.0f} less {startup:.2f} s "
            f"start-up); ratio serve/file {serve_rate / file_rate:.2f} "
            f"({serve_rate / net_rate:.2f} against the import less start-up; goal ≥ 0.5); "
            f"CPU s serve {serve_cpu:.1f}, import {file_cpu:.1f}: ratio file/serve "
            f"{file_cpu / serve_cpu:.2f}, both with start-up "
            f"(median of {rounds}; load {os.getloadavg()[0]:.1f})"
        )
