"""Decision summaries (CONTRACT §6): how much materializing verdicts adds, against floors.

Two stores:
- the ``materialize`` suite's SQL-generated store of 100k trials (legacy runs, no trial root
  spans, every trial without a recorded result — the worst case for diagnostics: each first
  page holds 50 items, each with a chain to validate);
- an imported synthetic export (``synth --failures --verdict-policy``): v2 runs decided from
  their trials' root keys, real spans behind every diagnostic item.

Cases (each a same-run ratio to the ``group by`` floor over the same chain table):
- ``group by``              ``SELECT run_id, stage, count(*) … GROUP BY ALL`` (the floor)
- ``analytics``             every run's stage analytics documents (SQL only, no verdicts)
- ``decision summaries``    every run's summaries (decision + first diagnostics page)
- ``one run``               one run's summaries (median), which must not grow with the store
- ``verdict --policy``      one v2 run decided on read under a policy file (median)
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path
from typing import Final

import valuechain
from bench.common import Timing, console, report, timed
from bench.materialize import BASELINE, SMALL, build_store
from valuechain.contract.verdict_policy import VerdictPolicyFile
from valuechain.materialize.analytics import drop_temp_tables, epoch_ms, parameters, utc_now
from valuechain.materialize.verdict import write_decision_summaries
from valuechain.store import Database, sqlfiles
from valuechain.synth import SynthConfig, write_export

SAMPLES: Final = 9
SYNTH: Final = SynthConfig(
    runs=20, cases=20, models=2, reps=3, seed=3, failures=True, verdict_policy=True
)


def _rolled_back(db: Database, fn: object) -> int:
    db.con.begin()
    try:
        return int(fn())  # type: ignore[operator]
    finally:
        db.con.rollback()


def _analytics_only(db: Database) -> int:
    """The analytics statements alone (no decision summaries), rolled back."""
    params = parameters(None, epoch_ms(utc_now()))
    db.con.begin()
    try:
        for sql in sqlfiles.folder("analytics"):
            db.con.execute(sql.text, sql.bind(params))
        return int(db.con.execute("SELECT count(*) FROM a_documents").fetchall()[0][0])
    finally:
        db.con.rollback()
        drop_temp_tables(db.con)


def _median_one_run(db: Database, runs: list[str]) -> float:
    times = []
    for run in runs:
        start = time.perf_counter()
        _rolled_back(db, lambda run=run: write_decision_summaries(db.con, [run]))
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def _suite(db: Database, label: str, rows: float) -> list[Timing]:
    runs = [
        str(r[0])
        for r in db.con.execute(
            "SELECT DISTINCT run_id FROM core.trials ORDER BY hash(run_id) LIMIT $k", {"k": SAMPLES}
        ).fetchall()
    ]
    timings = [
        timed(
            f"group by [{label}]",
            lambda: len(db.con.execute(BASELINE).fetchall()),
            rows,
            repeat=3,
            item_name="rows",
        ),
        timed(f"analytics [{label}]", lambda: _analytics_only(db), rows, item_name="documents"),
        timed(
            f"decision summaries [{label}]",
            lambda: _rolled_back(db, lambda: write_decision_summaries(db.con, None)),
            rows,
            item_name="summaries",
        ),
    ]
    timings.append(Timing(f"one run [{label}]", _median_one_run(db, runs), rows, 1, "runs"))
    return timings


def run(size_mb: int) -> None:
    """Run the suite (``size_mb`` is ignored: both stores have fixed shapes)."""
    del size_mb
    with tempfile.TemporaryDirectory(prefix="valuechain-bench-") as tmp:
        legacy = build_store(Path(tmp) / "legacy.duckdb", SMALL)
        million = legacy.con.execute("SELECT count(*) FROM core.stage_chain").fetchall()[0][0] / 1e6
        timings = _suite(legacy, "100k legacy", million)
        legacy.close()

        export = Path(tmp) / "synth.json"
        write_export(export, SYNTH)
        path = Path(tmp) / "synth.duckdb"
        with valuechain.open(path) as store:
            store.import_paths([export], workers=0)
            v2 = store.db
            rows = v2.con.execute("SELECT count(*) FROM core.stage_chain").fetchall()[0][0] / 1e6
            timings += _suite(v2, "synth v2", rows)
            run_id = str(v2.con.execute("SELECT min(run_id) FROM core.trials").fetchall()[0][0])
            policy = VerdictPolicyFile(min_eligible_trials=1)
            times = []
            for _ in range(SAMPLES):
                start = time.perf_counter()
                store.verdict(run_id, policy=policy)
                times.append(time.perf_counter() - start)
            timings.append(
                Timing("verdict --policy [synth v2]", statistics.median(times), rows, 1, "runs")
            )

    report("decision summaries ('MB' = million chain rows)", timings, baseline=timings[0].name)
    floors = {t.name.split("[")[1]: t.seconds for t in timings if t.name.startswith("group by")}
    for t in timings:
        label = t.name.split("[")[1]
        console.print(
            f"{t.name}: {t.seconds:.3f} s = {t.seconds / floors[label]:.1f}x its GROUP BY"
        )
