"""``recompute``: re-derive what is stale for an analyzer version, resumable, with a preview."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

import click

from valuechain.api.commands import BatchesDone
from valuechain.cli.app import main, open_store, out
from valuechain.cli.messages import quiet
from valuechain.cli.options import ANALYZER, SOME_RUNS, examples, require_runs
from valuechain.cli.progress import PhaseBar
from valuechain.contract.words import plural
from valuechain.report.columns import Col

if TYPE_CHECKING:
    import polars as pl

    from valuechain.api.commands import RecomputeResult

FLIP_COLUMNS = (
    Col("stage"),
    Col("analyzer", keep=1),
    Col("from"),
    Col("to"),
    Col("rows", align="right"),
)


@main.command()
@ANALYZER
@SOME_RUNS
@click.option("--dry-run", is_flag=True, help="Show what would change; change nothing.")
@click.option(
    "--prune",
    is_flag=True,
    help="Then drop derived chains older than --analyzer where one at it exists.",
)
@click.pass_context
@examples(
    "valuechain recompute --dry-run     # what would change",
    "valuechain recompute --runs RUN --prune",
)
def recompute(
    ctx: click.Context, analyzer: int, runs_: tuple[str, ...], dry_run: bool, prune: bool
) -> None:
    """Re-derive every chain older than the analyzer, or whose evidence changed, from the
    store's evidence, in batches of runs that each commit (an interrupted one resumes)."""
    with open_store(ctx, read_only=dry_run) as store:
        if runs_:
            require_runs(store, *runs_)
        with PhaseBar() as bar:
            result = store.recompute(
                analyzer=analyzer,
                runs=list(runs_) or None,
                dry_run=dry_run,
                prune=prune,
                on_batch=BatchesDone(bar),
            )
    if dry_run or not quiet():  # a dry run's preview is its result
        print_recompute(result)


def print_recompute(result: RecomputeResult) -> None:
    say = partial(out.print, highlight=False, soft_wrap=True)  # one line each, never wrapped
    plan, target = result.plan, result.plan.target
    if result.nothing_stale:
        say(
            f"nothing to recompute: every derived chain is at analyzer {target} or newer "
            "and was derived from the evidence stored now"
        )
    else:
        verb = "would re-derive" if result.dry_run else "re-derived"
        batches = plural(len(plan.batches), "batch", "batches")
        say(
            f"{verb} {plural(result.trials, 'trial')} in {plural(len(result.runs), 'run')} at "
            f"analyzer {target} ({batches}): {plural(plan.trials_behind, 'trial')} behind it, "
            f"{plural(plan.traces_changed, 'trace')} whose evidence changed"
            + ("" if result.dry_run else f"; {plural(result.documents, 'document')} written")
        )
        say("runs: " + ", ".join(result.runs))
    if result.dry_run and not result.nothing_stale:
        if result.new_chains:
            say(f"{result.new_chains} trials would get their first derived chain")
        if result.flips.height:
            from valuechain.report.tables import fitted_table

            out.print(fitted_table(_flip_table(result.flips, target), FLIP_COLUMNS), crop=False)
        else:
            say("no stage row would change state or reason")
    if result.pruned.height:
        verb = "would prune" if result.dry_run else "pruned"
        for (version,), group in result.pruned.group_by("analyzer_version", maintain_order=True):
            trials = plural(int(group["trials"].sum()), "trial")
            say(
                f"{verb} the analyzer {version} chains of {trials} in {plural(group.height, 'run')}"
            )
    elif not result.nothing_stale and not result.dry_run:
        say("older analyzer versions are kept beside them (--prune drops them)")
    if result.dry_run:
        say("dry run: nothing was changed")


def _flip_table(flips: pl.DataFrame, target: int) -> pl.DataFrame:
    """Per stage and analyzer step, the (state · reason) rows would move from and to."""
    import polars as pl

    return flips.select(
        "stage",
        pl.format("{} → {}", "from_analyzer", pl.lit(target)).alias("analyzer"),
        pl.concat_str(["from_state", "from_reason"], separator=" · ", ignore_nulls=True).alias(
            "from"
        ),
        pl.concat_str(["to_state", "to_reason"], separator=" · ", ignore_nulls=True).alias("to"),
        "rows",
    )
