"""Derivation must never be the bottleneck: derive trials/s against the import and the analyzer.

Stores of 100k and 1M trials (``$BENCH_DERIVE_SIZES``) are generated as tables
(`bench.stores.build_evidence_store`: one 10k-trial export imported, its evidence copied in
SQL), so the import does not dominate the setup. Over each store we time:
- ``import``           the import (decode + commit, no derivation) of the 10k-trial export the
                       store was copied from, as the CLI runs it (two decode workers), in
                       trials/s — the import is linear in its export
- ``derive (step)``    ``valuechain derive`` over the whole store, as a process: load rows,
                       evidence, analyzer, write the tables, materialize; its peak memory (the
                       whole process tree, workers included, as PSS: shared pages once; and
                       the RSS sum, which counts them once per process) is printed beside it
- ``evidence``         the evidence adapter alone over one default batch of stored rows
- ``analyzer``         the pure analyzer alone over that batch's inputs (one core)
- ``read (floor)``     after the step, a bare read of what the step reads: the span and
                       attribute columns the adapter takes, every row of the store, into Arrow
- ``write (floor)``    the step's derived tables (Arrow, untimed) written into a fresh DuckDB
                       file (``CREATE TABLE … AS``) and checkpointed: what the step writes
- ``one run again``    after the step, `derive_traces` of one run's traces (what an import
                       or a follow round that touches one run costs): it should not grow with
                       the store; beside it, the listing of every trace's run it avoids
and print trials/s with R_derive = derive ÷ import (bar ≥ 5, goal 10), derive ÷ analyzer
(bar ≥ 0.33) and the scaling from the smallest to the largest store (linear = 1.00; bar ≤ 1.2),
each by wall time and by CPU time (user + system of the whole process tree: the machine is
shared, so wall time says as much about the neighbours as about the code), with the load.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import duckdb
import pyarrow as pa

from bench.common import console, tree_usage
from bench.ingest_cpu import Measured, load_average, table
from bench.ingest_cpu import measure as measured
from bench.stores import BASE_TRIALS, base_export, build_evidence_store
from valuechain.contract.tables.trials import STORED_TRIAL_TABLES
from valuechain.derive import derive_chains
from valuechain.evidence.frames import ordered_attributes
from valuechain.evidence.trials import build_trials
from valuechain.ingest.decode import DecodeOptions
from valuechain.pipeline.derive import DEFAULT_BATCH_TRACES, derive_traces, run_batches
from valuechain.pipeline.imports import ImportOptions, import_paths
from valuechain.store import Database

SIZES = tuple(int(n) for n in os.environ.get("BENCH_DERIVE_SIZES", "100000,1000000").split(","))


def import_rate(folder: Path) -> Measured:
    """The import of the base export (spans only) into a fresh store as the CLI runs it, with
    its default decode workers (their CPU included): the library's default, in-process on one
    core, took ~8.3 s where two workers take ~4.7 (10,000 trials, 225 MB)."""
    path = base_export()
    decode = DecodeOptions(workers=min(2, os.cpu_count() or 1))

    def run() -> int:
        assert import_paths(db, [path], ImportOptions(decode=decode, derive=False)).ok
        return BASE_TRIALS

    with Database(folder / "import.duckdb") as db:
        return measured("import", run, BASE_TRIALS / 1e6, "trials")


def parts(db: Database) -> tuple[Measured, Measured]:
    """The evidence adapter and the analyzer alone over the store's first default batch."""
    traces, span_rows = run_batches(db.trace_runs(), DEFAULT_BATCH_TRACES)[0]
    spans, attributes = db.trial_rows(traces, span_rows)
    sources = db.trial_sources(spans)
    n = len(traces)
    found = []

    def evidence() -> int:
        found.append(build_trials(spans, ordered_attributes(attributes), source_runs=sources))
        return n

    def analyzer() -> int:
        derive_chains([i for i in found[0].inputs if i is not None])
        return n

    return (
        measured("evidence", evidence, n / 1e6, "trials"),
        measured("analyzer", analyzer, n / 1e6, "trials"),
    )


_READ_FLOOR = (  # the columns of sql/evidence/010 and 020, without their joins and casts
    (
        "core.spans",
        "span_row, trace_id, span_id, parent_span_id, resource_row, source_id, name, kind, "
        "start_time_unix_nano, end_time_unix_nano, status_code, mcp_app_role, oi_span_kind, "
        "dropped_attributes_count, dup_group",
    ),
    (
        "core.attributes",
        "owner_type, owner_row, ordinal, key, value_type, string_value, int_value, "
        "double_value, bool_value, json_value",
    ),
)
# Rows a floor read holds at once: a 1M-trial store's 254M attribute rows read whole took
# ~24 GB (the bench was killed); slices of rowids keep it to ~1 GB, read as the step reads.
FLOOR_SLICE_ROWS = 10_000_000
_DERIVED = (*STORED_TRIAL_TABLES, "derived_evidence")  # what the step writes


def floors(db: Database, folder: Path, trials: int) -> tuple[Measured, Measured]:
    """What the machine does with the step's bytes: read them, and write what it derived.
    Both hold bounded memory: the reads are sliced by rowid, and what the step derived is
    written from Arrow files mapped from disk (as the step's staged batches reach it)."""

    def read() -> int:
        for _ in floor_reads(db):
            pass
        return trials

    derived = {name: _mapped(db, name, folder) for name in _DERIVED}
    target = folder / "write-floor.duckdb"

    def write() -> int:
        with duckdb.connect(str(target)) as con:
            for name, rows in derived.items():
                con.register("staged", rows)
                con.execute(f"CREATE TABLE {name} AS SELECT * FROM staged")
                con.unregister("staged")
            con.execute("CHECKPOINT")
        return trials

    try:
        return (
            measured("read (floor)", read, trials / 1e6, "trials"),
            measured("write (floor)", write, trials / 1e6, "trials"),
        )
    finally:
        for path in (target, Path(f"{target}.wal"), *folder.glob("floor-*.arrow")):
            path.unlink(missing_ok=True)


def floor_reads(db: Database) -> Iterator[pa.Table]:
    """The rows of `_READ_FLOOR`, every one, a slice of `FLOOR_SLICE_ROWS` rowids at a time."""
    for stored, columns in _READ_FLOOR:
        rowids = db.con.sql(f"SELECT coalesce(max(rowid) + 1, 0) FROM {stored}").fetchall()[0][0]
        for start in range(0, int(rowids), FLOOR_SLICE_ROWS):
            bounds = {"lo": start, "hi": start + FLOOR_SLICE_ROWS - 1}
            sql = f"SELECT {columns} FROM {stored} WHERE rowid BETWEEN $lo AND $hi"
            part = db.con.sql(sql, params=bounds)
            yield part.to_arrow_table()


def _mapped(db: Database, name: str, folder: Path) -> pa.Table:
    """``core.<name>`` as an Arrow table mapped from a file written batch by batch."""
    path = folder / f"floor-{name}.arrow"
    reader = db.con.sql(f"SELECT * FROM core.{name}").fetch_record_batch()
    with pa.OSFile(str(path), "wb") as sink, pa.ipc.new_file(sink, reader.schema) as writer:
        for batch in reader:
            writer.write_batch(batch)
    return pa.ipc.open_file(pa.memory_map(str(path))).read_all()


def one_run_again(db: Database) -> tuple[int, float, float, float]:
    """The first run's trials, and best of three (wall s): `derive_traces` of its traces, its
    run listing, and the listing of every trace's run."""
    traces = run_batches(db.trace_runs(), 1)[0].traces  # a contract run (keys sort first)
    cases: tuple[Callable[[], object], ...] = (
        lambda: derive_traces(db, traces),
        lambda: db.trace_runs(traces),
        db.trace_runs,
    )
    best = [float("inf")] * len(cases)
    for _ in range(3):
        for k, case in enumerate(cases):
            start = time.perf_counter()
            case()
            best[k] = min(best[k], time.perf_counter() - start)
    return len(traces), best[0], best[1], best[2]


def measure(trials: int, folder: Path, imported: Measured) -> tuple[list[Measured], float]:
    path = folder / f"derive-{trials}.duckdb"
    with build_evidence_store(path, trials) as db:
        n = db.trace_runs().num_rows
        evidence, analyzer = parts(db)
    cli = Path(sys.executable).with_name("valuechain")  # the installed entry point
    command = [str(cli), "--store", str(path), "derive"]
    used = tree_usage(command)
    step_s, cpu_s = used.wall, used.cpu
    console.print(
        f"{n:,} trials: derive peak memory {used.peak_pss:,} MB PSS for the whole tree (bar "
        f"< 1,500 at 1M; RSS summed {used.peak_rss:,}, main process {used.peak_main:,} MB RSS); "
        f"{step_s:.1f} s wall, {cpu_s:.1f} s CPU (whole tree; main process {used.main_cpu:.1f} "
        f"s); load average {load_average():.1f}"
    )
    step = Measured(
        f"derive (step) @ {n:,}", step_s, n / 1e6, n, "trials", cpu=cpu_s, load=load_average()
    )
    with Database(path) as db:
        run_trials, again, listed, whole = one_run_again(db)
        read, write = floors(db, folder, n)
    console.print(
        f"one run ({run_trials:,} trials) derived again after the step: {again:.2f} s "
        f"wall; its run listing {listed:.3f} s, where listing every trace's run takes "
        f"{whole:.2f} s"
    )
    timings = [imported, step, evidence, analyzer, read, write]
    for path_ in (path, Path(f"{path}.wal")):
        path_.unlink(missing_ok=True)
    return timings, again


def _against_floors(
    step: Measured, evidence: Measured, analyzer: Measured, read: Measured, write: Measured
) -> None:
    """CPU µs a trial: the step beside its parts and floors, and what derive ÷ analyzer ≥ 0.33
    leaves it (three times the analyzer's cost, by CPU)."""

    def us(case: Measured) -> float:
        return case.cpu / case.items * 1e6

    console.print(
        f"CPU µs a trial: derive step {us(step):.0f} — evidence {us(evidence):.0f}, analyzer "
        f"{us(analyzer):.0f}; floors: read {us(read):.0f}, write {us(write):.0f}. derive / "
        f"analyzer >= 0.33 leaves the step {3 * us(analyzer):.0f} µs a trial, "
        f"{3 * us(analyzer) / us(read):.2f}x the bare read of its rows"
    )


def _per_cpu_s(case: Measured) -> float:
    return case.items / case.cpu if case.cpu > 0 else float("nan")


def run(size_mb: int) -> list[Measured]:
    """Run the suite at every size of ``SIZES``. ``size_mb`` is ignored: sized in trials."""
    del size_mb
    found: list[list[Measured]] = []
    again: list[float] = []
    with tempfile.TemporaryDirectory(prefix="valuechain-bench-") as tmp:
        imported = import_rate(Path(tmp))
        for trials in SIZES:
            timings, one_run = measure(trials, Path(tmp), imported)
            again.append(one_run)
            table(
                f"derive vs import ({trials:,} trials; 'MB' = million trials)",
                timings,
                baseline="import",
            )
            step, analyzer = timings[1], timings[3]
            console.print(
                f"R_derive = {step.items_per_s / imported.items_per_s:.1f} by wall, "
                f"{_per_cpu_s(step) / _per_cpu_s(imported):.1f} by CPU (bar >= 5, goal 10); "
                f"derive / analyzer = {step.items_per_s / analyzer.items_per_s:.2f} by wall, "
                f"{_per_cpu_s(step) / _per_cpu_s(analyzer):.2f} by CPU (bar >= 0.33)"
            )
            _against_floors(*timings[1:])
            found.append(timings)
    if len(found) > 1:
        small, large = found[0][1], found[-1][1]
        scale = (large.seconds / small.seconds) / (large.items / small.items)
        scale_cpu = (large.cpu / small.cpu) / (large.items / small.items)
        console.print(
            f"scaling {small.items:,} -> {large.items:,} trials: {scale:.2f}x linear by wall, "
            f"{scale_cpu:.2f}x by CPU (bar <= 1.2); one run derived again: "
            f"{again[-1] / again[0]:.2f}x from the smallest store to the largest (flat = 1.00)"
        )
    return [t for timings in found for t in timings]
