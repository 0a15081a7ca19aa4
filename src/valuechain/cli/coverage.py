"""``coverage``: what each suite measures link by link, what it leaves unmeasured, the lint."""

from __future__ import annotations

import click

from valuechain.cli.app import emit, main, open_store, out
from valuechain.cli.options import TABULAR, examples
from valuechain.cli.output import write_json
from valuechain.report.output_formats import Format


@main.command()
@click.option("--suite", help="The latest run of this suite id (default: of every suite).")
@click.option("--run", help="This run (default: each suite's latest).")
@click.option("--lint", is_flag=True, help="Only the lint findings (CONTRACT Q5).")
@TABULAR
@click.pass_context
@examples(
    "valuechain coverage --suite SUITE",
    "valuechain coverage --lint --format json",
)
def coverage(ctx: click.Context, suite: str | None, run: str | None, lint: bool, fmt: str) -> None:
    """Per link: cases that author a check able to decide it, trials measured there vs
    notApplicable / notMeasured / notReached, advisory checks beside it, links no case can
    decide (with the kinds that would), and checks that make a link ungradable."""
    from valuechain.api.commands import coverage_request
    from valuechain.report.coverage import coverage_json, lint_json, render_coverage, render_lint

    coverage_request(suite=suite, run=run)  # bad values fail before the store is opened
    with open_store(ctx, read_only=True) as store:  # each output reads only what it shows
        if fmt == "csv":  # the view's rows: the links, or the lint's findings
            frame = store.coverage_lint if lint else store.coverage
            emit(frame(suite=suite, run=run), Format.CSV, None)
        elif fmt == "json" and lint:
            write_json(lint_json(store.coverage_lint(suite=suite, run=run)))
        elif fmt == "json":
            write_json(coverage_json(store.coverage(suite=suite, run=run)))
        elif lint:
            out.print(render_lint(store.coverage_lint(suite=suite, run=run)), highlight=False)
        else:
            links = store.coverage(suite=suite, run=run)
            findings = store.coverage_lint(suite=suite, run=run)
            out.print(render_coverage(links, findings), highlight=False)
