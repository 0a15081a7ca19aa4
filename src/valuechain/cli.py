"""The command line: thin click commands over ``api``; one error boundary.

A ``ValuechainError`` prints as one red line (where, what, hint) and exits 1; anything else
keeps its traceback, because that is a bug.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any, NoReturn

import click
import orjson
import polars as pl
from rich.console import Console
from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TransferSpeedColumn
from rich.table import Table

from valuechain import api
from valuechain._version import __version__
from valuechain.contract.documents import stage_analytics_json_schema
from valuechain.contract.versions import SELECTABLE_ANALYZER_VERSIONS, STAGE_ANALYZER_VERSION
from valuechain.errors import UsageError, ValuechainError
from valuechain.pipeline import ImportReport, plan
from valuechain.report.formats import Format, render_bytes, to_rich_table
from valuechain.report.funnel import render_funnel
from valuechain.report.trial import render_trial
from valuechain.sample import sample_export_path

out = Console()
err = Console(stderr=True)


class Boundary(click.Group):
    """The one place expected errors become a red line and exit code 1."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except ValuechainError as exc:
            fail(exc.render())


def fail(message: str) -> NoReturn:
    err.print(f"[red]error:[/red] {message}", highlight=False, soft_wrap=True)
    sys.exit(1)


FORMAT = click.option(
    "--format",
    "fmt",
    type=click.Choice([f.value for f in Format]),
    default="table",
    show_default=True,
    help="Output format.",
)
ANALYZER = click.option(
    "--analyzer",
    type=click.Choice([str(v) for v in SELECTABLE_ANALYZER_VERSIONS]),
    default=str(STAGE_ANALYZER_VERSION),
    show_default=True,
    callback=lambda _ctx, _param, value: int(value),
    help="The stage analyzer version to derive chains with (CONTRACT §7.2).",
)
CHAINS = click.option(
    "--chains",
    type=click.Choice(["derived", "producer"]),
    default="derived",
    show_default=True,
    help="valuechain's own chains, or the producer's persisted ones (never a mix).",
)
OUTPUT = click.option(
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write to this file instead of standard output.",
)


@click.group(cls=Boundary, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="valuechain")
@click.option(
    "--store",
    "store_path",
    type=click.Path(dir_okay=False, path_type=Path),
    envvar="VALUECHAIN_STORE",
    show_envvar=True,
    help="The store file (default ./valuechain.duckdb).",
)
@click.pass_context
def main(ctx: click.Context, store_path: Path | None) -> None:
    """Honest user-value-chain analytics from OTLP eval traces of MCP servers."""
    ctx.obj = store_path


def _open(ctx: click.Context, *, read_only: bool = False) -> api.Store:
    return api.open(ctx.obj, read_only=read_only)


# ---------------------------------------------------------------------------- import
@main.command("import")
@click.argument("paths", nargs=-1, required=True)
@click.option("--strict", is_flag=True, help="Reject a source on any error-severity issue.")
@click.option(
    "--salvage", is_flag=True, help="Keep the complete spans of a truncated single-document export."
)
@click.option(
    "--large-value-threshold",
    type=click.IntRange(min=1),
    default=None,
    help="Attribute values longer than this go to large_values (default 1 MiB).",
)
@click.option(
    "--max-decompressed-bytes",
    type=click.IntRange(min=1),
    default=None,
    help="Stop reading a compressed source beyond this size (default 4 GiB).",
)
@click.option(
    "--workers",
    type=click.IntRange(min=0),
    default=min(2, os.cpu_count() or 1),
    show_default=True,
    help="Processes decoding a large source's batches beside the one committing them.",
)
@ANALYZER
@click.option("--no-derive", is_flag=True, help="Import spans only; derive chains later.")
@click.pass_context
def import_cmd(
    ctx: click.Context,
    paths: tuple[str, ...],
    strict: bool,
    salvage: bool,
    large_value_threshold: int | None,
    max_decompressed_bytes: int | None,
    workers: int,
    analyzer: int,
    no_derive: bool,
) -> None:
    """Import OTLP exports (files, directories, globs), then derive the touched trials' chains."""
    extra = {
        k: v
        for k, v in (
            ("large_value_threshold", large_value_threshold),
            ("max_decompressed_bytes", max_decompressed_bytes),
        )
        if v
    }
    extra["workers"] = workers
    with _open(ctx) as store:
        report = run_import(
            store,
            paths,
            strict=strict,
            salvage=salvage,
            analyzer=analyzer,
            derive=not no_derive,
            **extra,
        )
    print_import_report(report)
    if not report.ok:
        sys.exit(1)


def run_import(
    store: api.Store, paths: tuple[str, ...] | list[str], **options: Any
) -> ImportReport:
    files, _ = plan(paths)
    total = sum(f.stat().st_size for f in files)
    with Progress(
        TextColumn("importing"),
        BarColumn(),
        DownloadColumn(),
        TransferSpeedColumn(),
        console=err,
        transient=True,
        disable=not err.is_terminal,
    ) as progress:
        task = progress.add_task("import", total=total)
        return store.import_paths(paths, on_progress=lambda n: progress.advance(task, n), **options)


def print_import_report(report: ImportReport) -> None:
    table = Table(title="import", header_style="bold")
    for column in ("source", "outcome", "spans", "traces", "issues"):
        table.add_column(
            column, justify="right" if column in ("spans", "traces", "issues") else "left"
        )
    colours = {"imported": "green", "partial": "yellow", "unchanged": "dim", "rejected": "red"}
    for s in report.sources:
        table.add_row(
            s.path,
            f"[{colours[s.outcome]}]{s.outcome}[/]",
            str(s.spans),
            str(s.traces),
            str(sum(s.issue_counts().values())),
        )
    out.print(table)
    counts = report.issue_counts()
    out.print(
        f"{len(report.sources)} sources, {report.total('spans')} spans, "
        f"{report.total('traces')} traces, {sum(counts.values())} issues"
    )
    if report.derived is not None:
        d = report.derived
        out.print(
            f"derived {d.derived} chains over {d.trials} trials in {len(d.run_ids)} runs "
            f"({d.producer_chains} producer chains stored, {d.issues} trial issues)"
        )
    if counts:
        out.print("issues by code: " + ", ".join(f"{c} {n}" for c, n in counts.most_common()))
    for s in report.rejected:
        if s.error is not None:
            err.print(f"[red]rejected:[/red] {s.error.render()}", highlight=False, soft_wrap=True)


# ---------------------------------------------------------------------------- sql / issues
@main.command()
@click.argument("query")
@FORMAT
@OUTPUT
@click.pass_context
def sql(ctx: click.Context, query: str, fmt: str, output: Path | None) -> None:
    """Run SQL over the store's tables and views."""
    with _open(ctx, read_only=True) as store:
        try:
            frame = store.sql(query)
        except Exception as exc:  # DuckDB's own errors are the user's to fix
            if type(exc).__module__.startswith(("duckdb", "_duckdb")):
                raise UsageError(
                    "sql",
                    str(exc).splitlines()[0],
                    'list the views with: valuechain sql "SHOW TABLES"',
                ) from exc
            raise
    emit(frame, Format(fmt), output)


@main.command()
@click.option("--code", help="Only this issue code (e.g. E_BAD_ID_ENCODING).")
@click.option("--severity", type=click.Choice(["error", "warning", "info"]))
@click.option("--source", help="Only issues of this source path.")
@FORMAT
@OUTPUT
@click.pass_context
def issues(
    ctx: click.Context,
    code: str | None,
    severity: str | None,
    source: str | None,
    fmt: str,
    output: Path | None,
) -> None:
    """List the issues of imported sources."""
    with _open(ctx, read_only=True) as store:
        frame = store.sql(
            "SELECT source, severity, code, record_index, line, byte_offset, json_path, "
            "message, value_excerpt, hint, occurrences FROM issues "
            "WHERE ($code IS NULL OR code = $code) AND ($severity IS NULL OR severity = "
            "$severity) AND ($source IS NULL OR source = $source) "
            "ORDER BY source_id, record_index NULLS FIRST, line NULLS FIRST",
            {"code": code, "severity": severity, "source": source},
        )
    if Format(fmt) is Format.TABLE and output is None:  # terminal: the columns people read
        frame = frame.select(
            pl.col("source").str.split("/").list.last().alias("source"),
            "severity",
            "code",
            "line",
            "json_path",
            "message",
            "occurrences",
        )
    emit(frame, Format(fmt), output)


def emit(frame: pl.DataFrame, fmt: Format, output: Path | None) -> None:
    if fmt is Format.TABLE:
        if output is not None:
            raise UsageError(
                "--output",
                "a table is for the terminal",
                "use --format csv, json or parquet with --output",
            )
        out.print(to_rich_table(frame))
        return
    if fmt is Format.PARQUET and output is None:
        raise UsageError("--format parquet", "Parquet is binary", "add --output FILE.parquet")
    data = render_bytes(frame, fmt)
    if output is not None:
        output.write_bytes(data)
    else:
        sys.stdout.buffer.write(data)


# ---------------------------------------------------------------------------- chains
@main.command()
@ANALYZER
@click.pass_context
def derive(ctx: click.Context, analyzer: int) -> None:
    """(Re)derive every trial's chain at an analyzer version (12, or the selectable 11)."""
    with _open(ctx) as store:
        summary = store.derive(analyzer=analyzer)
    out.print(
        f"derived {summary.derived} chains at analyzer {analyzer} over {summary.trials} trials "
        f"in {len(summary.run_ids)} runs; {summary.producer_chains} producer chains stored; "
        f"{summary.issues} trial issues"
    )


@main.command()
@click.argument("run", required=False)
@click.option(
    "--format", "fmt", type=click.Choice(["table", "json"]), default="table", show_default=True
)
@click.pass_context
def verify(ctx: click.Context, run: str | None, fmt: str) -> None:
    """List every trial where the producer's chain and valuechain's disagree, stage by stage."""
    with _open(ctx, read_only=True) as store:
        frame = store.sql(
            "SELECT * FROM chain_disagreements WHERE $run IS NULL OR run_id = $run "
            "ORDER BY run_id, trial_id, derived_analyzer_version, stage_index",
            {"run": run},
        )
        compared = store.sql(
            "SELECT count(DISTINCT trial_id) AS n FROM stage_chain WHERE source = 'producer' "
            "AND ($run IS NULL OR run_id = $run)",
            {"run": run},
        )["n"][0]
    if fmt == "json":
        sys.stdout.buffer.write(render_bytes(frame, Format.JSON))
        return
    trials = frame["trial_id"].n_unique() if frame.height else 0
    out.print(f"{compared} trials carry a producer chain; {trials} disagree with the derived one")
    if frame.height:
        out.print(to_rich_table(frame))


@main.command()
@click.argument("trial_id")
@CHAINS
@click.option("--analyzer", type=int, default=None, help="Show the chain of this version.")
@click.option(
    "--format", "fmt", type=click.Choice(["table", "json"]), default="table", show_default=True
)
@click.pass_context
def trial(ctx: click.Context, trial_id: str, chains: str, analyzer: int | None, fmt: str) -> None:
    """Show one trial's chain: where value stopped, why, and who should look next."""
    with _open(ctx, read_only=True) as store:
        view = store.trial(trial_id, chains=chains, analyzer=analyzer)
    if fmt == "json":
        sys.stdout.buffer.write(orjson.dumps(view.to_json(), option=orjson.OPT_INDENT_2) + b"\n")
        return
    out.print(render_trial(view))


# ---------------------------------------------------------------------------- funnels
@main.command()
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["table", "csv", "json"]),
    default="table",
    show_default=True,
)
@click.pass_context
def runs(ctx: click.Context, fmt: str) -> None:
    """List runs: suite, completion, trials in/out, parity identity, analyzer, state."""
    with _open(ctx, read_only=True) as store:
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
            pl.col("materialization_state").alias("state"),
        )
    emit(frame, Format(fmt), None)


@main.command()
@click.argument("run")
@click.option(
    "--slice",
    "slice_",
    type=click.Choice(["overall", "intent", "model", "host", "all"]),
    default="overall",
    show_default=True,
)
@CHAINS
@click.option("--analyzer", type=int, default=None, help="Read the document of this version.")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["table", "json", "csv"]),
    default="table",
    show_default=True,
    help="json prints the analytics document itself.",
)
@click.pass_context
def funnel(
    ctx: click.Context, run: str, slice_: str, chains: str, analyzer: int | None, fmt: str
) -> None:
    """One run's funnel per stage: counts, rates (n/m when not measured), exclusions."""
    with _open(ctx, read_only=True) as store:
        document = store.analytics_document(run, chains=chains, analyzer=analyzer)
        frame = (
            store.funnel(run, slice_, chains=chains, analyzer=analyzer) if fmt == "csv" else None
        )
    if fmt == "json":
        if document is None:
            raise UsageError(
                f"run {run}",
                "the run exists and has no analytics document for "
                f"{chains} chains: it is unmeasured, not an empty funnel",
                "run valuechain materialize, or valuechain derive first",
            )
        sys.stdout.write(document.to_json() + "\n")
    elif frame is not None:
        emit(frame, Format.CSV, None)
    else:
        out.print(
            render_funnel(document, run_id=run, slice=slice_, chains=chains, analyzer=analyzer)
        )


@main.command()
@click.argument("runs_", metavar="[RUN]...", nargs=-1)
@click.option("--no-validate", is_flag=True, help="Skip the strict model check of each document.")
@click.pass_context
def materialize(ctx: click.Context, runs_: tuple[str, ...], no_validate: bool) -> None:
    """Rebuild the analytics documents and funnels of some runs (default: all)."""
    with _open(ctx) as store:
        written = store.materialize(list(runs_) or None, validate=not no_validate)
    out.print(f"materialized {written} analytics documents")


@main.command()
@click.argument("name", type=click.Choice(["stage-analytics"]))
def schema(name: str) -> None:
    """Print the JSON Schema of a contract document (generated from its model)."""
    del name  # one document today; the argument keeps room for the decision summary
    sys.stdout.write(json.dumps(stage_analytics_json_schema(), indent=2) + "\n")


# ---------------------------------------------------------------------------- synth / demo
@main.command()
@click.option("--runs", type=click.IntRange(min=1), default=1, show_default=True)
@click.option("--cases", type=click.IntRange(min=1), default=4, show_default=True)
@click.option("--models", type=click.IntRange(min=1), default=2, show_default=True)
@click.option("--reps", type=click.IntRange(min=1), default=2, show_default=True)
@click.option("--seed", type=int, default=0, show_default=True)
@click.option(
    "--out",
    "out_path",
    type=click.Path(dir_okay=False, path_type=Path),
    required=True,
    help="Where to write the export.",
)
@click.option("--ndjson", is_flag=True, help="One request per line (collector file style).")
@click.option("--gzip", "gzip_", is_flag=True, help="gzip the output.")
@click.option(
    "--proto",
    is_flag=True,
    help="Binary protobuf: length-prefixed ExportTraceServiceRequest records, one per trace "
    "(the collector's format: proto).",
)
@click.option("--zstd", "zstd_", is_flag=True, help="One standard zstd stream (native mode).")
@click.option(
    "--zstd-legacy",
    is_flag=True,
    help="The collector's legacy zstd: length-prefixed records, each compressed on its own.",
)
@click.option("--redacted", is_flag=True, help="No content: the MCPJam default export.")
@click.option(
    "--failures",
    is_flag=True,
    help="Give every trial a failure scenario (valuechain.synth_failures), recorded on its "
    "root as valuechain.synth.scenario; a few hundred trials cover every stage reason.",
)
def synth(
    runs: int,
    cases: int,
    models: int,
    reps: int,
    seed: int,
    out_path: Path,
    ndjson: bool,
    gzip_: bool,
    proto: bool,
    zstd_: bool,
    zstd_legacy: bool,
    redacted: bool,
    failures: bool,
) -> None:
    """Write a realistic synthetic export (deterministic for a seed), in bounded memory."""
    from valuechain.synth import SynthConfig, write_export  # noqa: PLC0415 (slow import)

    config = SynthConfig(
        runs=runs,
        cases=cases,
        models=models,
        reps=reps,
        seed=seed,
        redacted=redacted,
        failures=failures,
    )
    if sum((gzip_, zstd_, zstd_legacy)) > 1:
        raise UsageError(
            "--gzip/--zstd/--zstd-legacy", "choose one compression", "drop all but one"
        )
    zstd = "native" if zstd_ else "legacy" if zstd_legacy else None
    summary = write_export(out_path, config, ndjson=ndjson, gzip=gzip_, proto=proto, zstd=zstd)
    out.print(
        f"wrote {summary.path}: {summary.bytes_written} bytes, {summary.runs} runs, "
        f"{summary.trials} trials, {summary.spans} spans"
    )


@main.command()
@click.pass_context
def demo(ctx: click.Context) -> None:
    """Import the bundled sample export into a fresh demo store and show what it holds."""
    path = ctx.obj or Path("valuechain-demo.duckdb")
    for stale in (path, Path(f"{path}.wal")):
        stale.unlink(missing_ok=True)
    sample = sample_export_path()
    out.rule("valuechain demo")
    out.print(f"store: {path}\nsample: {sample}")
    with api.open(path) as store:
        report = run_import(store, [str(sample)])
        print_import_report(report)
        out.print(
            to_rich_table(
                store.sql(
                    "SELECT coalesce(mcp_app_role, oi_span_kind, 'other') AS role, "
                    "count(*) AS spans, "
                    "count(DISTINCT trace_id) AS traces FROM spans GROUP BY ALL ORDER BY spans DESC"
                ),
                title="spans by role",
            )
        )
        run_ids = store.runs()["run_id"].to_list()
        if run_ids:
            out.print(render_funnel(store.analytics_document(run_ids[0]), run_id=run_ids[0]))
            failing = store.sql(
                "SELECT trial_id FROM trial_outcome WHERE source = 'derived' "
                "AND first_failed_stage IS NOT NULL ORDER BY trial_id LIMIT 1"
            )
            if failing.height:
                out.print(render_trial(store.trial(failing["trial_id"][0])))
    out.print(
        f"next: valuechain --store {path} runs | funnel RUN --slice model | trial TRIAL_ID | "
        'sql "SELECT * FROM stage_rates LIMIT 5"'
    )
    if not report.ok:
        sys.exit(1)
