"""Materializing stage analytics over a large store, against a plain GROUP BY baseline.

The store is generated directly as DuckDB tables (``core.trials``, ``core.stage_chain``,
``core.trial_outcome``, ``core.stage_measurements``, ``core.setup_signals``,
``core.trial_flags``) — not through JSON — with many runs and a realistic state mix: mostly
completed trials, some failed / timed out / setup-failed / cancelled / skipped, a few runs
still running, evaluator errors, unverified chains, judge-pending user value, measurements
with reach upgrades and latencies, producer chains (analyzer 11 and 12) beside the derived
ones for a fifth of the runs, and setup signals copied on every trial.

Cases:
- ``group by``               ``SELECT run_id, stage, count(*) … GROUP BY run_id, stage`` over
                             the same chain table (the baseline; goal: materialize ≤ 5×)
- ``materialize``            every run, every document, SQL only (``validate=False``)
- ``materialize+validate``   the same, every document validated in bulk (the generated JSON
                             Schema natively, the cross-field rules in one set-based statement)
- ``one run @ N``            re-materializing one run (median of several) in a store of N
                             trials — must not grow with the store (compare 100k vs 1M)

Then the phases of one full materialization of the large store, and what its documents weigh:
their bytes of JSON and the time to parse each once with orjson on one core, a floor under
validating every document, set beside what the bar (R_mat ≤ 20) leaves for all of the work.
"""

from __future__ import annotations

import os
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import orjson

from bench.common import Timing, console, report, timed
from bench.stores import built
from valuechain.materialize.analytics import (
    drop_temp_tables,
    epoch_ms,
    materialize_runs,
    parameters,
    utc_now,
)
from valuechain.materialize.validation import validate_documents
from valuechain.materialize.verdict import write_decision_summaries
from valuechain.store import Database, sqlfiles

SMALL, LARGE = (
    int(n) for n in os.environ.get("BENCH_MATERIALIZE_SIZES", "100000,1000000").split(",")
)
TRIALS_PER_RUN = 200
SINGLE_RUN_SAMPLES = 15

_TRIALS = """
INSERT INTO core.trials
WITH base AS (
    SELECT t, t // $per_run AS r, t % $per_run AS i,
           hash(t, 17) AS h1, hash(t, 29) AS h2, hash(t // $per_run, 31) AS hr
    FROM range($n) AS x(t)
), shaped AS (
    SELECT *, i % 20 AS c, (i // 20) % 3 AS v,
           CASE WHEN hr % 100 < 2 THEN 'running'
                WHEN hr % 100 < 3 THEN 'cancelled' ELSE 'completed' END AS run_status
    FROM base
)
SELECT
    't_' || t,
    unhex(md5(CAST(t AS VARCHAR))),
    'run_' || md5(CAST(r AS VARCHAR))[1:16],
    's_' || (r % 40),
    'c_' || c, 'case-' || c, 'Case ' || c,
    CASE WHEN c % 9 = 0 THEN NULL WHEN c % 13 = 0 THEN '  '
         ELSE ['search', 'forecast', 'alerts', 'billing', 'refund', 'lookup', 'compare',
               'summarize', 'export', 'schedule'][c % 10 + 1] END,
    ['anthropic', 'openai', 'google'][v + 1],
    CASE WHEN h1 % 200 = 0 THEN NULL
         ELSE ['claude-sonnet-4-6', 'gpt-5.4-mini', 'gemini-3'][v + 1] END,
    CASE WHEN (i // 60) % 2 = 0 THEN 'claude-desktop' ELSE 'emulated-host' END,
    CASE WHEN (i // 60) % 2 = 0 THEN 'Claude Desktop' ELSE 'Emulated' END,
    CASE WHEN (i // 60) % 2 = 0 THEN 'harness:claude-desktop' ELSE 'emulated' END,
    CASE
        WHEN run_status = 'running' AND i >= $per_run * 3 // 4 THEN
            CASE WHEN h1 % 2 = 0 THEN 'running' ELSE 'pending' END
        WHEN h1 % 1000 < 930 THEN 'completed'
        WHEN h1 % 1000 < 970 THEN 'failed'
        WHEN h1 % 1000 < 980 THEN 'timed_out'
        WHEN h1 % 1000 < 985 THEN 'setup_failed'
        WHEN h1 % 1000 < 990 THEN 'cancelled'
        WHEN h1 % 1000 < 995 THEN 'skipped'
        ELSE 'completed'
    END,
    i // 60, i, false,
    1000 + h1 % 4000, 200 + h2 % 800, 1000.0 + h1 % 60000,
    TIMESTAMPTZ '2026-01-01 00:00:00+00' + to_hours(r) + to_seconds(i),
    TIMESTAMPTZ '2026-01-01 00:00:00+00' + to_hours(r) + to_seconds(i + 30),
    'g_' || (r % 100), 'cfg_' || (r % 7), 'cs_' || (r % 5),
    run_status,
    CASE WHEN hr % 10 < 6 THEN 'final' WHEN hr % 10 < 7 THEN 'provisional' END,
    $per_run, 'caseVariant',
    CASE WHEN run_status <> 'running' AND hr % 10 < 7
         THEN TIMESTAMPTZ '2026-01-01 00:00:00+00' + to_hours(r + 1) END,
    1, 12, false, false, [], NULL, 'root_' || t, 1, true, 'p_1', r, NULL, NULL, NULL
FROM shaped
"""

_DERIVED_CHAIN = """
INSERT INTO core.stage_chain
WITH trials AS (
    SELECT trial_id, run_id, status, hash(trial_id, 7) AS h,
           CAST(substr(case_id, 3) AS INTEGER) AS c
    FROM core.trials
    WHERE status NOT IN ('pending', 'running')
), shaped AS (
    SELECT *, CASE WHEN h % 100 < 70 THEN 9 ELSE (h // 100) % 6 END AS f
    FROM trials
), rows AS (
    SELECT s.*, CAST(x.k AS TINYINT) AS k FROM shaped s CROSS JOIN range(6) AS x(k)
)
SELECT
    trial_id, run_id, 'derived', 12, k,
    ['connection', 'discovery', 'selection', 'call', 'response', 'userValue'][k + 1],
    CASE
        WHEN status IN ('cancelled', 'timed_out', 'skipped', 'setup_failed') THEN 'notMeasured'
        WHEN k = 2 AND c % 10 = 7 THEN 'notApplicable'
        WHEN k = f THEN 'failed'
        WHEN k > f THEN 'notReached'
        WHEN k = 5 AND h % 33 = 0 THEN 'notMeasured'
        WHEN k = 4 AND h % 19 = 0 THEN 'notMeasured'
        ELSE 'passed'
    END,
    CASE
        WHEN status = 'setup_failed' THEN 'setupAborted'
        WHEN status IN ('cancelled', 'timed_out', 'skipped') THEN 'lifecycleStopped'
        WHEN k = 2 AND c % 10 = 7 THEN 'notAuthored'
        WHEN k = f THEN ['connectFailed', 'toolsListFailed', 'missingToolCall',
                         'argumentMismatch', 'toolError', 'predicateFailed'][k + 1]
        WHEN k > f THEN 'earlierStageFailed'
        WHEN k = 5 AND h % 33 = 0 THEN 'judgePending'
        WHEN k = 4 AND h % 19 = 0 THEN 'noEvidenceCaptured'
        WHEN k < 2 THEN 'impliedByLaterEvidence'
        ELSE 'observed'
    END,
    NULL
FROM rows
"""

_PRODUCER_CHAIN = """
INSERT INTO core.stage_chain
SELECT trial_id, run_id, 'producer', CASE WHEN hash(run_id) % 3 = 0 THEN 11 ELSE 12 END,
       stage_index, stage, state, reason, evidence
FROM core.stage_chain
WHERE source = 'derived' AND hash(run_id, 5) % 5 = 0
"""

_OUTCOMES = """
INSERT INTO core.trial_outcome
SELECT
    trial_id, run_id, source, analyzer_version,
    arg_min(stage, stage_index) FILTER (state = 'failed'),
    CASE min(stage_index) FILTER (state = 'failed')
        WHEN 0 THEN 'setup' WHEN 1 THEN 'setup' WHEN 2 THEN 'selection' WHEN 3 THEN 'arguments'
        WHEN 4 THEN 'serverData' WHEN 5 THEN 'userValue' END,
    hash(trial_id, source) % 1000 <> 0,
    true,
    hash(trial_id, source, 3) % 997 <> 0,
    1,
    CASE WHEN hash(trial_id, 11) % 2000 = 0 THEN analyzer_version - 1 ELSE analyzer_version END,
    hash(trial_id, source, 3) % 997 <> 0  -- measurements_agree: the same check here
FROM core.stage_chain
GROUP BY trial_id, run_id, source, analyzer_version
"""

_MEASUREMENTS = """
INSERT INTO core.stage_measurements
SELECT
    trial_id, run_id, source, analyzer_version, stage_index, stage,
    CASE state
        WHEN 'passed' THEN 'reached' WHEN 'failed' THEN 'reached'
        WHEN 'notReached' THEN 'notReached' WHEN 'notApplicable' THEN 'notApplicable'
        ELSE CASE WHEN hash(trial_id, stage_index) % 2 = 0 THEN 'reached' ELSE 'unknown' END
    END,
    CASE WHEN stage_index BETWEEN 2 AND 4 AND state IN ('passed', 'failed')
         THEN 50 + hash(trial_id, stage_index, 9) % 5000 END
FROM core.stage_chain
"""

_SETUP = """
INSERT INTO core.setup_signals
SELECT t.trial_id, t.run_id, p.phase,
       CASE WHEN p.phase = 'connection' AND hash(t.run_id, 2) % 50 = 0 THEN 'failed' ELSE 'ok' END,
       CASE WHEN p.phase = 'connection' AND hash(t.run_id, 2) % 50 = 0 THEN 'theirs' END,
       CASE WHEN p.phase = 'connection' AND hash(t.run_id, 2) % 50 = 0 THEN true END,
       CASE p.phase WHEN 'connection' THEN 150.0 + hash(t.run_id) % 100 ELSE 75.0 END
FROM core.trials t CROSS JOIN (VALUES ('connection'), ('discovery')) AS p(phase)
"""

_FLAGS = """
INSERT INTO core.trial_flags
SELECT trial_id, run_id, CASE WHEN hash(trial_id, 23) % 500 = 0 THEN true END
FROM core.trials
"""

BASELINE = (
    "SELECT run_id, stage, state, count(*) FROM core.stage_chain GROUP BY run_id, stage, state"
)


def build_store(path: Path, trials: int, per_run: int = TRIALS_PER_RUN) -> Database:
    """A store of ``trials`` trials in runs of ``per_run``, generated in SQL."""
    db = Database(path)
    params = {"n": trials, "per_run": per_run}
    start = time.perf_counter()
    for statement in (
        _TRIALS,
        _DERIVED_CHAIN,
        _PRODUCER_CHAIN,
        _OUTCOMES,
        _MEASUREMENTS,
        _SETUP,
        _FLAGS,
    ):
        names = {k: v for k, v in params.items() if f"${k}" in statement}
        db.con.execute(statement, names)
    rows = db.con.execute("SELECT count(*) FROM core.stage_chain").fetchall()[0][0]
    return built(db, f"{trials:,} trials, {rows:,} chain rows", start)


def cpu_seconds() -> float:
    """User + system CPU time of this process (DuckDB's threads included) and its children."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def _phases(db: Database) -> dict[str, tuple[float, float]]:
    """(wall s, CPU s) per phase of one full materialization, statement by statement."""
    params = parameters(None, epoch_ms(utc_now()))
    spent: dict[str, tuple[float, float]] = {}

    def tick(phase: str, step: Callable[[], object]) -> None:
        wall, cpu = time.perf_counter(), cpu_seconds()
        step()
        before = spent.get(phase, (0.0, 0.0))
        spent[phase] = (before[0] + time.perf_counter() - wall, before[1] + cpu_seconds() - cpu)

    db.con.begin()
    for sql in sqlfiles.folder("analytics"):
        if sql.name >= "analytics/200_" and "bulk validation" not in spent:
            tick("bulk validation", lambda: validate_documents(db.con, params))
        phase = (
            "replace rows (2xx)"
            if sql.name >= "analytics/200_"
            else "json documents (140)"
            if sql.name.startswith("analytics/140_")
            else "classify+count+slice (000-130)"
        )
        tick(phase, lambda sql=sql: db.con.execute(sql.text, sql.bind(params)))
    tick("decision summaries (verdict)", lambda: write_decision_summaries(db.con, None))
    DOCUMENTS.update(_documents_parsed(db))
    db.con.commit()
    drop_temp_tables(db.con)
    return spent


def _documents_parsed(db: Database) -> dict[str, float]:
    """How many bytes of JSON the documents of ``a_documents`` are, and what parsing each of
    them once with orjson on one core takes: a floor under any validation of every document."""
    cursor = db.con.execute("SELECT document FROM a_documents")
    count = size = 0
    seconds = 0.0
    while batch := cursor.fetchmany(256):
        start = time.perf_counter()
        for (document,) in batch:
            orjson.loads(document)
        seconds += time.perf_counter() - start
        count += len(batch)
        size += sum(len(document) for (document,) in batch)
    return {"documents": count, "megabytes": size / 1e6, "parse_seconds": seconds}


DOCUMENTS: dict[str, float] = {}  # the large store's documents (`_documents_parsed`)


def _runs_sample(db: Database, k: int) -> list[str]:
    rows = db.con.execute(
        "SELECT run_id FROM core.run_summary ORDER BY hash(run_id) LIMIT $k", {"k": k}
    ).fetchall()
    return [str(r[0]) for r in rows]


def run(size_mb: int) -> None:
    """Run the suite. ``size_mb`` is ignored: the stores are fixed at 100k and 1M trials
    (generated in SQL, so no export size applies)."""
    del size_mb
    with tempfile.TemporaryDirectory(prefix="valuechain-bench-") as tmp:
        small = build_store(Path(tmp) / "small.duckdb", SMALL)
        large = build_store(Path(tmp) / "large.duckdb", LARGE)
        timings: list[Timing] = []
        for size, db in ((SMALL, small), (LARGE, large)):
            timings += _full(db, f" @ {size:,}")
        phases = _phases(large)

        # One run re-materialized in each store, alternating so both see the same machine.
        per_store: dict[int, list[float]] = {SMALL: [], LARGE: []}
        samples = {
            SMALL: _runs_sample(small, SINGLE_RUN_SAMPLES),
            LARGE: _runs_sample(large, SINGLE_RUN_SAMPLES),
        }
        for i in range(SINGLE_RUN_SAMPLES):
            for size, db in ((SMALL, small), (LARGE, large)):
                start = time.perf_counter()
                materialize_runs(db.con, [samples[size][i]])
                per_store[size].append(time.perf_counter() - start)
        single = {size: statistics.median(times) for size, times in per_store.items()}
        for size in (SMALL, LARGE):
            timings.append(
                Timing(f"one run @ {size:,}", single[size], timings[3].megabytes, 1, "runs")
            )
        small.close()
        large.close()

    report(
        f"materialize ({SMALL:,} and {LARGE:,} trials; 'MB' = million chain rows)",
        timings,
        baseline=f"group by @ {LARGE:,}",
    )
    for at in (SMALL, LARGE):
        base, sql_only, full = (t for t in timings[:6] if t.name.endswith(f" @ {at:,}"))
        console.print(
            f"{at:,} trials: R_mat = {full.seconds / base.seconds:.1f}x the GROUP BY with "
            f"validation (bar <= 20, goal 5), {sql_only.seconds / base.seconds:.1f}x without "
            f"({base.seconds:.3f} s); in CPU time "
            f"{CPU[full.name] / CPU[base.name]:.1f}x and "
            f"{CPU[sql_only.name] / CPU[base.name]:.1f}x "
            f"(materialize+validate {full.seconds:.2f} s wall, {CPU[full.name]:.2f} s CPU)"
        )
    small_full, large_full = timings[2], timings[5]
    scale = (large_full.seconds / small_full.seconds) / (LARGE / SMALL)
    console.print(f"materialize+validate {SMALL:,} -> {LARGE:,}: {scale:.2f}x linear (bar <= 1.2)")
    for phase, (seconds, cpu) in phases.items():
        console.print(f"  {phase}: {seconds:.2f} s wall, {cpu:.2f} s CPU")
    base = timings[3].seconds  # the GROUP BY over the large store
    console.print(
        f"  the documents of {LARGE:,} trials: {DOCUMENTS['documents']:,.0f}, "
        f"{DOCUMENTS['megabytes']:.1f} MB of JSON; parsing each once with orjson on one core "
        f"takes {DOCUMENTS['parse_seconds']:.2f} s = {DOCUMENTS['parse_seconds'] / base:.1f}x "
        f"the GROUP BY, of the {20 * base:.2f} s that R_mat <= 20 leaves for building, "
        "validating and writing them all"
    )
    console.print(f"load average {os.getloadavg()[0]:.1f} (1 min) at the end")
    console.print(
        f"one run (median of {SINGLE_RUN_SAMPLES}): {single[SMALL] * 1e3:.0f} ms @ "
        f"{SMALL:,} trials vs {single[LARGE] * 1e3:.0f} ms @ {LARGE:,} trials "
        f"(x {single[LARGE] / single[SMALL]:.2f})"
    )


def _full(db: Database, at: str) -> list[Timing]:
    """GROUP BY baseline, materialize without and with validation, over every run of ``db``."""
    chain_rows = db.con.execute("SELECT count(*) FROM core.stage_chain").fetchall()[0][0]
    million = chain_rows / 1e6

    def baseline() -> int:
        return len(db.con.execute(BASELINE).fetchall())

    def sql_only() -> int:
        return materialize_runs(db.con, validate=False)

    def with_validation() -> int:
        return materialize_runs(db.con)

    out = []
    for name, fn, repeat, item in (
        (f"group by{at}", baseline, 3, "rows"),
        (f"materialize{at}", sql_only, 2, "documents"),
        (f"materialize+validate{at}", with_validation, 1, "documents"),
    ):
        cpu = cpu_seconds()
        out.append(timed(name, fn, million, repeat=repeat, item_name=item))
        CPU[name] = (cpu_seconds() - cpu) / repeat
    return out


CPU: dict[str, float] = {}  # mean CPU seconds per case of `_full`, by case name
