"""The bulk derive path against the per-trial construction it replaced, and the worker pool.

`reference_tables` is the former per-trial build of the derived tables (one `StageSpan` per
stored span, measurements over every span of the trial, the outcome dict filled row by row),
kept here as the oracle: over synthetic exports with every failure scenario, foreign traces
and the spec example, `staging.stage_evidence` must give byte-identical Arrow tables, and the
pool of worker processes (`staged_batches`) the same rows as one in-process batch.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from enum import Enum
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pytest

from valuechain.contract.chain import StageDerivation
from valuechain.contract.tables import STAGE_CHAIN, STAGE_MEASUREMENTS, TRIAL_OUTCOME
from valuechain.contract.versions import STAGE_MEASUREMENTS_SCHEMA_VERSION
from valuechain.contract.vocab_rules import STAGES
from valuechain.derive import derive_chains, derive_measurements, stage_measurement_disagreements
from valuechain.evidence.frames import ordered_attributes
from valuechain.evidence.trials import TrialEvidence
from valuechain.pipeline import derive, staging
from valuechain.pipeline.imports import ImportOptions, import_paths
from valuechain.store import Database
from valuechain.synth import SynthConfig, write_export

EXAMPLE = "spec/examples/mcpjam-eval-run-2cases-2models-2reps.otlp.json"


def reference_tables(
    evidence: TrialEvidence, chains: list[StageDerivation], analyzer: int
) -> tuple[pa.Table, pa.Table, pa.Table]:
    """The per-trial construction the bulk path replaced (the oracle)."""
    ids = evidence.trials.column("trial_id").to_pylist()
    runs = evidence.trials.column("run_id").to_pylist()
    chain_cols: dict[str, list[object]] = {n: [] for n in STAGE_CHAIN.names}
    meas_cols: dict[str, list[object]] = {n: [] for n in STAGE_MEASUREMENTS.names}
    outcome: dict[str, list[object]] = {n: [] for n in TRIAL_OUTCOME.names}
    derived = iter(chains)
    for i, inp in enumerate(evidence.inputs):
        if inp is None:
            continue
        chain = next(derived)
        measured = derive_measurements(chain, evidence.timed_spans(i))
        head = {"trial_id": ids[i], "run_id": runs[i], "source": "derived"}
        for k, r in enumerate(chain.stage_results):
            row = {**head, "analyzer_version": analyzer, "stage_index": k}
            row |= {"stage": r.stage.value, "state": r.state.value}
            row["reason"] = r.reason.value if r.reason else None
            row["evidence"] = staging._evidence_json(r.evidence.to_wire()) if r.evidence else None
            for name in STAGE_CHAIN.names:
                chain_cols[name].append(row[name])
        for k, m in enumerate(measured.rows):
            row = {**head, "analyzer_version": analyzer, "stage_index": k, "stage": m.stage.value}
            row["reach"] = m.reach.value
            row["latency_ms"] = float(m.latency.value) if m.latency else None
            for name in STAGE_MEASUREMENTS.names:
                meas_cols[name].append(row[name])
        values = {
            **head,
            "analyzer_version": analyzer,
            "first_failed_stage": chain.first_failed_stage,
            "failure_category": chain.failure_category,
            "chain_verified": len(chain.stage_results) == len(STAGES),
            "measurements_present": True,
            "measurements_verified": not stage_measurement_disagreements(
                measured, chain.stage_results, chain.stage_analyzer_version
            ),
            "measurements_agree": not stage_measurement_disagreements(
                measured, chain.stage_results, chain.stage_analyzer_version
            ),
            "measurements_schema_version": STAGE_MEASUREMENTS_SCHEMA_VERSION,
            "measurements_analyzer_version": measured.stage_analyzer_version,
        }
        for name in TRIAL_OUTCOME.names:
            value = values[name]
            outcome[name].append(value.value if isinstance(value, Enum) else value)

    def table(columns: dict[str, list[object]], schema: pa.Schema) -> pa.Table:
        return pa.table(columns, schema=schema) if columns["trial_id"] else schema.empty_table()

    return (
        table(chain_cols, STAGE_CHAIN),
        table(outcome, TRIAL_OUTCOME),
        table(meas_cols, STAGE_MEASUREMENTS),
    )


@pytest.fixture(scope="module")
def stores(tmp_path_factory: pytest.TempPathFactory, shared: Path) -> Iterator[list[Database]]:
    """Stores of stored (underived) evidence: failures, a redacted multi-run export, the example."""
    folder = tmp_path_factory.mktemp("staging")
    configs = {
        "failures.json": SynthConfig(runs=2, cases=6, models=2, reps=6, seed=7, failures=True),
        "redacted.jsonl": SynthConfig(runs=3, cases=4, models=2, reps=3, seed=5, redacted=True),
    }
    paths = []
    for name, config in configs.items():
        paths.append(folder / name)
        write_export(paths[-1], config, ndjson=name.endswith(".jsonl"))
    paths.append(shared / EXAMPLE)
    dbs = []
    for k, path in enumerate(paths):
        db = Database(folder / f"store-{k}.duckdb")
        assert import_paths(db, [path], ImportOptions(derive=False)).ok
        dbs.append(db)
    yield dbs
    for db in dbs:
        db.close()


def _traces(db: Database) -> list[bytes]:
    return list(db.trace_runs()["trace_id"].to_pylist())


@pytest.mark.parametrize("analyzer", [11, 12])
@pytest.mark.parametrize("store", [0, 1, 2])
def test_bulk_tables_equal_the_per_trial_construction(
    stores: list[Database], store: int, analyzer: int
) -> None:
    db = stores[store]
    rows = derive.batch_rows(db, derive.TraceBatch(_traces(db)))
    evidence = derive.build_trials(
        rows.spans, ordered_attributes(rows.attributes), source_runs=rows.sources
    )
    chains = derive_chains([i for i in evidence.inputs if i is not None], analyzer=analyzer)
    found = staging.derived_tables(evidence, chains, analyzer)
    expected = reference_tables(evidence, chains, analyzer)
    for got, want in zip(found, expected, strict=True):
        assert got.num_rows == want.num_rows > 0
        assert got.equals(want)
    staged = staging.stage_rows(rows, analyzer)
    assert staged.tables["stage_chain"].slice(0, found[0].num_rows).equals(found[0])
    assert staged.summary.derived == found[1].num_rows


def _sorted(table: pa.Table) -> pa.Table:
    keys = [f.name for f in table.schema if not pa.types.is_list(f.type)]
    return table.sort_by([(name, "ascending") for name in keys])


def test_worker_pool_stages_the_same_rows_as_one_batch(stores: list[Database]) -> None:
    db = stores[1]
    traces = _traces(db)
    whole = derive.stage_batch(db, derive.TraceBatch(traces), 12)
    batches = derive.run_batches(db.trace_runs(), 1)
    assert len(batches) == 3  # one per run
    parts = list(derive.staged_batches(db, batches, 12, workers=2))
    assert [p.summary.trials for p in parts] == [len(b.traces) for b in batches]
    for name, table in whole.tables.items():
        merged = pa.concat_tables([p.tables[name] for p in parts])
        columns = [c for c in table.column_names if c != "trial_index"]  # batch-local
        assert _sorted(merged.select(columns)).equals(_sorted(table.select(columns))), name


@pytest.mark.parametrize("encoded", [True, False])
def test_ordered_attributes_sorts_owner_text_not_dictionary_codes(encoded: bool) -> None:
    owner = pa.array(["span", "resource", "span"])  # plain text: the scale-out path's rows
    owner = owner.dictionary_encode() if encoded else owner
    table = pa.table({"owner_type": owner, "owner_row": [1, 9, 0], "ordinal": [0, 0, 0]})
    assert ordered_attributes(table).column("owner_row").to_pylist() == [9, 0, 1]


@pytest.mark.parametrize("store", [0, 1, 2])
def test_evidence_stamps_are_the_stored_spans_per_trace(stores: list[Database], store: int) -> None:
    """The stamps a batch stages for sql/derive/047 are what core.spans holds per trace."""
    db = stores[store]
    rows = derive.batch_rows(db, derive.TraceBatch(_traces(db)))
    found = staging.evidence_stamps(rows.spans)
    expected = db.con.sql(
        "SELECT trace_id, count(*) AS span_count, max(span_row) AS last_span_row "
        "FROM core.spans GROUP BY trace_id"
    ).to_arrow_table()
    assert found.num_rows == len(_traces(db)) > 0
    assert _sorted(found).equals(_sorted(expected.cast(found.schema)))


@pytest.mark.parametrize("store", [0, 1, 2])
def test_trace_runs_bound_every_span_of_their_trace(stores: list[Database], store: int) -> None:
    """A batch reads only the span rows its traces lie within: the bounds must hold them all."""
    db = stores[store]
    runs = db.trace_runs().to_pylist()
    bounds = {t["trace_id"]: (t["first_span_row"], t["last_span_row"]) for t in runs}
    rows = db.con.sql("SELECT trace_id, span_row FROM core.spans").fetchall()
    assert rows and {bytes(t) for t, _ in rows} == set(bounds)
    assert all(bounds[bytes(t)][0] <= row <= bounds[bytes(t)][1] for t, row in rows)


@pytest.mark.parametrize("owner_rows", [[5, 3, 5, 0, 3, 5], [2**62, -1, 2**62, 0, -1, 7]])
def test_ordered_attributes_is_the_stable_sort_by_three_keys(owner_rows: list[int]) -> None:
    """The packed single-key sort (and, out of its range, the fallback) gives Arrow's stable
    sort by (owner text, owner_row, ordinal), equal keys in row order."""
    owner = pa.array(["span", "resource", "span", "span", "span", "resource"]).dictionary_encode()
    table = pa.table(
        {
            "owner_type": owner,
            "owner_row": owner_rows,
            "ordinal": pa.array([1, 0, 1, 2, 0, 0], pa.uint32()),
            "row": range(6),
        }
    )
    keys = pa.table(
        {
            "owner": owner.cast(pa.string()),
            "owner_row": table.column("owner_row"),
            "ordinal": table.column("ordinal"),
        }
    )
    expected = table.take(
        pc.sort_indices(keys, sort_keys=[(n, "ascending") for n in keys.column_names])
    )
    assert ordered_attributes(table).equals(expected)


def test_staging_workers_run_one_polars_thread() -> None:
    """The fork server's first preload fixes the workers' polars pool at one thread (it must
    come before anything that imports polars)."""
    code = f"import {derive.THREADS}, {derive.STAGER}, polars; print(polars.thread_pool_size())"
    env = {k: v for k, v in os.environ.items() if k != "POLARS_MAX_THREADS"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, check=True)
    assert out.stdout.strip() == b"1"
