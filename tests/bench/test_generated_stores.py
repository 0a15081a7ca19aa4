"""The benchmarks' generated stores keep up with the store schema.

``bench/`` writes its large stores straight into ``core.*`` with SQL (no import), so a new
column in the schema breaks a suite only when somebody runs it — the materialize suite was
found crashing that way. These tests build each generated store small and run the step the
suite times, so a schema change that the benchmarks miss fails here instead.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bench import derive as bench_derive
from bench import materialize as bench_materialize
from valuechain.materialize.analytics import materialize_runs
from valuechain.materialize.verdict import write_decision_summaries
from valuechain.pipeline.imports import ImportOptions, import_paths
from valuechain.store import Database

TRIALS, PER_RUN = 1_000, 200


def test_the_materialize_store_materializes_every_run(tmp_path: Path) -> None:
    db = bench_materialize.build_store(tmp_path / "m.duckdb", TRIALS, PER_RUN)
    try:
        runs = db.con.execute("SELECT count(DISTINCT run_id) FROM core.trials").fetchone()
        assert runs == (TRIALS // PER_RUN,)
        # one document per run and chain source (some runs carry a producer chain too)
        chains = db.con.execute(
            "SELECT count(DISTINCT (run_id, source)) FROM core.stage_chain"
        ).fetchone()
        assert chains is not None and chains[0] > TRIALS // PER_RUN
        assert materialize_runs(db.con) == chains[0]  # every document validated
        db.con.begin()
        assert write_decision_summaries(db.con, None) > 0
        db.con.commit()
        baseline = db.con.execute(bench_materialize.BASELINE).fetchall()
        assert {row[0] for row in baseline} == {
            row[0] for row in db.con.execute("SELECT run_id FROM core.trials").fetchall()
        }
    finally:
        db.close()


def test_the_derive_read_floor_reads_every_row_in_slices(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The floor reads what the step reads — every span and attribute row — a slice at a time
    (read whole, a 1M-trial store's attribute rows took ~24 GB)."""
    sample = Path(__file__).parents[2] / "fixtures" / "sample" / "sample-export.otlp.jsonl.gz"
    with Database(tmp_path / "d.duckdb") as db:
        import_paths(db, [sample], ImportOptions(derive=False))
        spans, attributes = (
            db.con.execute(f"SELECT count(*) FROM core.{t}").fetchall()[0][0]
            for t in ("spans", "attributes")
        )
        monkeypatch.setattr(bench_derive, "FLOOR_SLICE_ROWS", 7)
        parts = list(bench_derive.floor_reads(db))
        assert len(parts) > 2 and max(p.num_rows for p in parts) <= 7
        assert sum(p.num_rows for p in parts) == spans + attributes > 0
        read = {name for p in parts for name in p.column_names}
        assert {"span_row", "owner_row", "string_value"} <= read
