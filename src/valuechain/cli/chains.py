"""``derive``, ``verify`` and ``trial``: the six-stage chains of trials."""

from __future__ import annotations

import sys

import click
import orjson

from valuechain.cli.app import emit, main, open_store, out
from valuechain.cli.options import (
    ANALYZER,
    CHAINS,
    WIDE,
    format_option,
    reader_analyzer_option,
    require_runs,
    run_argument,
)
from valuechain.report.formats import Format
from valuechain.report.trial import render_trial


# ---------------------------------------------------------------------------- chains
@main.command()
@ANALYZER
@click.pass_context
def derive(ctx: click.Context, analyzer: int) -> None:
    """(Re)derive every trial's chain at an analyzer version (12, or the selectable 11)."""
    with open_store(ctx) as store:
        summary = store.derive(analyzer=analyzer)
    out.print(
        f"derived {summary.derived} chains at analyzer {analyzer} over {summary.trials} trials "
        f"in {len(summary.run_ids)} runs; {summary.producer_chains} producer chains stored; "
        f"{summary.issues} trial issues"
    )


@main.command()
@run_argument(required=False)
@format_option("table", "json")
@click.pass_context
def verify(ctx: click.Context, run: str | None, fmt: str) -> None:
    """List every trial where the producer's chain and valuechain's disagree, stage by stage."""
    with open_store(ctx, read_only=True) as store:
        if run is not None:
            require_runs(store, run)
        found = store.disagreements(run)
    if fmt == "json":
        emit(found.rows, Format.JSON, None)
        return
    out.print(
        f"{found.compared} trials carry a producer chain; "
        f"{found.trials} disagree with the derived one"
    )
    if found.rows.height:
        emit(found.rows, Format.TABLE, None)


@main.command()
@click.argument("trial_id")
@CHAINS
@reader_analyzer_option("Show the chain of this version.")
@format_option("table", "json")
@WIDE
@click.pass_context
def trial(
    ctx: click.Context, trial_id: str, chains: str, analyzer: int | None, fmt: str, wide: bool
) -> None:
    """Show one trial's chain: where value stopped, why, and who should look next."""
    with open_store(ctx, read_only=True) as store:
        view = store.trial(trial_id, chains=chains, analyzer=analyzer)
    if fmt == "json":
        sys.stdout.buffer.write(orjson.dumps(view.to_json(), option=orjson.OPT_INDENT_2) + b"\n")
        return
    out.print(render_trial(view, wide=wide), crop=False)
