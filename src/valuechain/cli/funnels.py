"""``runs``, ``funnel``, ``materialize`` and ``schema``: per-run stage analytics."""

from __future__ import annotations

from importlib import import_module
from typing import Final

import click

from valuechain.api.commands import Phase
from valuechain.cli.app import emit, main, open_store, out
from valuechain.cli.messages import compact_option, summary
from valuechain.cli.options import (
    CHAINS,
    RUNS,
    TABULAR,
    WIDE,
    examples,
    format_option,
    reader_analyzer_option,
    require_runs,
    run_argument,
)
from valuechain.cli.output import write_json
from valuechain.cli.progress import working
from valuechain.errors import UsageError
from valuechain.report.output_formats import Format


# ---------------------------------------------------------------------------- funnels
@main.command()
@TABULAR
@WIDE
@click.pass_context
@examples(
    "valuechain runs",
    "valuechain runs --format csv > runs.csv",
)
def runs(ctx: click.Context, fmt: str, wide: bool) -> None:
    """List runs: suite, completion, trials in/out and in store, parity, analyzer, state."""
    from valuechain.report.runs import RUNS_COLUMNS, runs_table, store_note
    from valuechain.report.tables import rows_table

    with open_store(ctx, read_only=True) as store:
        if fmt != "table":  # csv/json carry every column, and nothing but the rows
            emit(store.runs(), Format(fmt), None)
            return
        rows = store.run_rows()  # a table of a few rows: no DataFrame engine to load
        contents = store.contents()
    if rows:
        out.print(rows_table(runs_table(rows), RUNS_COLUMNS, wide=wide), crop=False)
    note = store_note(contents)
    if note:
        out.print(note)


@main.command()
@run_argument()
@click.option(
    "--slice",
    "slice_",
    type=click.Choice(["overall", "intent", "model", "host", "all"]),
    default="overall",
    show_default=True,
)
@CHAINS
@reader_analyzer_option("Read the document of this version.")
@format_option("table", "json", "csv", help="json prints the analytics document itself.")
@WIDE
@click.pass_context
@examples(
    "valuechain funnel RUN --slice model",
    "valuechain funnel RUN --format json   # the analytics document",
)
def funnel(
    ctx: click.Context,
    run: str,
    slice_: str,
    chains: str,
    analyzer: int | None,
    fmt: str,
    wide: bool,
) -> None:
    """One run's funnel per stage: counts, rates (or "not measured"), exclusions."""
    from valuechain.report.funnel import render_funnel
    from valuechain.report.runs import (
        NO_EVAL_RUN,
        completeness_text,
        no_eval_run_hint,
        not_an_eval_run_text,
    )

    with open_store(ctx, read_only=True) as store:
        contents = store.contents()
        if not contents.has_eval_run:
            raise UsageError(f"run {run}", NO_EVAL_RUN, no_eval_run_hint(contents))
        document = store.analytics_document(run, chains=chains, analyzer=analyzer)
        frame = (
            store.funnel(run, slice_, chains=chains, analyzer=analyzer) if fmt == "csv" else None
        )
        completeness = store.run_completeness(run)
    blocker = completeness.document_blocker if completeness and document is None else None
    foreign = completeness is not None and not completeness.eval_run
    why = f" (why: {blocker})" if blocker else ""
    if fmt == "json":
        if document is None:
            raise UsageError(
                f"run {run}",
                not_an_eval_run_text(run)
                if foreign
                else "the run exists and has no analytics document for "
                f"{chains} chains: it is unmeasured, not an empty funnel{why}",
                "funnels are for eval exports (mcp.app.*); see valuechain runs"
                if foreign
                else "the export lacks what CONTRACT §5.1 requires; see valuechain runs"
                if why
                else "run valuechain materialize, or valuechain derive first",
            )
        write_json(document.to_json())
    elif frame is not None:
        emit(frame, Format.CSV, None)
    else:
        out.print(
            render_funnel(
                document,
                run_id=run,
                slice=slice_,
                chains=chains,
                analyzer=analyzer,
                completeness=completeness_text(completeness) if completeness else None,
                wide=wide,
            ),
            crop=False,
        )
        if foreign:
            out.print(not_an_eval_run_text(run))
        elif why:
            out.print(f"no document{why}: CONTRACT §5.1 requires a suite id and one run identity")


@main.command()
@RUNS
@click.option("--no-validate", is_flag=True, help="Skip the strict model check of each document.")
@click.pass_context
@examples(
    "valuechain materialize            # every run",
    "valuechain materialize RUN_A RUN_B",
)
def materialize(ctx: click.Context, runs_: tuple[str, ...], no_validate: bool) -> None:
    """Rebuild the analytics documents and funnels of some runs (default: all)."""
    with open_store(ctx) as store:
        require_runs(store, *runs_)
        with working(Phase.MATERIALIZE, f"{len(runs_) or 'all'} runs"):
            written = store.materialize(list(runs_) or None, validate=not no_validate)
    summary(f"materialized {written} analytics documents")


# each generated from its pydantic model, loaded when asked for
SCHEMAS: Final = {
    "stage-analytics": ("valuechain.contract.documents", "stage_analytics_json_schema"),
    "decision-summary": ("valuechain.contract.verdict_summary", "decision_summary_json_schema"),
    "verdict-policy": ("valuechain.contract.verdict_policy", "verdict_policy_json_schema"),
}


@main.command()
@click.argument("name", type=click.Choice(list(SCHEMAS)))
@compact_option()
@examples(
    "valuechain schema stage-analytics > stage-analytics.schema.json",
)
def schema(name: str) -> None:
    """Print the JSON Schema of a contract document or of the policy file (generated)."""
    module, function = SCHEMAS[name]
    generated = getattr(import_module(module), function)()
    write_json(generated)
