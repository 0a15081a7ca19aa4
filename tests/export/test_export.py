"""``export --parquet``: the store's tables as Hive-partitioned Parquet, read back without
valuechain (polars and pyarrow.dataset) and compared with the store; refusals; all or nothing."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pyarrow.dataset as ds
import pytest
from polars.testing import assert_frame_equal

import valuechain
from valuechain.api import Store
from valuechain.errors import UsageError
from valuechain.pipeline.export import EXPORT_TABLES, Partitioning
from valuechain.synth.config import SynthConfig
from valuechain.synth.writers import write_export

EXAMPLE = "spec/examples/mcpjam-eval-run-2cases-2models-2reps.otlp.json"
PARTITION = ("suite_id", "run_id", "analyzer_version")


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory, shared: Path) -> Store:
    folder = tmp_path_factory.mktemp("store")
    synth = write_export(folder / "synth.otlp.json", SynthConfig(runs=2, cases=2, seed=3))
    opened = valuechain.open(folder / "store.duckdb")
    opened.import_paths([synth.path, shared / EXAMPLE], workers=0)
    return opened


@pytest.fixture(scope="module")
def exported(store: Store, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("out") / "export"
    summary = store.export_parquet(out)
    assert summary.runs == 3 and summary.files > 0
    return out


def ordered(frame: pl.DataFrame) -> pl.DataFrame:
    flat = [n for n, t in frame.schema.items() if not t.is_nested()]
    return frame.select(sorted(frame.columns)).sort(sorted(flat), nulls_last=True)


def stored(store: Store, name: str, like: pl.DataFrame) -> pl.DataFrame:
    """The view as the store holds it, partition columns cast as a Hive reader infers them."""
    frame = store.sql(f"SELECT * FROM {name}")
    cast = {
        c: like.schema[c]
        for c, t in frame.schema.items()
        if c in like.columns and (c in PARTITION or isinstance(t, pl.Datetime))
    }  # the store names UTC 'Etc/UTC', Parquet 'UTC': the same instants
    return frame.cast(cast)


@pytest.mark.parametrize("name", ["spans", "trials", "stage_chain", "analytics_documents", "runs"])
def test_polars_reads_back_what_the_store_holds(store: Store, exported: Path, name: str) -> None:
    frame = pl.scan_parquet(exported / name / "**" / "*.parquet", hive_partitioning=True).collect()
    view = stored(store, name, frame)
    frame = frame.select([c for c in view.columns])  # suite_id joined only for the folders
    assert_frame_equal(ordered(frame), ordered(view))


@pytest.mark.parametrize("name", ["stage_funnel", "trial_outcome", "imports"])
def test_pyarrow_dataset_reads_back_what_the_store_holds(
    store: Store, exported: Path, name: str
) -> None:
    table = ds.dataset(exported / name, format="parquet", partitioning="hive").to_table()
    frame = pl.from_arrow(table)
    assert isinstance(frame, pl.DataFrame)
    view = stored(store, name, frame)
    assert_frame_equal(ordered(frame.select(view.columns)), ordered(view))


def test_layout_is_one_folder_per_table_and_hive_partitions(exported: Path) -> None:
    assert sorted(p.name for p in exported.iterdir()) == sorted(t.name for t in EXPORT_TABLES)
    for table in EXPORT_TABLES:
        files = list((exported / table.name).rglob("*.parquet"))
        assert files, table.name  # a table without rows still has its schema-only file
        depth = {len(f.relative_to(exported / table.name).parts) for f in files}
        if table.partitioning is Partitioning.WHOLE:
            assert depth == {1}
    chains = {f.parent.name for f in (exported / "stage_chain").rglob("*.parquet")}
    assert chains == {"analyzer_version=12"}
    runs = {f.parent.name for f in (exported / "trials").rglob("*.parquet")}
    assert len(runs) == 3 and all(r.startswith("run_id=") for r in runs)


def test_runs_selects_runs(store: Store, tmp_path: Path) -> None:
    run = store.sql("SELECT min(run_id) AS r FROM trials")["r"][0]
    summary = store.export_parquet(tmp_path / "one", runs=[run])
    trials = pl.scan_parquet(
        tmp_path / "one" / "trials" / "**" / "*.parquet", hive_partitioning=True
    ).collect()
    assert summary.runs == 1 and set(trials["run_id"]) == {run}
    with pytest.raises(UsageError, match="no such run"):
        store.export_parquet(tmp_path / "two", runs=["run_nope"])
    assert not (tmp_path / "two").exists()


def test_refuses_a_full_folder_the_store_and_its_folder(store: Store, tmp_path: Path) -> None:
    full = tmp_path / "full"
    full.mkdir()
    (full / "keep.txt").write_text("mine")
    with pytest.raises(UsageError, match="not empty"):
        store.export_parquet(full)
    assert [p.name for p in full.iterdir()] == ["keep.txt"]
    home = Path(store.path).parent
    for target in (Path(store.path), home, home / f"{Path(store.path).name}.tmp"):
        with pytest.raises(UsageError, match="store"):
            store.export_parquet(target, overwrite=True)
    assert Path(store.path).is_file()
    store.export_parquet(full, overwrite=True)
    assert not (full / "keep.txt").exists() and (full / "trials").is_dir()
    leftovers = [p.name for p in tmp_path.iterdir() if p.name.startswith(".")]
    assert leftovers == []  # the staging folder was renamed, the old one removed
