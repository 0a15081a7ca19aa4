"""Ingest throughput on a synthetic NDJSON export, against a same-run ceiling and baselines.

Cases (all on the same bytes, in the same run):
- ``simdjson ×2`` THE CEILING: pysimdjson parsing every line into its document, on both cores
  (two processes, half the lines each). R = import MB/s ÷ this.
- ``simdjson.loads ×2`` pysimdjson parsing and building Python objects, on both cores
- ``orjson.loads``  the fastest parser we use, one core, nothing else
- ``json_format``   ``google.protobuf.json_format.Parse`` into opentelemetry-proto classes
                    (one core, on a sample of lines, scaled)
- ``decode fast``   valuechain's decoder, one core: msgspec fast path, reference fallback
- ``decode ref``    the reference decoder alone, one core (on a sample)
- ``import``        the whole import into a fresh file store, in-process and with parts
                    decoded by two worker processes while this one commits them (the CLI's
                    default); R is taken on the latter
- ``import proto``  the same data as length-prefixed binary protobuf records

``ingest-memory`` imports a 2 GB export in a subprocess and reports its peak RSS;
``ingest-store`` compares importing one run into an empty store and into one holding 1,000.
"""

from __future__ import annotations

import resource
import sys
import tempfile
import textwrap
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import orjson

from bench.common import OUT, Timing, console, machine, peak_tree_rss, report, timed
from valuechain.ingest.decode import DecodeOptions, decode_export
from valuechain.pipeline.imports import ImportOptions, import_paths
from valuechain.store import Database
from valuechain.synth import SynthConfig, write_export

MB = 1 << 20
_BYTES_PER_TRIAL = 24_000  # about, for sizing the synthetic export


def _config(size_mb: int) -> SynthConfig:
    trials = max(1, int(size_mb * MB / _BYTES_PER_TRIAL))
    cases, models, runs = 20, 4, 5
    return SynthConfig(runs=runs, cases=cases, models=models, reps=max(1, trials // 400), seed=1)


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


# ---------------------------------------------------------------------------- parallel ceiling
def simdjson_parse(path: str, part: int, parts: int) -> int:
    import simdjson  # noqa: PLC0415

    parser = simdjson.Parser()
    lines = Path(path).read_bytes().splitlines()[part::parts]
    start = time.perf_counter()
    for line in lines:
        doc = parser.parse(line)
        del doc
    return int((time.perf_counter() - start) * 1e9)


def _simdjson_loads(path: str, part: int, parts: int) -> int:
    import simdjson  # noqa: PLC0415

    lines = Path(path).read_bytes().splitlines()[part::parts]
    start = time.perf_counter()
    for line in lines:
        simdjson.loads(line)
    return int((time.perf_counter() - start) * 1e9)


def both_cores(fn: object, path: Path) -> float:
    """Seconds for two processes to each do half the lines (the slower one counts)."""
    with ProcessPoolExecutor(2) as pool:
        futures = [pool.submit(fn, str(path), i, 2) for i in range(2)]  # type: ignore[arg-type]
        return max(f.result() for f in futures) / 1e9


def run(size_mb: int = 200) -> list[Timing]:
    size_mb = max(size_mb, 200)
    path = synthetic_ndjson(size_mb)
    data = path.read_bytes()
    lines = data.splitlines()
    megabytes = len(data) / MB
    console.print(f"input: {path.name}, {megabytes:.1f} MB, {len(lines)} lines — {machine()}")
    spans = decode_export(lines[0] + b"\n" + lines[1], "probe").span_count // 2 * len(lines)

    def orjson_only() -> int:
        for line in lines:
            orjson.loads(line)
        return spans

    sample = lines[: max(1, len(lines) // 50)]
    sample_mb = sum(map(len, sample)) / MB

    def json_format_sample() -> int:
        from google.protobuf import json_format  # noqa: PLC0415
        from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (  # noqa: PLC0415
            ExportTraceServiceRequest,
        )

        for line in sample:
            json_format.Parse(line, ExportTraceServiceRequest())
        return 0

    def decode_fast() -> int:
        return decode_export(data, path.name, DecodeOptions(workers=0)).span_count

    sample_bytes = b"\n".join(sample) + b"\n"

    def decode_reference() -> int:
        return decode_export(sample_bytes, "sample", DecodeOptions(fast=False)).span_count

    def whole_import(target: Path, workers: int = 2) -> int:
        options = ImportOptions(decode=DecodeOptions(workers=workers), derive=False)
        with tempfile.TemporaryDirectory() as tmp, Database(Path(tmp) / "s.duckdb") as db:
            result = import_paths(db, [target], options)
            assert result.ok, result.sources[0].error
            return result.total("spans")

    proto = synthetic(size_mb, proto=True)
    ceiling = Timing("simdjson ×2 (ceiling)", both_cores(simdjson_parse, path), megabytes, spans)
    loads2 = Timing("simdjson.loads ×2", both_cores(_simdjson_loads, path), megabytes, spans)
    jf = timed("json_format (sample)", json_format_sample, sample_mb)
    ref = timed("decode ref (sample)", decode_reference, sample_mb)
    timings = [
        ceiling,
        loads2,
        timed("orjson.loads", orjson_only, megabytes),
        Timing(jf.name, jf.seconds, jf.megabytes, int(spans * sample_mb / megabytes)),
        ref,
        timed("decode fast (1 core)", decode_fast, megabytes),
        timed("import (in-process)", lambda: whole_import(path, workers=0), megabytes),
        timed("import (2 workers)", lambda: whole_import(path), megabytes),
    ]
    proto_mb = proto.stat().st_size / MB
    proto_import = timed("import proto", lambda: whole_import(proto), proto_mb)
    timings.append(proto_import)
    report("ingest (NDJSON, content included)", timings, baseline="simdjson ×2 (ceiling)")
    imported = next(t for t in timings if t.name == "import (2 workers)")
    r = imported.mb_per_s / ceiling.mb_per_s
    console.print(
        f"R = import ÷ ceiling = {r:.4f}; import ÷ simdjson.loads×2 = "
        f"{imported.mb_per_s / loads2.mb_per_s:.3f}; import ÷ orjson.loads = "
        f"{imported.mb_per_s / timings[2].mb_per_s:.3f}; import ÷ json_format = "
        f"{imported.mb_per_s / jf.mb_per_s:.1f}×\n"
        f"protobuf: {proto_mb:.1f} MB of records = {megabytes:.1f} MB of JSON; "
        f"{proto_import.mb_per_s:.1f} MB/s of protobuf, "
        f"{proto_import.items_per_s:,.0f} spans/s"
    )
    return timings


# ---------------------------------------------------------------------------- peak memory
def run_memory(size_mb: int = 2048) -> None:
    """Peak RSS importing a 2 GB export: the CLI with two decode workers (the whole process
    tree, summed) and the library in one process (its own peak)."""
    size_mb = max(size_mb, 2048)
    path = synthetic_ndjson(size_mb)
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
    for name, command in cases.items():
        for stale in (store, store.with_name(store.name + ".wal")):
            stale.unlink(missing_ok=True)
        tree, own, seconds = peak_tree_rss(command)
        console.print(
            f"peak RSS importing {path.name} ({size:.0f} MB NDJSON), {name}: {tree} MB for the "
            f"whole process tree (main process {own} MB); {size / seconds:.1f} MB/s — {machine()}"
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
