"""The Ray Data path and the single-machine path agree: chains, outcomes, documents.

One local Ray (``num_cpus=2``) derives exports whose traces are split across files (a trial
root in one file, its tool spans in others), plus a second copy of one file; an import of the
same files into a store, materialized with the same fixed clock and exported, must hold the
same rows in every table the scale-out path writes.
Ray starts once for the whole module (it costs seconds): one test does the Ray work.
"""

from __future__ import annotations

import shutil
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import valuechain
from valuechain.materialize.analytics import materialize_runs
from valuechain.pipeline.derive import derive_traces
from valuechain.pipeline.export import export_parquet
from valuechain.pipeline.scale.job import scale_paths
from valuechain.pipeline.scale.stages import SCALE_TABLES
from valuechain.synth.config import SynthConfig
from valuechain.synth.split import split_requests, write_split_export

FIXED = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
EXAMPLE = "spec/examples/mcpjam-eval-run-2cases-2models-2reps.otlp.json"

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def exports(tmp_path_factory: pytest.TempPathFactory, shared: Path) -> Path:
    """Synthetic runs dealt over three files, the spec example over two, one file twice."""
    folder = tmp_path_factory.mktemp("exports")
    paths = write_split_export(folder, SynthConfig(runs=2, cases=3, reps=2, seed=7), 3)
    example = orjson.loads((shared / EXAMPLE).read_bytes())
    for f, part in split_requests([example], 2):
        (folder / f"example-{f}.otlp.json").write_bytes(orjson.dumps(part))
    shutil.copy(paths[1], folder / "part-001-again.otlp.jsonl")
    return folder


def read(folder: Path, table: str) -> pl.DataFrame:
    """A table of an export as any engine reads it: the Parquet files and their folders."""
    frame = pl.scan_parquet(folder / table / "**" / "*.parquet", hive_partitioning=True)
    return frame.collect()


def ordered(frame: pl.DataFrame) -> pl.DataFrame:
    """Rows in one order whatever the files: sorted by every column that sorts."""
    flat = [n for n, t in frame.schema.items() if not t.is_nested()]
    return frame.select(sorted(frame.columns)).sort(sorted(flat), nulls_last=True)


def single_machine(exports: Path, folder: Path) -> Path:
    store = valuechain.open(folder / "single.duckdb")
    store.import_paths([exports], workers=0, derive=False)
    derive_traces(store.db, None, materialize=False)
    materialize_runs(store.db.con, None, clock=lambda: FIXED)
    out = folder / "single"
    export_parquet(store.db, out)
    store.close()
    return out


def test_ray_path_equals_single_machine_path(exports: Path, tmp_path: Path, local_ray: Any) -> None:
    # the traces really are split: a trial's spans sit in more than one file
    one = orjson.loads((exports / "part-000.otlp.jsonl").read_bytes().splitlines()[0])
    traced = one["resourceSpans"][0]["scopeSpans"][0]["spans"][0]["traceId"]
    holders = [
        p.name for p in exports.glob("part-00?.otlp.jsonl") if traced.encode() in p.read_bytes()
    ]
    assert len(holders) > 1

    expected = single_machine(exports, tmp_path)
    summary = scale_paths(
        [exports],
        tmp_path / "scaled",
        clock=lambda: FIXED,
        num_cpus=2,
    )
    # the copy is a duplicate of whichever of the two is read first, as for an import
    assert {Path(p).name for p in summary.duplicates} < {
        "part-001.otlp.jsonl",
        "part-001-again.otlp.jsonl",
    }
    assert len(summary.duplicates) == 1
    assert summary.rejected == ()
    assert len(summary.runs) == 3 and summary.trials == summary.derived > 0
    assert local_ray.is_initialized()  # the session's Ray, left running for the next test

    for table in SCALE_TABLES:
        ours, theirs = read(tmp_path / "scaled", table.name), read(expected, table.name)
        assert ours.columns == theirs.columns, table.name
        assert_frame_equal(ordered(ours), ordered(theirs), check_dtypes=True)
    assert read(expected, "stage_chain").height > 0
    assert read(expected, "analytics_documents").height >= len(summary.runs)
