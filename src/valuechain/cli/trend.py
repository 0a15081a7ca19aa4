"""``trend``: runs partitioned by their parity keys, rates per stage over time."""

from __future__ import annotations

import click

from valuechain.cli.app import emit, main, open_store, out
from valuechain.cli.messages import BadValue, aside
from valuechain.cli.options import (
    CHAINS,
    examples,
    format_option,
    reader_analyzer_option,
    require_suite,
    stage_option,
)
from valuechain.cli.output import write_json
from valuechain.contract.vocab import SliceDimension
from valuechain.contract.words import plural
from valuechain.errors import UsageError
from valuechain.report.output_formats import Format


def _since(_ctx: click.Context, _param: click.Parameter, value: str | None) -> str | None:
    """A --since that is no date is a malformed command line (exit 2), not a failed query."""
    from valuechain.api.commands import parse_since

    try:
        parse_since(value)
    except UsageError as exc:
        raise BadValue(f"{value!r} is {exc.problem}", exc.hint or "") from None
    return value


@main.command()
@click.option("--suite", help="Only runs of this suite id.")
@stage_option("Only this stage (its name, or the word tables print: 'Tool call').")
@click.option(
    "--slice",
    "slice_",
    type=click.Choice([d.value for d in SliceDimension]),
    default="overall",
    show_default=True,
)
@click.option(
    "--since", metavar="DATE", callback=_since, help="Only runs completed at or after DATE (UTC)."
)
@CHAINS
@reader_analyzer_option("Read the documents of this version.")
@format_option("table", "json", "csv", help="csv: one row per run, slice and stage.")
@click.pass_context
@examples(
    "valuechain trend --suite SUITE --stage call",
    "valuechain trend --since 2026-01-01 --format csv > trend.csv",
)
def trend(
    ctx: click.Context,
    suite: str | None,
    stage: str | None,
    slice_: str,
    since: str | None,
    chains: str,
    analyzer: int | None,
    fmt: str,
) -> None:
    """Rates per stage over time, runs partitioned by parity keys; blocked runs and why."""
    from valuechain.api.commands import trend_request
    from valuechain.report.trend import render_trend, trend_json

    request = trend_request(  # bad values fail before the store is opened
        suite=suite, stage=stage, slice=slice_, since=since, chains=chains, analyzer=analyzer
    )
    with open_store(ctx, read_only=True) as store:
        require_suite(store, suite)
        series = store.trend(
            suite=suite, stage=stage, slice=slice_, since=since, chains=chains, analyzer=analyzer
        )
        outside = store.trend_blocked(suite=suite, since=since, chains=chains, analyzer=analyzer)
    if fmt == "json":
        write_json(trend_json(series, outside))
    elif fmt == "csv":
        emit(series, Format.CSV, None)
        if outside.height:  # CSV holds the series only; say what it leaves out
            aside(
                f"{plural(outside.height, 'run')} "
                f"{'joins' if outside.height == 1 else 'join'} no partition or "
                f"{'is' if outside.height == 1 else 'are'} unmeasured: "
                "see --format json or table"
            )
    else:
        out.print(render_trend(series, outside, request), highlight=False)
