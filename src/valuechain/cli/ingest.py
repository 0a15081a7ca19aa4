"""``import``, ``sql`` and ``issues``: getting exports in and looking at what came in."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from valuechain.api.store import NOT_AN_EXPORT_NAME
from valuechain.cli.app import emit, main, open_store, out, store_path
from valuechain.cli.follow import FOLLOW, INTERVAL, run_follow
from valuechain.cli.messages import quiet, say_error
from valuechain.cli.options import ALLOW_FILES, ANALYZER, FORMAT, OUTPUT, WIDE, examples
from valuechain.cli.progress import PhaseBar
from valuechain.contract.words import plural
from valuechain.report.output_formats import Format

if TYPE_CHECKING:
    from valuechain import api
    from valuechain.api.commands import ImportReport


# ---------------------------------------------------------------------------- import
@main.command("import")
@click.argument("paths", nargs=-1)
@FOLLOW
@INTERVAL
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
    help="Workers decoding a large source's batches beside the one committing them.",
)
@click.option(
    "--worker-processes",
    is_flag=True,
    help="Keep worker processes when the native path decodes the parts (its workers are threads).",
)
@ANALYZER
@click.option("--no-derive", is_flag=True, help="Import spans only; derive chains later.")
@click.pass_context
@examples(
    "valuechain import run.json exports/ 'archive/**/*.json'",
    "valuechain import --strict --no-derive big.jsonl.gz",
    "valuechain import - < run.json                   # standard input",
    "valuechain import --follow otel/ --interval 5   # a collector's folder",
)
def import_cmd(
    ctx: click.Context,
    paths: tuple[str, ...],
    strict: bool,
    salvage: bool,
    large_value_threshold: int | None,
    max_decompressed_bytes: int | None,
    workers: int,
    worker_processes: bool,
    analyzer: int,
    no_derive: bool,
    follow: Path | None,
    interval: float,
) -> None:
    """Import OTLP exports (files, directories, globs; - for standard input), then derive the
    touched trials' chains.

    With --follow DIR, keep importing a collector's output directory as it grows (Ctrl-C
    stops; a restart resumes where it left off)."""
    if (follow is None) == (not paths):
        raise click.UsageError("give PATHS to import, or --follow DIR (not both)")
    extra = {
        k: v
        for k, v in (
            ("large_value_threshold", large_value_threshold),
            ("max_decompressed_bytes", max_decompressed_bytes),
        )
        if v
    }
    extra["workers"] = workers
    if worker_processes:
        extra["worker_processes"] = True
    if follow is not None:
        options = {"strict": strict, "salvage": salvage, "derive": not no_derive, **extra}
        run_follow(ctx, follow, interval, analyzer=analyzer, **options)
        return
    if not store_path(ctx).exists():  # nothing to read: no new, empty store either
        from valuechain.api.commands import ImportReport, plan

        files, missing, skipped = plan(paths, pipes=True)
        if not files:
            print_import_report(ImportReport(sources=missing, skipped=skipped))
            sys.exit(1)
    with open_store(ctx, settle=False) as store:  # the import derives what is pending first
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
    with PhaseBar() as bar:
        return store.import_paths(paths, on_progress=bar, **options)


def print_import_report(report: ImportReport) -> None:
    """The sources table and the summary (nothing with --quiet), then each rejection."""
    if not quiet():
        print_import_summary(report)
    for s in report.rejected:
        if s.error is not None:
            say_error(s.error, "rejected:")


def print_import_summary(report: ImportReport) -> None:
    from valuechain.report.issues import SOURCE_COLUMNS
    from valuechain.report.tables import FittedTable

    colours = {"imported": "green", "partial": "yellow", "unchanged": "dim", "rejected": "red"}
    rows = [
        [s.path, s.outcome, f"{s.spans:,}", f"{s.traces:,}", f"{sum(s.issue_counts().values()):,}"]
        for s in report.sources
    ]
    styles = [{"outcome": colours[s.outcome]} for s in report.sources]
    out.print(FittedTable(list(SOURCE_COLUMNS), rows, styles=styles, joined=True), crop=False)
    counts, unstored = report.issue_counts(stored=True), report.issue_counts(stored=False)
    not_stored = (  # a rejected source keeps nothing: `issues` never lists these
        f" (and {plural(unstored.total(), 'issue')} of rejected sources, not stored)"
        if unstored
        else ""
    )
    out.print(
        f"{plural(len(report.sources), 'source')}, {plural(report.total('spans'), 'span')}, "
        f"{plural(report.traces, 'trace')}, {plural(counts.total(), 'issue')}{not_stored}"
    )
    if report.completed is not None:
        out.print(f"first completed an unfinished derivation: {report.completed.describe()}")
    if report.derived is not None:
        out.print(report.derived.describe())
    if report.pending is not None:
        out.print(f"[yellow]not derived:[/yellow] {report.pending.render()}", highlight=False)
    if counts:
        out.print("issues by code: " + ", ".join(f"{c} {n:,}" for c, n in counts.most_common()))
    if unstored:
        shown = ", ".join(f"{c} {n:,}" for c, n in unstored.most_common())
        out.print(f"not stored, of rejected sources: {shown}", highlight=False)
    if report.skipped:
        by_reason: dict[str, list[str]] = {}
        for skipped in report.skipped:
            by_reason.setdefault(skipped.why, []).append(str(skipped.path))
        for why, paths in by_reason.items():
            shown = ", ".join(paths[:5])
            more = f" and {len(paths) - 5} more" if len(paths) > 5 else ""
            hint = " (name such a file itself to import it)" if why == NOT_AN_EXPORT_NAME else ""
            out.print(
                f"skipped {plural(len(paths), 'file')} in the directories named, {why}: "
                f"{shown}{more}{hint}",
                highlight=False,
                soft_wrap=True,
            )


# ---------------------------------------------------------------------------- sql / issues
@main.command()
@click.argument("query")
@FORMAT
@OUTPUT
@ALLOW_FILES
@WIDE
@click.option(
    "--timeout",
    type=click.FloatRange(min=0, min_open=True),
    metavar="SECONDS",
    help="Stop the query if it runs longer than this (exit code 1; Ctrl-C stops it too: 130).",
)
@click.pass_context
@examples(
    'valuechain sql "SELECT stage, state, count(*) AS n FROM stage_chain GROUP BY ALL"',
    'valuechain sql "SELECT * FROM spans" --format parquet --output spans.parquet',
    "valuechain sql \"SELECT * FROM read_csv('in/x.csv')\" --allow-files in",
    'valuechain sql --timeout 60 "SELECT count(*) FROM spans a JOIN spans b USING (trace_id)"',
)
def sql(
    ctx: click.Context,
    query: str,
    fmt: str,
    output: Path | None,
    allow_files: Path | None,
    wide: bool,
    timeout: float | None,
) -> None:
    """Run one reading SQL statement over the store's tables and views.

    Reads only: changes go through the other verbs, and no file beyond the store is reachable
    unless --allow-files names a folder."""
    with open_store(ctx, read_only=True, allow_files=allow_files) as store:
        frame = store.sql(query, timeout=timeout)
    emit(frame, Format(fmt), output, wide=wide)


@main.command()
@click.option("--code", help="Only this issue code (e.g. E_BAD_ID_ENCODING).")
@click.option("--severity", type=click.Choice(["error", "warning", "info"]))
@click.option(
    "--source",
    help="Only issues of this source: its path (as imported, or another path to the same "
    "file), its file name, or a prefix of its sha256.",
)
@FORMAT
@OUTPUT
@WIDE
@click.pass_context
@examples(
    "valuechain issues --severity error",
    "valuechain issues --source run-17.jsonl.gz --format csv > issues.csv",
)
def issues(
    ctx: click.Context,
    code: str | None,
    severity: str | None,
    source: str | None,
    fmt: str,
    output: Path | None,
    wide: bool,
) -> None:
    """List the issues of imported sources."""
    from valuechain.report.issues import ISSUE_COLUMNS, issues_table

    with open_store(ctx, read_only=True) as store:
        frame = store.issues(code=code, severity=severity, source=source)
    if Format(fmt) is Format.TABLE and output is None:  # terminal: the columns people read
        emit(issues_table(frame), Format.TABLE, None, columns=ISSUE_COLUMNS, wide=wide)
        return
    emit(frame, Format(fmt), output)
