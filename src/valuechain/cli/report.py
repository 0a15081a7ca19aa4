"""``report``: the offline HTML report of some runs, a suite's, or the whole store."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn

from valuechain.cli.app import err, main, open_store, store_path
from valuechain.cli.messages import quiet, summary
from valuechain.cli.options import SOME_RUNS, examples
from valuechain.cli.output import write_output

if TYPE_CHECKING:
    from valuechain.report.html import StepFn

SHOW_AFTER = 1.0  # seconds: a report faster than this draws no bar at all


@contextmanager
def step_bar(console: Console) -> Iterator[StepFn]:
    """A transient bar on ``console`` (standard error) that appears only once the report has
    taken more than `SHOW_AFTER` seconds, and only on a terminal."""
    progress = Progress(
        TextColumn("report"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.description}"),
        console=console,
        transient=True,
        disable=not console.is_terminal or quiet(),
    )
    started = time.monotonic()
    tasks: list[TaskID] = []

    def step(what: str, done: int, total: int) -> None:
        if not tasks:
            if time.monotonic() - started < SHOW_AFTER:
                return
            progress.start()
            tasks.append(progress.add_task(what, total=total))
        progress.update(tasks[0], completed=done, total=total, description=what)

    try:
        yield step
    finally:
        progress.stop()


@main.command()
@SOME_RUNS
@click.option("--suite", help="Only the runs of this suite id.")
@click.option(
    "--out",
    "out_path",
    type=click.Path(dir_okay=False, path_type=Path),
    default=Path("report.html"),
    show_default=True,
    help="The HTML file to write (replaced whole, never a store).",
)
@examples(
    "valuechain report --out report.html",
    "valuechain report --suite s_1 --out s_1.html",
)
@click.pass_context
def report(ctx: click.Context, runs_: tuple[str, ...], suite: str | None, out_path: Path) -> None:
    """Write one self-contained HTML page that works offline: per run its funnel, rates,
    top failing reasons with next actions, verdict and suite coverage; per trend partition
    the three rates over time, with the blocked runs and why."""
    from valuechain.report.html import report_request

    report_request(runs=runs_, suite=suite)  # bad values fail before the store is opened
    with open_store(ctx, read_only=True) as store, step_bar(err) as bar:
        page = store.report(runs=runs_, suite=suite, on_step=bar)
        runs = page.count('<section class="run"')
    data = page.encode("utf-8")
    write_output(data, out_path, store_path(ctx), option="--out", example="report.html")
    summary(f"wrote {out_path}: {runs} run{'s' * (runs != 1)}, {len(data) / 1000:,.0f} kB")
