"""`trend` over a store of 10,000 runs, against a plain GROUP BY over ``stage_rates``.

The store's trials, chains, outcomes and measurements are generated directly as tables (the
generator of bench/materialize.py, 20 trials per run) and materialized, so ``stage_rates``,
the documents and the parity facts are what imports would leave: ~100 partitions' worth of
identities, a fifth of the runs provisional or still running, producer chains beside the
derived ones for some.

Cases (the default document kind: derived chains at the current analyzer, overall slice):
- ``group by``        ``SELECT run_id, stage, count(*), min(<each rate>) FROM stage_rates …
                      GROUP BY run_id, stage`` over the same rows, into a polars frame (the
                      floor; goal: ``trend`` ≤ 3×)
- ``rows sorted``     the same ``stage_rates`` rows, every column, ordered by run, slice and
                      stage: what returning per-run rates in order costs before any
                      partitioning (a second floor)
- ``trend``           ``Store.trend()``: the partitioned series as a polars frame
- ``trend+blocked``   what the verb reads: the series and the runs outside every partition
- ``trend json``      the verb's ``--format json`` bytes from those frames
- ``trend table``     the verb's 80-column view from those frames
Then, to explain the cost: the parity macro over every document's flat facts (what deciding
partition membership costs each trend), and over the stored documents themselves.
``$BENCH_HISTORY`` (a ``valuechain synth --history`` folder) times the same cases over that
archive's store instead, imported as its manifest says.
"""

from __future__ import annotations

import io
import os
import tempfile
import time
from pathlib import Path

import duckdb
import polars as pl
from rich.console import Console

import valuechain
from bench.common import Timing, console, report, timed
from bench.materialize import build_store
from bench.stores import build_history_store
from valuechain.materialize.analytics import materialize_runs
from valuechain.query.trend import trend_request
from valuechain.report.trend import render_trend, trend_json

RUNS = 10_000
TRIALS_PER_RUN = 20
HISTORY = os.environ.get("BENCH_HISTORY")  # an archive's folder: its store instead

BASELINE = """
SELECT run_id, stage, count(*) AS n, min(measured_pass_rate), min(reach_rate),
       min(measurement_coverage_rate)
FROM main.stage_rates
WHERE chain_source = 'derived' AND analyzer_version = 12 AND slice_dimension = 'overall'
GROUP BY run_id, stage
"""
ROWS_SORTED = """
SELECT * FROM main.stage_rates
WHERE chain_source = 'derived' AND analyzer_version = 12 AND slice_dimension = 'overall'
ORDER BY run_id, slice_index, stage_index
"""
FACTS = "SELECT count(*) FROM core.document_parity_facts WHERE len(self_blockers) = 0"
DOCUMENTS = (
    "SELECT count(*) FROM core.analytics_documents "
    "WHERE len(core.identity_parity_blockers(core.parity_identity(document), "
    "core.parity_identity(document))) = 0"
)


def _store(path: Path) -> None:
    if HISTORY:  # the imports materialized every run they touched
        build_history_store(path, Path(HISTORY)).close()
        return
    db = build_store(path, RUNS * TRIALS_PER_RUN, per_run=TRIALS_PER_RUN)
    start = time.perf_counter()
    documents = materialize_runs(db.con, validate=False)
    db.con.execute("CHECKPOINT")
    console.print(f"materialized {documents:,} documents in {time.perf_counter() - start:.1f} s")
    db.close()


def _seconds(store: valuechain.Store, sql: str) -> str:
    """How long ``sql`` takes, or that it ran out of the store's memory limit."""
    con = store.db.con
    start = time.perf_counter()
    try:
        con.execute(sql).fetchall()
    except duckdb.OutOfMemoryException:
        limit = con.execute("SELECT current_setting('memory_limit')").fetchall()[0][0]
        return f"out of memory within {limit} after {time.perf_counter() - start:.1f} s"
    return f"{(time.perf_counter() - start) * 1e3:.0f} ms"


def run(size_mb: int) -> None:
    """Run the suite. ``size_mb`` is ignored: the store is fixed at 10,000 runs (or is the
    archive's of ``$BENCH_HISTORY``)."""
    del size_mb
    with tempfile.TemporaryDirectory(prefix="valuechain-bench-") as tmp:
        path = Path(tmp) / "trend.duckdb"
        _store(path)
        with valuechain.open(path, read_only=True) as store:
            request = trend_request()
            rows = store.db.con.sql(
                "SELECT count(*) FROM main.stage_rates WHERE chain_source = 'derived' "
                "AND analyzer_version = 12 AND slice_dimension = 'overall'"
            ).fetchall()[0][0]
            million = rows / 1e6

            def frame_of(sql: str) -> int:
                frame = pl.from_arrow(store.db.con.sql(sql).to_arrow_table())
                assert isinstance(frame, pl.DataFrame)
                return frame.height

            def baseline() -> int:
                return frame_of(BASELINE)

            def rows_sorted() -> int:
                return frame_of(ROWS_SORTED)

            def series() -> int:
                return store.trend().height

            def with_blocked() -> int:
                return store.trend().height + store.trend_blocked().height

            frame, outside = store.trend(), store.trend_blocked()

            def as_json() -> int:
                return len(trend_json(frame, outside))

            def as_table() -> int:
                screen = Console(file=io.StringIO(), width=80, color_system=None)
                screen.print(render_trend(frame, outside, request))
                return frame.height

            timings: list[Timing] = []
            for _ in range(2):  # interleaved, so both see the same (shared) machine
                timings = [
                    _best(
                        timings, timed("group by", baseline, million, repeat=5, item_name="rows")
                    ),
                    _best(
                        timings,
                        timed("rows sorted", rows_sorted, million, repeat=5, item_name="rows"),
                    ),
                    _best(timings, timed("trend", series, million, repeat=5, item_name="rows")),
                    _best(
                        timings,
                        timed("trend+blocked", with_blocked, million, repeat=5, item_name="rows"),
                    ),
                ]
            timings.append(timed("trend json", as_json, million, repeat=2, item_name="bytes"))
            timings.append(timed("trend table", as_table, million, repeat=2, item_name="rows"))
            partitions = frame.select(
                "run_group_id",
                "config_revision",
                "case_set_fingerprint",
                "stage_analyzer_version",
                "measurements_schema_version",
            ).n_unique()
            facts, documents = _seconds(store, FACTS), _seconds(store, DOCUMENTS)
    runs = f"history {HISTORY}" if HISTORY else f"{RUNS:,} runs"
    report(f"trend ({runs}; 'MB' = million stage_rates rows read)", timings, baseline="group by")
    base = timings[0].seconds
    for t in timings[1:]:
        console.print(f"{t.name}: {t.seconds * 1e3:.0f} ms = {t.seconds / base:.1f}x the GROUP BY")
    console.print(
        f"{frame['run_id'].n_unique():,} runs in {partitions:,} partitions, "
        f"{outside.height:,} outside them (blocked or unmeasured); GROUP BY {base * 1e3:.0f} ms"
    )
    console.print(f"parity macro over every document's flat facts: {facts}")
    console.print(f"parity macro over every stored document (JSON): {documents}")


def _best(previous: list[Timing], new: Timing) -> Timing:
    """The faster of ``new`` and the same-named timing of the previous round."""
    same = [t for t in previous if t.name == new.name]
    return min([new, *same], key=lambda t: t.seconds)
