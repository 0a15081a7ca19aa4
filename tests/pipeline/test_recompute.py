"""Recompute (issue 14, CONTRACT §7.3): stale-only, batched, resumable, dry-run, prune.

The stores are synthetic failure-scenario exports (every trial a failure scenario, some of
them failing a discovery catalog check, which analyzer 11 routes to userValue) imported with
``--analyzer 11``, copied per test from one module-wide template.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import polars as pl
import pytest

import valuechain
from valuechain.contract.tables import STORED_TABLES
from valuechain.derive.routing import KIND_TABLE
from valuechain.errors import UsageError, VersionAheadError
from valuechain.materialize.analytics import materialize_in_transaction, materialize_runs
from valuechain.pipeline import recompute as recompute_module
from valuechain.pipeline.derive import (
    DEFAULT_BATCH_TRACES,
    TraceBatch,
    derive_traces,
    load_trials,
    staged_batches,
    write_batch,
)
from valuechain.pipeline.imports import ImportOptions, import_paths
from valuechain.pipeline.recompute import RECOMPUTE_BATCH_TRACES, plan_recompute, recompute
from valuechain.query.trend import PARTITION_KEY
from valuechain.store import Database
from valuechain.synth import SynthConfig, write_export

RUNS = 3
# CONTRACT §3.3 (pinned by tests/derive/test_derive_analyzer11.py): the kinds added after
# analyzer 11, each with the stage analyzer 12 routes it to; analyzer 11 lets them fall through
# to userValue (§7.2 (b)).
LATER_KINDS = {
    kind: stage.value
    for kind, stage, v11 in KIND_TABLE
    if v11 is None and kind != "responseCloseTo"
}
_TIMES = ("created_at", "updated_at")


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store of RUNS runs imported at analyzer 11 (a file, copied by each test)."""
    folder = tmp_path_factory.mktemp("recompute")
    export = folder / "failures.jsonl"
    write_export(
        export,
        SynthConfig(runs=RUNS, cases=6, models=2, reps=2, seed=7, failures=True),
        ndjson=True,
    )
    path = folder / "template.duckdb"
    with Database(path) as db:
        assert import_paths(db, [export], ImportOptions(analyzer=11)).ok
    return path


@pytest.fixture
def store_path(template: Path, tmp_path: Path) -> Path:
    path = tmp_path / "store.duckdb"
    shutil.copy(template, path)
    return path


@pytest.fixture
def db(store_path: Path) -> Any:
    with Database(store_path) as database:
        yield database


def dump(db: Database) -> dict[str, list[tuple[object, ...]]]:
    """Every stored row of every table, sorted; materialization times left out."""
    out: dict[str, list[tuple[object, ...]]] = {}
    for table, schema in STORED_TABLES.items():
        columns = [n for n in schema.names if n not in _TIMES]
        select = ", ".join(f'"{c}"' for c in columns)
        rows = db.con.execute(f"SELECT {select} FROM core.{table}").fetchall()
        if table == "analytics_documents":
            rows = [(*row[:3], _untimed(row[3])) for row in rows]
        out[table] = sorted(rows, key=repr)
    return out


def _untimed(document: str) -> str:
    parsed = orjson.loads(document)
    for key in ("createdAt", "updatedAt"):
        parsed.pop(key, None)
    return orjson.dumps(parsed, option=orjson.OPT_SORT_KEYS).decode()


def derived_versions(db: Database) -> dict[str, list[int]]:
    """run → the analyzer versions of its derived-chain documents (the trend partitions)."""
    rows = db.con.execute(
        "SELECT run_id, list(analyzer_version ORDER BY analyzer_version) FROM core.analytics_runs "
        "WHERE chain_source = 'derived' GROUP BY run_id"
    ).fetchall()
    return dict(rows)


def changed_rows(db: Database) -> dict[str, set[tuple[object, ...]]]:
    """trial → its stage rows that differ between analyzer 11 and 12."""
    rows = db.con.execute(
        "SELECT a.trial_id, a.stage, a.state, a.reason, b.state, b.reason "
        "FROM core.stage_chain a JOIN core.stage_chain b USING (trial_id, run_id, stage_index) "
        "WHERE a.source = 'derived' AND b.source = 'derived' "
        "AND a.analyzer_version = 11 AND b.analyzer_version = 12 "
        "AND (a.state <> b.state OR a.reason IS DISTINCT FROM b.reason)"
    ).fetchall()
    out: dict[str, set[tuple[object, ...]]] = {}
    for trial, *row in rows:
        out.setdefault(trial, set()).add(tuple(row))
    return out


def predicted_stages(db: Database) -> dict[str, set[str]]:
    """trial → the stages §7.2's two differences can touch, read from its evidence alone."""
    traces = [bytes(t) for (t,) in db.con.execute("SELECT trace_id FROM core.trials").fetchall()]
    evidence = load_trials(db, traces)
    out: dict[str, set[str]] = {}
    for trial_id, inp in zip(evidence.trials["trial_id"].to_pylist(), evidence.inputs, strict=True):
        if inp is None:
            continue
        ev, stages = inp.evidence, set()
        for row in ev.predicate_results:
            ref = row.predicate
            gating = row.status != "error" and (ref is None or ref.role != "advisory")
            if gating and ref is not None and ref.kind_ in LATER_KINDS:
                stages |= {LATER_KINDS[ref.kind_], "userValue"}  # (b): routed vs fell through
        discovery = ev.setup_signals.discovery if ev.setup_signals else None
        tools = any(s.category == "tool" for s in ev.spans) or bool(
            ev.tool_signals and (ev.tool_signals.tools_total_before or 0) > 0
        )
        if discovery is not None and discovery.outcome == "failed" and tools:
            stages.add("discovery")  # (a): a failed tools/list now outranks tool evidence
        if stages:
            out[trial_id] = stages
    return out


def nightly_series(folder: Path) -> tuple[Path, Path]:
    """One suite's nightly series of RUNS runs sharing a run group (so one trend partition):
    the first RUNS - 1 runs in ``older.jsonl``, the last one in ``later.jsonl``. The synthetic
    export gives each run its own group; the series rewrites them to one (a line is a trace)."""
    export = folder / "nightly.jsonl"
    write_export(
        export,
        SynthConfig(runs=RUNS, cases=6, models=2, reps=2, seed=7, failures=True),
        ndjson=True,
    )
    group = re.compile(r'(run\.group_id","value":\{"stringValue":")[0-9a-f]{32}')
    lines = [group.sub(r"\g<1>nightly", line) for line in export.read_text().splitlines(True)]
    per_run = len(lines) // RUNS
    older, later = folder / "older.jsonl", folder / "later.jsonl"
    older.write_text("".join(lines[:-per_run]))
    later.write_text("".join(lines[-per_run:]))
    return older, later


def partitions(trend: pl.DataFrame) -> dict[tuple[object, ...], list[str]]:
    """Trend partition key → its runs, in series order."""
    out: dict[tuple[object, ...], list[str]] = {}
    for row in trend.sort("trend_order").iter_rows(named=True):
        runs = out.setdefault(tuple(row[k] for k in PARTITION_KEY), [])
        if row["run_id"] not in runs:
            runs.append(row["run_id"])
    return out


def stage_tallies(trend: pl.DataFrame) -> dict[tuple[str, str], tuple[object, ...]]:
    """(run, stage) → the counts behind its three rates."""
    columns = [c for c in trend.columns if c.endswith(("_numerator", "_denominator"))]
    return {
        (row["run_id"], row["stage"]): tuple(row[c] for c in columns)
        for row in trend.iter_rows(named=True)
    }


def test_the_upgrade_path_from_11_to_12(tmp_path: Path) -> None:
    """Import a series at 11 beside its latest run at 12: the trend partitions split by
    analyzer version; recompute; they join; exactly the rows §7.2 predicts change."""
    older, later = nightly_series(tmp_path)
    with valuechain.open(tmp_path / "store.duckdb") as store:
        assert store.import_paths([older], analyzer=11).ok
        assert store.import_paths([later]).ok  # at the current analyzer
        (latest,) = store.trend()["run_id"].unique().to_list()
        old_runs = sorted(store.trend_blocked()["run_id"].to_list())  # unmeasured at 12
        assert len(old_runs) == RUNS - 1 and latest not in old_runs
        at_11 = store.trend(analyzer=11)
        ((key_11, series),) = partitions(at_11).items()  # the old runs, by completion
        assert sorted(series) == old_runs
        ((key_12, only),) = partitions(store.trend()).items()
        assert only == [latest]
        assert key_11[:3] == key_12[:3] and (key_11[3], key_12[3]) == (11, 12)  # only analyzer
        assert sorted(store.runs()["stale"].to_list()) == [False] + [True] * (RUNS - 1)

        result = store.recompute()
        assert result.plan.trials_behind == (RUNS - 1) * 24
        assert sorted(result.runs) == old_runs
        joined = store.trend()
        assert partitions(joined) == {key_12: [*series, latest]}  # one series again
        assert store.trend_blocked().height == 0
        assert store.trend(analyzer=11).equals(at_11)  # the old version stays beside
        assert not any(store.runs()["stale"].to_list())

        run_of = dict(store.db.con.execute("SELECT trial_id, run_id FROM core.trials").fetchall())
        changed = changed_rows(store.db)
        predicted = {t: s for t, s in predicted_stages(store.db).items() if run_of[t] != latest}
        assert changed, "the scenarios include failed discovery catalog checks"
        assert set(changed) == set(predicted)
        for trial, rows in changed.items():
            assert {stage for stage, *_ in rows} <= predicted[trial], trial
        catalog = {("discovery", "passed", "observed", "failed", "predicateFailed")}
        assert all(catalog <= rows for rows in changed.values())
        # The trend moves exactly where the chains did: per old run, the stages whose tallies
        # differ between 11 and 12 are among those its trials' evidence predicts.
        expected: dict[str, set[str]] = {}
        for trial, stages in predicted.items():
            expected.setdefault(run_of[trial], set()).update(stages)
        before, after = stage_tallies(at_11), stage_tallies(joined)
        moved: dict[str, set[str]] = {}
        for (run, stage), counts in before.items():
            if after[(run, stage)] != counts:
                moved.setdefault(run, set()).add(stage)
        assert moved and all(moved[run] <= expected[run] for run in moved)
        assert all("discovery" in stages for stages in moved.values())


def test_a_second_recompute_is_a_no_op(db: Database) -> None:
    first = recompute(db)
    assert not first.nothing_stale and first.documents
    before = dump(db)
    second = recompute(db)
    assert second.nothing_stale and second.trials == 0 and second.documents == 0
    assert dump(db) == before


def documents_at(db: Database, version: int) -> list[tuple[object, ...]]:
    """Every stored row of the documents at ``version``, materialization times included."""
    rows: list[tuple[object, ...]] = []
    for table in ("analytics_runs", "analytics_documents", "analytics_slices", "stage_funnel"):
        rows += db.con.execute(
            f"SELECT '{table}', * FROM core.{table} WHERE analyzer_version = $v", {"v": version}
        ).fetchall()
    return sorted(rows, key=repr)


def test_recompute_writes_only_the_target_documents(db: Database) -> None:
    """The older documents are left untouched (not rebuilt: their times stay), and the store is
    what rebuilding every document from the chains would give."""
    old = documents_at(db, 11)
    result = recompute(db)
    assert result.documents == 2 * RUNS  # derived and producer documents at 12, per run
    assert documents_at(db, 11) == old
    after = dump(db)
    materialize_runs(db.con)  # every version of every run, from the stored chains
    assert dump(db) == after


def test_prune_rebuilds_as_a_full_materialization_would(db: Database) -> None:
    runs = sorted(derived_versions(db))
    recompute(db, runs=runs[:2])
    at_12 = documents_at(db, 12)
    recompute(db, runs=runs[:2], prune=True)
    assert documents_at(db, 12) == at_12  # the target's documents are not rebuilt
    after = dump(db)
    materialize_runs(db.con)
    assert dump(db) == after


def test_dry_run_changes_nothing_and_predicts_the_flips(db: Database) -> None:
    before = dump(db)
    preview = recompute(db, dry_run=True, prune=True)
    assert dump(db) == before
    assert preview.dry_run and preview.trials == RUNS * 24 and len(preview.runs) == RUNS
    assert preview.pruned.height == 0  # nothing at 12 yet: nothing an old chain stands beside
    recompute(db)
    flips = {
        (r["stage"], r["from_state"], r["from_reason"], r["to_state"], r["to_reason"]): r["rows"]
        for r in preview.flips.iter_rows(named=True)
    }
    actual: dict[tuple[object, ...], int] = {}
    for rows in changed_rows(db).values():
        for row in rows:
            actual[row] = actual.get(row, 0) + 1
    assert flips == actual and flips
    assert set(preview.flips["from_analyzer"].to_list()) == {11}


def test_prune_removes_only_older_derived_chains_that_have_a_newer_one(db: Database) -> None:
    runs = sorted(derived_versions(db))
    recompute(db, runs=runs[:2])  # the last run keeps analyzer 11 alone
    untouched = {
        t: dump(db)[t] for t in ("spans", "attributes", "trials", "setup_signals", "trial_flags")
    }
    producer = db.con.execute(
        "SELECT * FROM core.stage_chain WHERE source = 'producer' ORDER BY ALL"
    ).fetchall()
    result = recompute(db, prune=True)
    assert result.plan.batches  # the last run is still behind: recompute does it first
    assert set(result.pruned["run_id"].to_list()) == set(runs)
    assert derived_versions(db) == {run: [12] for run in runs}
    versions = db.con.execute(
        "SELECT source, list(DISTINCT analyzer_version ORDER BY analyzer_version) "
        "FROM core.trial_outcome GROUP BY source ORDER BY source"
    ).fetchall()
    assert versions == [("derived", [12]), ("producer", [12])]
    assert (
        db.con.execute(
            "SELECT * FROM core.stage_chain WHERE source = 'producer' ORDER BY ALL"
        ).fetchall()
        == producer
    )
    assert {t: dump(db)[t] for t in untouched} == untouched


def test_prune_keeps_an_old_chain_with_no_newer_one_beside_it(db: Database) -> None:
    runs = sorted(derived_versions(db))
    recompute(db, runs=runs[:1], prune=True)
    assert derived_versions(db) == {run: [12] if run == runs[0] else [11] for run in runs}


def test_changed_evidence_is_stale_and_rederived(db: Database, tmp_path: Path) -> None:
    recompute(db)
    extra = tmp_path / "later.jsonl"
    write_export(extra, SynthConfig(runs=1, cases=2, models=1, reps=1, seed=5), ndjson=True)
    assert import_paths(db, [extra], ImportOptions(derive=False)).ok
    (trace,) = db.con.execute("SELECT trace_id FROM core.trials LIMIT 1").fetchall()[0:1]
    db.con.execute(
        "UPDATE core.derived_evidence SET span_count = span_count - 1 WHERE trace_id = $t",
        {"t": trace[0]},
    )
    plan = plan_recompute(db, 12)
    assert plan.traces_changed == 2 + 1  # two never-derived traces, one changed since
    assert plan.trials_behind == 0
    assert all(batch.evidence_changed for batch in plan.batches)
    result = recompute(db)
    assert result.trials >= 2 + 24  # the new run and the whole run of the changed trace
    assert recompute(db).nothing_stale


def test_derive_on_demand_stamps_only_what_it_made_whole(db: Database, tmp_path: Path) -> None:
    """Imported without deriving, then derived at 11 and at 12 by hand: nothing is stale, both
    versions stay. A hand derive at one version over changed evidence does not hide it."""
    extra = tmp_path / "later.jsonl"
    write_export(extra, SynthConfig(runs=1, cases=2, models=1, reps=1, seed=5), ndjson=True)
    assert import_paths(db, [extra], ImportOptions(derive=False)).ok
    assert plan_recompute(db, 12).traces_changed == 2
    derive_traces(db, None, analyzer=11, content_changed=False)
    derive_traces(db, None, analyzer=12, content_changed=False)
    assert recompute(db).nothing_stale
    assert set(map(tuple, derived_versions(db).values())) == {(11, 12)}
    db.con.execute("UPDATE core.derived_evidence SET last_span_row = -1")  # evidence changed
    derive_traces(db, None, analyzer=12, content_changed=False)
    assert plan_recompute(db, 12).traces_changed == RUNS * 24 + 2


def test_a_newer_target_or_an_unknown_one_is_refused(db: Database) -> None:
    with pytest.raises(VersionAheadError, match="newer than this valuechain's analyzer"):
        recompute(db, analyzer=13)
    with pytest.raises(UsageError, match="not an analyzer valuechain can derive at"):
        recompute(db, analyzer=10)


@pytest.mark.parametrize(
    ("ahead", "message"),
    [
        (
            "INSERT INTO core.stage_chain SELECT trial_id, run_id, source, 13, stage_index, "
            "stage, state, reason, evidence FROM core.stage_chain WHERE source = 'derived' "
            "LIMIT 6",
            "1 derived chains at analyzer 13",
        ),
        (
            "INSERT INTO core.analytics_runs SELECT * REPLACE (14 AS analyzer_version) "
            "FROM core.analytics_runs WHERE chain_source = 'derived' LIMIT 1",
            "1 analytics documents at analyzer 14",
        ),
    ],
)
def test_a_store_with_chains_ahead_is_refused_untouched(
    db: Database, ahead: str, message: str
) -> None:
    db.con.execute(ahead)
    before = dump(db)
    for dry_run in (True, False):
        with pytest.raises(VersionAheadError, match=message):
            recompute(db, dry_run=dry_run, prune=True)
    assert dump(db) == before


_KILL_AFTER_FIRST_BATCH = """
import os, signal, sys
from valuechain.pipeline.recompute import recompute
from valuechain.store import Database

def die(done, total, trials):
    assert total == {runs}, total
    os.kill(os.getpid(), signal.SIGKILL)  # between batches: the first one is committed

db = Database(sys.argv[1])
recompute(db, batch_traces=1, on_batch=die)
"""


def test_an_interrupted_recompute_resumes_to_the_same_store(
    store_path: Path, tmp_path: Path
) -> None:
    whole = tmp_path / "whole.duckdb"
    shutil.copy(store_path, whole)
    with Database(whole) as db:
        assert len(recompute(db, batch_traces=1).plan.batches) == RUNS
        expected = dump(db)
    killed = subprocess.run(
        [sys.executable, "-c", _KILL_AFTER_FIRST_BATCH.format(runs=RUNS), str(store_path)],
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
        capture_output=True,
        check=False,
    )
    assert killed.returncode == -signal.SIGKILL, killed.stderr.decode()
    with Database(store_path) as db:
        assert sorted(derived_versions(db).values()) == [[11]] * (RUNS - 1) + [[11, 12]]
        resumed = recompute(db, batch_traces=1)
        assert len(resumed.plan.batches) == RUNS - 1
        assert dump(db) == expected


TRIALS_PER_RUN = 24  # 6 cases x 2 models x 2 repetitions, one trace each


@pytest.mark.parametrize(
    ("batch_traces", "stage_traces", "commits", "chunks"),
    [
        (1, 1, RUNS, RUNS),  # a run per commit, staged alone
        (2 * TRIALS_PER_RUN, TRIALS_PER_RUN, 2, RUNS),  # two runs, then one
        (RECOMPUTE_BATCH_TRACES, TRIALS_PER_RUN, 1, RUNS),  # the default: one commit for all
        (RECOMPUTE_BATCH_TRACES, DEFAULT_BATCH_TRACES, 1, 1),
    ],
)
def test_a_batch_is_staged_in_chunks_and_committed_with_one_materialization(
    store_path: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    batch_traces: int,
    stage_traces: int,
    commits: int,
    chunks: int,
) -> None:
    """Chunks are staged as the derive step stages, but each batch of whole runs is one write
    and one materialization of its runs (one per chunk cost a recompute twice the derive step
    that wrote the chains); the store is the same however the work is cut."""
    reference = tmp_path / "reference.duckdb"
    shutil.copy(store_path, reference)
    with Database(reference) as db:
        recompute(db, batch_traces=1, stage_traces=1)
        expected = dump(db)
    staged: list[int] = []
    writes: list[int] = []
    materialized: list[list[str]] = []

    def staging(db: Database, batches: list[TraceBatch], analyzer: int) -> Any:
        staged.extend(len(b.traces) for b in batches)
        return staged_batches(db, batches, analyzer)

    def write(db: Database, batch: Any, analyzer: int, changed: bool, then: Any) -> None:
        writes.append(batch.traces.num_rows)
        write_batch(db, batch, analyzer, changed, then=then)

    def materialize(con: Any, runs: list[str], **kwargs: Any) -> int:
        materialized.append(runs)
        return materialize_in_transaction(con, runs, **kwargs)

    monkeypatch.setattr(recompute_module, "staged_batches", staging)
    monkeypatch.setattr(recompute_module, "write_batch", write)
    monkeypatch.setattr(recompute_module, "materialize_in_transaction", materialize)
    with Database(store_path) as db:
        result = recompute(db, batch_traces=batch_traces, stage_traces=stage_traces)
        assert len(result.plan.batches) == commits
        assert len(staged) == chunks and sum(staged) == RUNS * TRIALS_PER_RUN
        assert len(writes) == commits and sum(writes) == RUNS * TRIALS_PER_RUN
        assert [len(runs) for runs in materialized] == [
            len(b.stored_run_ids) for b in result.plan.batches
        ]
        assert sorted(r for runs in materialized for r in runs) == sorted(result.runs)
        assert dump(db) == expected
