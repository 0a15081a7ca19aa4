"""Many small files: a folder of small exports imported into a fresh store, against the very
same requests as the lines of one NDJSON file (THE FLOOR: the same decoding, derive and
materialize, one source). Two sizes of file:

- **trial files** — one trial's trace each (~12 spans, ~24 KB), as an SDK reporter writes them;
- **tiny files** — the same traces cut into files of 1–4 spans, at most ~4 KB of spans each
  (the trial's root span, ~7 KB, alone), a collector flushing every few spans.

Prints, for each, files/s by wall time, CPU seconds (this process and its workers), the load,
and the ratios to the floor.

``$BENCH_SMALL_FILES`` sets the number of files of each size (default 10,000).
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import orjson

from bench.common import console
from bench.ingest_cpu import Measured, load_average, measure, table
from valuechain.ingest.source.decoded import DecodeOptions
from valuechain.pipeline.imports import ImportOptions, import_paths
from valuechain.store import Database
from valuechain.synth import SynthConfig
from valuechain.synth.runs import generate_requests

FILES = int(os.environ.get("BENCH_SMALL_FILES", "10000"))
TINY_SPAN_BYTES = 4_000  # a tiny file's spans, at most (but one span, however long)
TINY_SPANS = 4


def _config(files: int) -> SynthConfig:
    return SynthConfig(runs=1, cases=25, models=4, reps=max(1, -(-files // 100)), seed=11)


def _tiny(request: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """The request's spans a few at a time, each under its resource and scope."""
    for rs in request["resourceSpans"]:
        for ss in rs["scopeSpans"]:
            run: list[Any] = []
            size = 0
            for span in ss["spans"]:
                length = len(orjson.dumps(span))
                if run and (size + length > TINY_SPAN_BYTES or len(run) == TINY_SPANS):
                    yield _wrapped(rs, ss, run)
                    run, size = [], 0
                run.append(span)
                size += length
            if run:
                yield _wrapped(rs, ss, run)


def _wrapped(rs: dict[str, Any], ss: dict[str, Any], spans: list[Any]) -> dict[str, Any]:
    return {"resourceSpans": [{**rs, "scopeSpans": [{**ss, "spans": spans}]}]}


def _write(folder: Path, one: Path, requests: Iterable[dict[str, Any]], files: int) -> int:
    """``files`` of ``requests`` as files of ``folder`` and as the lines of ``one``; their
    bytes."""
    written = 0
    with one.open("wb") as lines:
        for k, request in enumerate(requests):
            if k == files:
                break
            data = orjson.dumps(request)
            (folder / f"trace-{k:05d}.json").write_bytes(data)
            lines.write(data + b"\n")
            written += len(data)
    return written


def _import(store: Path, paths: list[Path]) -> int:
    """The CLI's import (two decode workers): the sources it imported."""
    with Database(store) as db:
        report = import_paths(db, paths, ImportOptions(decode=DecodeOptions(workers=2)))
    assert report.ok, [s.error for s in report.rejected]
    return len(report.sources)


def _case(name: str, requests: Callable[[], Iterable[dict[str, Any]]]) -> None:
    with tempfile.TemporaryDirectory(prefix="valuechain-small-files-") as tmp:
        folder = Path(tmp) / "files"
        folder.mkdir()
        one = Path(tmp) / "one.jsonl"
        total = _write(folder, one, requests(), FILES)
        megabytes = total / (1 << 20)
        console.print(
            f"{name}: {FILES:,} files, {megabytes:.1f} MB ({total / FILES / 1000:.1f} KB a "
            f"file); load {load_average():.2f} before"
        )
        cases: list[Measured] = [
            measure(
                "one file (floor)", lambda: _import(Path(tmp) / "one.duckdb", [one]), megabytes
            ),
            measure(
                f"{FILES:,} {name}",
                lambda: _import(Path(tmp) / "small.duckdb", [folder]),
                megabytes,
                item_name="files",
            ),
        ]
    floor, small = cases
    table(name, cases, "one file (floor)")
    console.print(
        f"{name}: {small.items / small.seconds:,.0f} files/s (wall), "
        f"{small.items / small.cpu:,.0f} files per CPU s, {small.cpu:.1f} CPU s, "
        f"load {small.load:.1f}; CPU ÷ floor {small.cpu / floor.cpu:.2f}, "
        f"wall ÷ floor {small.seconds / floor.seconds:.2f}"
    )


def run(size_mb: int = 0) -> None:
    _case("trial files", lambda: generate_requests(_config(FILES)))
    tiny = _config(-(-FILES // 3))  # ~3 tiny files a trial
    _case("tiny files", lambda: (t for r in generate_requests(tiny) for t in _tiny(r)))
