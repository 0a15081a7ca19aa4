"""The derive step end to end: import → trials, chains, outcomes, measurements in the store.

The spec example export (TRACE-FORMAT §3.9) carries the producer's persisted chain for all
eight trials; valuechain's own analyzer must agree with every row of it.
"""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pytest

import valuechain
from valuechain.pipeline.derive import TraceBatch, derive_traces, run_batches
from valuechain.synth import SynthConfig, write_export

EXAMPLE = "spec/examples/mcpjam-eval-run-2cases-2models-2reps.otlp.json"


@pytest.fixture
def example(shared: Path) -> Path:
    return shared / EXAMPLE


@pytest.fixture
def store(example: Path) -> valuechain.Store:
    s = valuechain.open(":memory:")
    s.import_paths([example])
    return s


def chain_rows(store: valuechain.Store) -> list[tuple[object, ...]]:
    return store.sql(
        "SELECT trial_id, source, analyzer_version, stage_index, state, reason, evidence "
        "FROM stage_chain ORDER BY ALL"
    ).rows()


def test_example_derived_chains_equal_the_persisted_rows(store: valuechain.Store) -> None:
    counts = store.sql(
        "SELECT source, analyzer_version, count(DISTINCT trial_id) AS trials, count(*) AS rows "
        "FROM stage_chain GROUP BY ALL ORDER BY ALL"
    ).rows()
    assert counts == [("derived", 12, 8, 48), ("producer", 12, 8, 48)]
    assert store.sql("SELECT * FROM chain_disagreements").height == 0
    outcomes = store.sql(
        "SELECT d.trial_id FROM trial_outcome d JOIN trial_outcome p USING (trial_id) "
        "WHERE d.source = 'derived' AND p.source = 'producer' AND ("
        "d.first_failed_stage IS DISTINCT FROM p.first_failed_stage OR "
        "d.failure_category IS DISTINCT FROM p.failure_category)"
    )
    assert outcomes.height == 0


def test_every_chain_has_six_rows_in_stage_order(store: valuechain.Store) -> None:
    stages = store.sql(
        "SELECT trial_id, source, list(stage ORDER BY stage_index) AS stages "
        "FROM stage_chain GROUP BY ALL"
    )
    expected = ["connection", "discovery", "selection", "call", "response", "userValue"]
    assert all(s == expected for s in stages["stages"].to_list())


def test_trials_carry_identity_and_measurements_are_verified(store: valuechain.Store) -> None:
    trials = store.sql("SELECT * FROM trials")
    assert trials.height == 8
    assert trials["run_id"].n_unique() == 1
    assert set(trials["provider"].to_list()) >= {"openai"} or trials["provider"].null_count() == 0
    assert (
        store.sql(
            "SELECT count(*) AS n FROM trial_outcome WHERE source = 'derived' "
            "AND chain_verified AND measurements_verified"
        )["n"][0]
        == 8
    )
    assert (
        store.sql("SELECT count(*) AS n FROM stage_measurements WHERE source = 'derived'")["n"][0]
        == 48
    )


def test_reimport_and_rederive_do_not_duplicate(store: valuechain.Store, example: Path) -> None:
    before = chain_rows(store)
    store.import_paths([example])  # same bytes: unchanged, nothing rederived
    assert chain_rows(store) == before
    store.derive()  # explicit re-derivation at 12 replaces, never appends
    assert chain_rows(store) == before


def test_analyzer_11_is_stored_beside_12(store: valuechain.Store) -> None:
    summary = store.derive(analyzer=11)
    assert summary.derived == 8
    versions = store.sql(
        "SELECT DISTINCT analyzer_version FROM stage_chain WHERE source = 'derived' ORDER BY 1"
    )["analyzer_version"].to_list()
    assert versions == [11, 12]
    trial_id = store.sql("SELECT min(trial_id) AS t FROM trials")["t"][0]
    assert store.trial(trial_id, analyzer=11).analyzer_version == 11
    assert store.trial(trial_id).analyzer_version == 12  # readers default to the current one


def test_no_derive_imports_spans_only(example: Path) -> None:
    s = valuechain.open(":memory:")
    report = s.import_paths([example], derive=False)
    assert report.derived is None
    assert s.sql("SELECT count(*) AS n FROM stage_chain")["n"][0] == 0
    assert s.sql("SELECT count(*) AS n FROM spans")["n"][0] == 72
    pending = s.pending_derivation()
    assert pending is not None and (pending.sources, pending.traces) == (1, 8)
    assert report.pending == pending


def test_pending_sources_are_derived_at_the_analyzer_their_import_asked_for(
    example: Path, tmp_path: Path
) -> None:
    other = tmp_path / "other.jsonl"
    write_export(other, SynthConfig(runs=1, cases=2, models=1, reps=1, seed=5), ndjson=True)
    s = valuechain.open(":memory:")
    s.import_paths([example], derive=False, analyzer=11)
    s.import_paths([other], derive=False)
    done = s.complete_pending()
    assert done is not None and done.trials == 8 + 2
    versions = s.sql(
        "SELECT DISTINCT t.source_id, c.analyzer_version FROM stage_chain c "
        "JOIN trials t USING (trial_id) WHERE c.source = 'derived' ORDER BY ALL"
    ).rows()
    assert versions == [(1, 11), (2, 12)]
    assert s.pending_derivation() is None
    assert s.complete_pending() is None  # nothing left: a no-op


def test_batched_derivation_equals_one_batch(shared: Path, tmp_path: Path) -> None:
    """Cutting a derivation into batches of whole runs changes nothing in the result."""
    export = tmp_path / "three-runs.jsonl"
    write_export(export, SynthConfig(runs=3, cases=2, models=1, reps=2, seed=4), ndjson=True)
    one = valuechain.open(":memory:")
    one.import_paths([export])
    many = valuechain.open(":memory:")
    many.import_paths([export], derive=False)
    summary = derive_traces(many.db, None, batch_traces=3)  # a run (4 traces) per batch
    assert summary.trials == 12 and len(summary.run_ids) == 3
    assert chain_rows(many) == chain_rows(one)
    assert [len(b.traces) for b in run_batches(many.db.trace_runs(), 3)] == [4, 4, 4]


def _traces(batches: list[TraceBatch]) -> list[list[bytes]]:
    return [batch.traces for batch in batches]


def _trace_runs(rows: list[tuple[str, str, int, int]]) -> pa.Table:
    names = ["trace_id", "run_key", "first_span_row", "last_span_row"]
    columns = list(zip(*[(t.encode(), k, first, last) for t, k, first, last in rows], strict=True))
    types = [pa.binary(), pa.string(), pa.int64(), pa.int64()]
    return pa.table([pa.array(c, t) for c, t in zip(columns, types, strict=True)], names=names)


def test_run_batches_keep_runs_whole_and_widen_touched_traces() -> None:
    keys = {"a1": "A", "a2": "A", "b1": "B", "c1": "C", "c2": "C", "c3": "C"}
    rows = _trace_runs([(t, key, 10 * k, 10 * k + 9) for k, (t, key) in enumerate(keys.items())])
    assert _traces(run_batches(rows, 3)) == [[b"a1", b"a2", b"b1"], [b"c1", b"c2", b"c3"]]
    assert _traces(run_batches(rows, 1)) == [[b"a1", b"a2"], [b"b1"], [b"c1", b"c2", b"c3"]]
    assert _traces(run_batches(rows, 10, touched=[b"c2"])) == [[b"c1", b"c2", b"c3"]]
    assert run_batches(rows, 10, touched=[]) == []


def test_a_batch_spans_the_rows_of_its_traces_and_keeps_runs_whole() -> None:
    rows = _trace_runs([("a1", "A", 40, 49), ("b1", "B", 20, 29), ("a2", "A", 0, 9)])
    two = [TraceBatch([b"a1", b"a2"], (0, 49)), TraceBatch([b"b1"], (20, 29))]
    assert run_batches(rows, 2) == two
    assert run_batches(rows, 3) == [TraceBatch([b"a1", b"a2", b"b1"], (0, 49))]
    chunked = pa.concat_tables([rows.slice(0, 2), rows.slice(2)])  # run A across two chunks
    assert run_batches(chunked, 2) == two


# Scenarios whose evidence touches a §7.2 difference (see valuechain.synth.CATALOGUE).
AFFECTED = {"predicate_failed_discovery"}


def test_analyzer_11_and_12_differ_only_where_section_7_2_says(tmp_path: Path) -> None:
    export = tmp_path / "failures.jsonl"
    write_export(
        export,
        SynthConfig(runs=1, cases=12, models=2, reps=10, seed=11, failures=True),
        ndjson=True,
    )
    store = valuechain.open(":memory:")
    store.import_paths([export])
    store.derive(analyzer=11)
    differing = store.sql(
        """
        SELECT a.key AS scenario_key, a.string_value AS scenario, c12.trial_id, c12.stage,
               c11.state AS state_11, c11.reason AS reason_11,
               c12.state AS state_12, c12.reason AS reason_12
        FROM stage_chain c12
        JOIN stage_chain c11
          ON c11.trial_id = c12.trial_id AND c11.stage_index = c12.stage_index
         AND c11.source = 'derived' AND c11.analyzer_version = 11
        JOIN trials t ON t.trial_id = c12.trial_id
        JOIN spans s ON s.trace_id = t.trace_id AND s.mcp_app_role = 'trial'
        JOIN attributes a ON a.owner_type = 'span' AND a.owner_row = s.span_row
         AND a.key = 'valuechain.synth.scenario'
        WHERE c12.source = 'derived' AND c12.analyzer_version = 12
          AND (c11.state IS DISTINCT FROM c12.state OR c11.reason IS DISTINCT FROM c12.reason)
        """
    )
    assert differing.height > 0, "the export must exercise a §7.2 difference"
    assert set(differing["scenario"].to_list()) <= AFFECTED
    # (a): at 12 the failed catalog check fails discovery; at 11 it reached userValue instead
    discovery = differing.filter(differing["stage"] == "discovery")
    assert set(discovery["reason_12"].to_list()) == {"predicateFailed"}
    assert set(discovery["state_11"].to_list()) == {"passed"}
    stamped = store.sql(
        "SELECT DISTINCT analyzer_version FROM trial_outcome WHERE source = 'derived' ORDER BY 1"
    )["analyzer_version"].to_list()
    assert stamped == [11, 12]
