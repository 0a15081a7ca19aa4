"""Importing MCPJam SDK results vs importing the same trials as OTLP (issue 39.1).

The SDK source is the captured 6.x EvalSuite report (``fixtures/producers/mcpjam-sdk``) with
its 30 results repeated, each copy under its own iteration id, into one report; the OTLP source
is exactly what that report translates to (docs/spec/mcpjam-sdk.md §4), written as NDJSON. Both are
imported (decode, store and derive) into fresh stores; the ratio is OTLP time per trial over
SDK time per trial (≥ 1: the SDK import is at least as fast). CPU time is the whole tree's:
this process's threads and the worker processes' (the SDK jobs' and the derive step's).

Each source is imported once untimed first: the first import in a process loads the modules
its path needs and starts the derive step's fork server (1-2 s here), a cost of the
process, not of a trial; before, it fell on the first round's SDK import alone, so the SDK
median was the slower of its two other rounds.
"""

from __future__ import annotations

import json
import os
import statistics
import tempfile
import time
from pathlib import Path

import valuechain
from bench.common import tree_cpu_seconds
from valuechain.pipeline.sdk_sources import SDK_RESULTS

ROOT = Path(__file__).resolve().parent.parent
REPORT = next(
    (ROOT / "fixtures/producers/mcpjam-sdk/repo-6d550c0/captured/suite-model-a").glob("0*.json")
)
ROUNDS = 5


def sdk_report(copies: int) -> dict[str, object]:
    report = json.loads(REPORT.read_text())
    results = report["results"]
    out = []
    for k in range(copies):
        for result in results:
            copy = dict(result)
            copy["externalIterationId"] = f"{result.get('externalIterationId')}-{k}"
            out.append(copy)
    report["results"] = out
    return report


def _import(path: Path, folder: Path) -> tuple[float, float]:
    """Wall and CPU seconds of one import with derive into a fresh store."""
    store_path = folder / f"{path.stem}-{time.monotonic_ns()}.duckdb"
    with valuechain.open(store_path) as store:
        cpu = tree_cpu_seconds()  # first: it may wait for a reaped worker's counters
        start = time.perf_counter()
        report = store.import_paths([path], workers=2)
        elapsed = time.perf_counter() - start
        cpu = tree_cpu_seconds() - cpu
        assert report.ok, report.rejected
    store_path.unlink()
    return elapsed, cpu


def run(size_mb: int = 0) -> None:
    del size_mb  # sized by trials, not bytes
    copies = 100
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        sdk = folder / "report.json"
        sdk.write_text(json.dumps(sdk_report(copies)))
        otlp = folder / "same-trials.otlp.jsonl"
        otlp.write_bytes(SDK_RESULTS(sdk.read_bytes(), str(sdk)).data)
        trials = copies * 30
        for path in (sdk, otlp):  # warm-up, not timed
            _import(path, folder)
        sdk_times, otlp_times = [], []
        for _ in range(ROUNDS):  # in alternation, so both see the same machine load
            sdk_times.append(_import(sdk, folder))
            otlp_times.append(_import(otlp, folder))
        s, o = (statistics.median(t[0] for t in times) for times in (sdk_times, otlp_times))
        sc, oc = (statistics.median(t[1] for t in times) for times in (sdk_times, otlp_times))
        print(
            f"sdk-results: {trials} trials; SDK report {sdk.stat().st_size / 1e6:.1f} MB "
            f"{s * 1e6 / trials:.0f} µs/trial (CPU {sc * 1e6 / trials:.0f}); same trials as "
            f"OTLP {otlp.stat().st_size / 1e6:.1f} MB {o * 1e6 / trials:.0f} µs/trial "
            f"(CPU {oc * 1e6 / trials:.0f}); ratio OTLP/SDK {o / s:.2f}x wall, "
            f"{oc / sc:.2f}x CPU (median of {ROUNDS}, import with derive, 2 workers; "
            f"load {os.getloadavg()[0]:.1f})"
        )
