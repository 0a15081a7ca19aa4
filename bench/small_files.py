"""Many small files: a folder of 10,000 tiny exports (one trace each, ~24 KB) imported into a
fresh store, against the same trials in one NDJSON file (THE FLOOR: the same decoding, derive
and materialize, one source). Prints files/s by wall time, CPU seconds (this process and its
workers) and the load, and the ratio of the two imports' CPU time.

``$BENCH_SMALL_FILES`` sets the number of files (default 10,000).
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import orjson

from bench.common import console
from bench.ingest_cpu import Measured, load_average, measure, table
from valuechain.ingest.source.decoded import DecodeOptions
from valuechain.pipeline.imports import ImportOptions, import_paths
from valuechain.store import Database
from valuechain.synth import SynthConfig, write_export
from valuechain.synth.runs import generate_requests

FILES = int(os.environ.get("BENCH_SMALL_FILES", "10000"))


def _config(files: int) -> SynthConfig:
    return SynthConfig(runs=1, cases=25, models=4, reps=max(1, -(-files // 100)), seed=11)


def _write_files(folder: Path, files: int) -> int:
    """``files`` tiny exports, one trace each; their bytes."""
    written = 0
    for k, request in enumerate(generate_requests(_config(files))):
        if k == files:
            break
        data = orjson.dumps(request)
        (folder / f"trace-{k:05d}.json").write_bytes(data)
        written += len(data)
    return written


def _import(store: Path, paths: list[Path]) -> int:
    """The CLI's import (two decode workers): the sources it imported."""
    with Database(store) as db:
        report = import_paths(db, paths, ImportOptions(decode=DecodeOptions(workers=2)))
    assert report.ok, [s.error for s in report.rejected]
    return len(report.sources)


def run(size_mb: int = 0) -> None:
    with tempfile.TemporaryDirectory(prefix="valuechain-small-files-") as tmp:
        folder = Path(tmp) / "files"
        folder.mkdir()
        total = _write_files(folder, FILES)
        one = Path(tmp) / "one.jsonl"
        write_export(one, _config(FILES), ndjson=True)
        megabytes = total / (1 << 20)
        console.print(f"{FILES:,} files, {megabytes:.1f} MB; load {load_average():.2f} before")
        cases: list[Measured] = [
            measure(
                "one file (floor)", lambda: _import(Path(tmp) / "one.duckdb", [one]), megabytes
            ),
            measure(
                f"{FILES:,} small files",
                lambda: _import(Path(tmp) / "small.duckdb", [folder]),
                megabytes,
                item_name="files",
            ),
        ]
    small = cases[1]
    table("small files", cases, "one file (floor)")
    console.print(
        f"{small.items / small.seconds:,.0f} files/s (wall), {small.cpu:.1f} CPU s; "
        f"CPU ÷ floor {small.cpu / cases[0].cpu:.2f}, wall ÷ floor "
        f"{small.seconds / cases[0].seconds:.2f}"
    )
