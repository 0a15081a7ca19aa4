"""Ingest throughput against what this machine does with the same bytes in the same run.

One ≥ 200 MB synthetic NDJSON export and a single-document export of the same spans:

- ``orjson.loads``  THE PARSE FLOOR: orjson parsing every line, one core, nothing else.
                    R_parse = import MB/s ÷ this (bar ≥ 0.3).
- ``store floor``   THE STORE FLOOR: the export's span tables, already decoded (untimed),
                    written into a fresh DuckDB file (``CREATE TABLE … AS``) and checkpointed,
                    in the store's own storage format (``STORAGE_COMPATIBILITY``, as a fresh
                    store is written: DuckDB's newest format is ~15 % cheaper, not what an
                    import can use). R_store = import MB/s ÷ this (bar ≥ 0.4).
- ``decode …``      the decoder alone, one core: the native path for every part
                    (pyarrow.json + Arrow compute; the default), the msgspec fast path
                    (``native_parts=False``), the reference (sample)
- ``import …``      the whole import into a fresh store with two decode workers (the CLI's
                    default): native path (thread workers; the default) and msgspec (worker
                    processes)
- the same for the single document, then the peak memory (the whole process tree) of the
  CLI importing a 2 GB NDJSON export and a 2 GB single document of the same spans
  (``ingest-memory`` prints the in-process cases too).

The store floor and the native import are measured ``$BENCH_INGEST_PAIRS`` times (default 3),
in turn (floor, import, floor, …), so both see the same machine; the table shows each one's
median run, and R_store is the ratio of the medians, printed with the range of the pairs' own
ratios: one pair alone moved R_store by ±0.04 on a quiet machine.

``decoders`` times the candidate decoders on the same bytes; ``ingest-store`` compares
importing one run into an empty store and into one holding 1,000.
"""

from __future__ import annotations

import os
import resource
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import duckdb
import orjson

from bench.common import OUT, console, machine, tree_usage
from bench.ingest_cpu import Measured, load_average, measure, table
from valuechain.ingest.decode import DecodedSource, DecodeOptions, decode_export
from valuechain.pipeline.imports import ImportOptions, import_paths
from valuechain.store import Database
from valuechain.store.sandbox import STORAGE_COMPATIBILITY
from valuechain.synth import SynthConfig, write_export

MB = 1 << 20
PAIRS = max(1, int(os.environ.get("BENCH_INGEST_PAIRS", "3")))
_BYTES_PER_TRIAL = 22_300  # about, for sizing the synthetic export (rounded up below)


def _config(size_mb: int) -> SynthConfig:
    trials = max(1, int(size_mb * MB / _BYTES_PER_TRIAL))
    cases, models, runs = 20, 4, 5
    reps = max(1, -(-trials // (cases * models * runs)))  # at least the size asked for
    return SynthConfig(runs=runs, cases=cases, models=models, reps=reps, seed=1)


def synthetic(size_mb: int, **framing: object) -> Path:
    """A cached synthetic export of about ``size_mb`` megabytes in the given framing."""
    OUT.mkdir(exist_ok=True)
    tag = "-".join(f"{k}{v}" for k, v in sorted(framing.items())) or "doc"
    path = OUT / f"synth-{size_mb}mb-{tag}.bin"
    if not path.exists():
        write_export(path, _config(size_mb), **framing)  # type: ignore[arg-type]
    return path


def synthetic_ndjson(size_mb: int) -> Path:
    return synthetic(size_mb, ndjson=True)


def simdjson_parse(path: str, part: int, parts: int) -> int:
    """pysimdjson parsing every ``parts``-th line (the ``decoders`` suite's ceiling)."""
    import simdjson  # noqa: PLC0415

    parser = simdjson.Parser()
    lines = Path(path).read_bytes().splitlines()[part::parts]
    start = time.perf_counter()
    for line in lines:
        doc = parser.parse(line)
        del doc
    return int((time.perf_counter() - start) * 1e9)


def both_cores(fn: object, path: Path) -> float:
    """Seconds for two processes to each do half the lines (the slower one counts)."""
    from concurrent.futures import ProcessPoolExecutor  # noqa: PLC0415

    with ProcessPoolExecutor(2) as pool:
        futures = [pool.submit(fn, str(path), i, 2) for i in range(2)]  # type: ignore[arg-type]
        return max(f.result() for f in futures) / 1e9


def store_floor(decoded: DecodedSource, name: str, megabytes: float) -> Measured:
    """Writing already-decoded span tables into a fresh DuckDB file in the store's storage
    format and checkpointing (the connection is opened before and closed after the measured
    part)."""
    config = {"storage_compatibility_version": STORAGE_COMPATIBILITY}
    with (
        tempfile.TemporaryDirectory() as tmp,
        duckdb.connect(f"{tmp}/floor.duckdb", config=config) as con,
    ):

        def write() -> int:
            for table_name, table in decoded.tables.items():
                con.register("decoded", table)
                con.execute(f"CREATE TABLE {table_name} AS SELECT * FROM decoded")
                con.unregister("decoded")
            con.execute("CHECKPOINT")
            return decoded.span_count

        return measure(name, write, megabytes)


def whole_import(target: Path, workers: int = 2, native: bool = True) -> int:
    decode = DecodeOptions(workers=workers, native=native, native_parts=native)
    options = ImportOptions(decode=decode, derive=False)
    with tempfile.TemporaryDirectory() as tmp, Database(Path(tmp) / "s.duckdb") as db:
        result = import_paths(db, [target], options)
        assert result.ok, result.sources[0].error
        return result.total("spans")


def _source(path: Path, label: str) -> list[Measured]:
    """One export: its floors, its decoders and its imports, side by side."""
    data = path.read_bytes()
    megabytes = len(data) / MB
    lines = data.splitlines() if label == "NDJSON" else [data]

    def orjson_only() -> int:
        for line in lines:
            orjson.loads(line)
        return 0

    decoded = decode_export(data, path.name, DecodeOptions(workers=0))
    sample = b"\n".join(data.splitlines()[: max(1, len(lines) // 50)]) + b"\n"

    def decoding(native: bool) -> int:
        options = DecodeOptions(workers=0, native=native, native_parts=native)
        return decode_export(data, path.name, options).span_count

    parse = measure(f"orjson.loads ({label})", orjson_only, megabytes)
    floors: list[Measured] = []
    imports: list[Measured] = []
    for _ in range(PAIRS):  # in turn: each pair sees the same machine
        floors.append(store_floor(decoded, f"store floor ({label})", megabytes))
        imports.append(measure("import native (2 workers)", lambda: whole_import(path), megabytes))
    store, native_import = _median(floors), _median(imports)
    pairs = sorted(f.seconds / i.seconds for f, i in zip(floors, imports, strict=True))
    cases = [
        parse,
        store,
        measure("decode native (1 core)", lambda: decoding(True), megabytes),
        measure("decode msgspec (1 core)", lambda: decoding(False), megabytes),
    ]
    if label == "NDJSON":
        cases.append(
            measure(
                "decode reference (sample)",
                lambda: decode_export(sample, "s", DecodeOptions(fast=False)).span_count,
                len(sample) / MB,
            )
        )
    del decoded
    cases += [
        native_import,
        measure("import msgspec (2 workers)", lambda: whole_import(path, native=False), megabytes),
    ]
    table(f"ingest ({label}, content included)", cases, baseline=parse.name)
    imported = max(cases[-2:], key=lambda t: t.mb_per_s)
    console.print(
        f"{label}: R_store = import ÷ store floor = {imported.mb_per_s / store.mb_per_s:.3f} "
        f"(bar 0.4; by CPU time {store.cpu / imported.cpu:.3f}; medians of {PAIRS} pairs in "
        f"turn, whose own ratios ran {pairs[0]:.3f}–{pairs[-1]:.3f}); R_parse = import ÷ "
        f"orjson.loads = {imported.mb_per_s / parse.mb_per_s:.3f} (bar 0.3; by CPU time "
        f"{parse.cpu / imported.cpu:.3f}), on the faster import ({imported.name}); native ÷ "
        f"msgspec import = {cases[-2].mb_per_s / cases[-1].mb_per_s:.2f}; load average "
        f"{load_average():.1f}"
    )
    return cases


def _median(runs: list[Measured]) -> Measured:
    """The run of median wall time (the lower middle one of an even count)."""
    ordered = sorted(runs, key=lambda m: m.seconds)
    return ordered[(len(ordered) - 1) // 2]


def run(size_mb: int = 200) -> list[Measured]:
    size_mb = max(size_mb, 200)
    path = synthetic_ndjson(size_mb)
    document = synthetic(size_mb)
    console.print(
        f"inputs: {path.name} {path.stat().st_size / MB:.0f} MB, {document.name} "
        f"{document.stat().st_size / MB:.0f} MB (the same spans) — {machine()}"
    )
    timings = _source(path, "NDJSON") + _source(document, "document")
    run_memory(cli_only=True)
    return timings


# ---------------------------------------------------------------------------- peak memory
def run_memory(size_mb: int = 2048, cli_only: bool = False) -> None:
    """Peak RSS importing a 2 GB export, NDJSON and a single document of the same spans: the
    CLI with two decode workers (the whole process tree, summed) and the library in one
    process (its own peak)."""
    size_mb = max(size_mb, 2048)
    for path, framing in ((synthetic_ndjson(size_mb), "NDJSON"), (synthetic(size_mb), "document")):
        _memory(path, framing, cli_only)


def _memory(path: Path, framing: str, cli_only: bool) -> None:
    store = OUT / "memory.duckdb"
    size = path.stat().st_size / MB
    in_process = textwrap.dedent(
        f"""
        import resource
        from valuechain.ingest.decode import DecodeOptions
        from valuechain.pipeline.imports import ImportOptions, import_paths
        from valuechain.store import Database
        with Database({str(store)!r}) as db:
            options = ImportOptions(decode=DecodeOptions(workers=0), derive=False)
            assert import_paths(db, [{str(path)!r}], options).ok
        """
    )
    cases = {
        "CLI, --workers 2": [
            sys.executable,
            "-m",
            "valuechain",
            "--store",
            str(store),
            "import",
            "--workers",
            "2",
            "--no-derive",
            str(path),
        ],
        "library, in-process": [sys.executable, "-c", in_process],
    }
    if cli_only:
        del cases["library, in-process"]
    for name, command in cases.items():
        for stale in (store, store.with_name(store.name + ".wal")):
            stale.unlink(missing_ok=True)
        used = tree_usage(command)
        console.print(
            f"peak memory importing {path.name} ({size:.0f} MB {framing}), {name}: "
            f"{used.peak_pss} MB PSS for the whole process tree (RSS summed {used.peak_rss} MB, "
            f"main process {used.peak_main} MB); {size / used.wall:.1f} MB/s; load average "
            f"{load_average():.1f} — {machine()}"
        )
    for stale in (store, store.with_name(store.name + ".wal")):
        stale.unlink(missing_ok=True)


# ---------------------------------------------------------------------------- store size
def run_store(size_mb: int = 0) -> None:
    del size_mb
    big = OUT / "runs-1000.jsonl"
    if not big.exists():
        write_export(big, SynthConfig(runs=1000, seed=5), ndjson=True)
    new = OUT / "run-new.jsonl"
    write_export(new, SynthConfig(runs=1, seed=77), ndjson=True)
    options = ImportOptions(derive=False)
    with tempfile.TemporaryDirectory() as tmp:
        with Database(Path(tmp) / "empty.duckdb") as db:
            empty = min(_fresh(db, new, options) for _ in range(_TRIES))
        with Database(Path(tmp) / "full.duckdb") as db:
            assert import_paths(db, [big], options).ok
            runs = db.sql(
                "SELECT count(DISTINCT string_value) FROM core.attributes "
                "WHERE key = 'mcp.app.run.id'"
            ).item()
            stored = db.sql("SELECT count(*) FROM core.spans").item()
            full = min(_fresh(db, new, options) for _ in range(_TRIES))
    console.print(
        f"one new run ({new.stat().st_size / MB:.2f} MB): "
        f"into an empty store {empty * 1000:.0f} ms, "
        f"into a store of {runs} runs / {stored:,} spans {full * 1000:.0f} ms; "
        f"ratio {full / empty:.2f} — {machine()}"
    )


_TRIES = 9  # ~0.1 s each: the best of several, as one try swings by ±40 % here


def _fresh(db: Database, path: Path, options: ImportOptions) -> float:
    """Import ``path`` and time it, then remove it again so the next try imports it anew: the
    store's own undo of an unfinished import (every row from the source's offsets on), then
    its ledger row."""
    offsets = db.next_rows()
    start = time.perf_counter()
    report = import_paths(db, [path], options)
    seconds = time.perf_counter() - start
    assert report.ok and report.sources[0].outcome == "imported"
    db.undo_import(offsets)
    db.con.execute("DELETE FROM core.sources WHERE source_id = $s", {"s": offsets["source_id"]})
    return seconds


def peak_rss_mb() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
