"""``runs``, ``funnel``, ``materialize`` and ``schema``: per-run stage analytics."""

from __future__ import annotations

import json
import sys

import click
import polars as pl

from valuechain.cli.app import emit, main, open_store, out
from valuechain.cli.options import (
    CHAINS,
    RUNS,
    format_option,
    reader_analyzer_option,
    require_runs,
    run_argument,
)
from valuechain.contract.documents import stage_analytics_json_schema
from valuechain.errors import UsageError
from valuechain.report.formats import Format
from valuechain.report.funnel import render_funnel


# ---------------------------------------------------------------------------- funnels
@main.command()
@format_option("table", "csv", "json")
@click.pass_context
def runs(ctx: click.Context, fmt: str) -> None:
    """List runs: suite, completion, trials in/out, parity identity, analyzer, state."""
    with open_store(ctx, read_only=True) as store:
        frame = store.runs()
    if fmt == "table":  # the columns a person compares runs by; csv/json carry every column
        frame = frame.select(
            "run_id",
            "suite_id",
            "completed_at",
            pl.format("{}/{}", "included_trials", "total_trials").alias("trials in/total"),
            pl.concat_str(
                ["run_group_id", "config_revision", "case_set_fingerprint"],
                separator=" · ",
                ignore_nulls=False,
            )
            .fill_null("missing")
            .alias("parity (group · config · case set)"),
            pl.col("stage_analyzer_version").alias("analyzer"),
            pl.col("document_analyzer_versions")
            .list.eval(pl.element().cast(pl.String))
            .list.join(", ")
            .alias("documents at"),
            pl.when(pl.col("stale")).then(pl.lit("stale")).otherwise(pl.lit("")).alias("recompute"),
            pl.col("materialization_state").alias("state"),
        )
    emit(frame, Format(fmt), None)


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
@click.pass_context
def funnel(
    ctx: click.Context, run: str, slice_: str, chains: str, analyzer: int | None, fmt: str
) -> None:
    """One run's funnel per stage: counts, rates (n/m when not measured), exclusions."""
    with open_store(ctx, read_only=True) as store:
        document = store.analytics_document(run, chains=chains, analyzer=analyzer)
        frame = (
            store.funnel(run, slice_, chains=chains, analyzer=analyzer) if fmt == "csv" else None
        )
        blocker = store.document_blocker(run) if document is None else None
    why = f" (why: {blocker})" if blocker else ""
    if fmt == "json":
        if document is None:
            raise UsageError(
                f"run {run}",
                "the run exists and has no analytics document for "
                f"{chains} chains: it is unmeasured, not an empty funnel{why}",
                "the export lacks what CONTRACT §5.1 requires; see valuechain runs"
                if why
                else "run valuechain materialize, or valuechain derive first",
            )
        sys.stdout.write(document.to_json() + "\n")
    elif frame is not None:
        emit(frame, Format.CSV, None)
    else:
        out.print(
            render_funnel(document, run_id=run, slice=slice_, chains=chains, analyzer=analyzer)
        )
        if why:
            out.print(f"no document{why}: CONTRACT §5.1 requires a suite id and one run identity")


@main.command()
@RUNS
@click.option("--no-validate", is_flag=True, help="Skip the strict model check of each document.")
@click.pass_context
def materialize(ctx: click.Context, runs_: tuple[str, ...], no_validate: bool) -> None:
    """Rebuild the analytics documents and funnels of some runs (default: all)."""
    with open_store(ctx) as store:
        require_runs(store, *runs_)
        written = store.materialize(list(runs_) or None, validate=not no_validate)
    out.print(f"materialized {written} analytics documents")


@main.command()
@click.argument("name", type=click.Choice(["stage-analytics"]))
def schema(name: str) -> None:
    """Print the JSON Schema of a contract document (generated from its model)."""
    del name  # one document today; the argument keeps room for the decision summary
    sys.stdout.write(json.dumps(stage_analytics_json_schema(), indent=2) + "\n")
