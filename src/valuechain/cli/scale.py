"""``scale``: derive and materialize many exports with Ray Data, into the export layout."""

from __future__ import annotations

import os
from pathlib import Path

import click

from valuechain.cli.app import err, main
from valuechain.cli.messages import aside
from valuechain.cli.messages import summary as say_summary
from valuechain.cli.options import ANALYZER, OVERWRITE, examples, lake_folder
from valuechain.cli.progress import ImportBar


@main.command()
@click.argument("paths", nargs=-1, required=True)
@lake_folder("--out", "The folder to write, in the layout of `export --parquet`.")
@OVERWRITE
@click.option(
    "--num-cpus",
    type=click.IntRange(min=1),
    default=min(2, os.cpu_count() or 1),
    show_default=True,
    help="Workers of the local Ray started when $RAY_ADDRESS names no cluster.",
)
@ANALYZER
@examples(
    "valuechain scale exports/ --out lake/",
    "valuechain scale /shared/exports --out /shared/lake   # RAY_ADDRESS set: a cluster",
)
def scale(
    paths: tuple[str, ...], folder: Path, overwrite: bool, num_cpus: int, analyzer: int
) -> None:
    """Ingest, derive and materialize export files in parallel with Ray Data (the
    valuechain[ray] extra): the same rules as import, traces split across files assembled
    first, written as run-partitioned Parquet (local Ray, or the cluster at $RAY_ADDRESS)."""
    from valuechain import api

    with ImportBar(err) as bar:
        summary = api.scale(
            paths, folder, analyzer=analyzer, overwrite=overwrite, num_cpus=num_cpus, progress=bar
        )
    for rejected in summary.rejected:
        err.print(f"[yellow]rejected:[/yellow] {rejected.problem}", highlight=False)
    for path in summary.duplicates:
        aside(f"unchanged: {path} (the same bytes as an earlier file)")
    say_summary(summary.describe())
