"""Ingest throughput on a synthetic NDJSON export, against named baselines in the same run.

Cases:
- ``json.loads``   the stdlib parsing every line (a floor for "just reading JSON in Python")
- ``orjson.loads`` the fastest parser we use, parsing every line and nothing else
- ``decode``       valuechain's pure decoder: bytes → Arrow span tables + issues
- ``import``       the whole import: decode + one DuckDB transaction into a fresh store
"""

from __future__ import annotations

import json
from pathlib import Path

import orjson

from bench.common import OUT, Timing, console, report, timed
from valuechain.ingest.decode import decode_export
from valuechain.store import Database
from valuechain.synth import SynthConfig, write_export

MB = 1 << 20


def synthetic_ndjson(size_mb: int) -> Path:
    """A cached synthetic NDJSON export of about ``size_mb`` megabytes."""
    OUT.mkdir(exist_ok=True)
    path = OUT / f"synth-{size_mb}mb.jsonl"
    if path.exists():
        return path
    probe = write_export(OUT / "probe.jsonl", SynthConfig(runs=1, cases=10, models=2, reps=5),
                         ndjson=True)
    per_trial = probe.bytes_written / probe.trials
    trials = max(1, int(size_mb * MB / per_trial))
    cases = 20
    reps = max(1, trials // (cases * 4 * 5))
    write_export(path, SynthConfig(runs=5, cases=cases, models=4, reps=reps, seed=1), ndjson=True)
    return path


def run(size_mb: int) -> list[Timing]:
    path = synthetic_ndjson(size_mb)
    data = path.read_bytes()
    lines = data.splitlines()
    megabytes = len(data) / MB
    console.print(f"input: {path.name}, {megabytes:.1f} MB, {len(lines)} lines")

    def stdlib() -> int:
        return sum(len(json.loads(line)["resourceSpans"]) for line in lines)

    def orjson_only() -> int:
        return sum(len(orjson.loads(line)["resourceSpans"]) for line in lines)

    def decode() -> int:
        return decode_export(data, path.name).span_count

    def whole_import() -> int:
        with Database(":memory:") as db:
            decoded = decode_export(data, path.name)
            return db.commit_source(decoded, 1).span_rows

    timings = [
        timed("json.loads", stdlib, megabytes),
        timed("orjson.loads", orjson_only, megabytes),
        timed("decode", decode, megabytes),
        timed("import", whole_import, megabytes),
    ]
    spans = timings[-1].items
    timings = [t if t.name in ("decode", "import") else
               Timing(t.name, t.seconds, t.megabytes, spans) for t in timings]
    report("ingest (NDJSON)", timings, baseline="orjson.loads")
    return timings
