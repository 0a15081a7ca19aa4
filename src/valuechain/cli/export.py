"""``export``: the store's public tables as Hive-partitioned Parquet for other engines."""

from __future__ import annotations

from pathlib import Path

import click

from valuechain.cli.app import err, main, open_store
from valuechain.cli.messages import summary as say_summary
from valuechain.cli.options import OVERWRITE, SOME_RUNS, examples, lake_folder, require_runs
from valuechain.cli.progress import ImportBar


@main.command()
@lake_folder("--parquet", "The folder to write: DIR/<table>/suite_id=…/run_id=…/*.parquet.")
@SOME_RUNS
@OVERWRITE
@examples(
    "valuechain export --parquet lake/",
    "valuechain export --parquet lake/ --runs run-17 --overwrite",
)
@click.pass_context
def export(ctx: click.Context, folder: Path, runs_: tuple[str, ...], overwrite: bool) -> None:
    """Write the store's tables and views as Hive-partitioned Parquet that DuckDB, polars,
    pyarrow, Spark, Trino or Ray read without valuechain; all of it or nothing."""
    with open_store(ctx, read_only=True) as store:
        if runs_:
            require_runs(store, *runs_)
        with ImportBar(err) as bar:
            summary = store.export_parquet(
                folder, runs=list(runs_) or None, overwrite=overwrite, progress=bar
            )
    say_summary(summary.describe())
