"""``synth`` and ``demo``: synthetic exports and the guided tour on the bundled sample."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click
from click.core import ParameterSource

from valuechain.cli.app import err, main, out
from valuechain.cli.ingest import print_import_report, run_import
from valuechain.cli.interrupts import interruption_note
from valuechain.cli.messages import quiet
from valuechain.cli.options import examples
from valuechain.cli.progress import ImportBar
from valuechain.cli.sample import HISTORY_NAME, sample_export_path
from valuechain.contract.versions import STAGE_ANALYZER_VERSION
from valuechain.errors import UsageError
from valuechain.synth.history_bounds import MAX_WEEKS, MIN_WEEKS, PREVIOUS_ANALYZER

if TYPE_CHECKING:
    from valuechain import api

DEMO_STORE = "valuechain-demo.duckdb"


# ---------------------------------------------------------------------------- synth / demo
@main.command()
@click.option(
    "--history",
    "history_weeks",
    type=click.IntRange(min=MIN_WEEKS, max=MAX_WEEKS),
    metavar="WEEKS",
    help="Write a seeded multi-week archive into the folder --out instead: one NDJSON export "
    "per week (several suites and run groups, a config change, a regression and its fix, "
    "provisional and group-less runs, the first weeks for analyzer 11) and history.json, "
    "which says which file imports at which analyzer.",
)
@click.option(
    "--store",
    "history_store",
    type=click.Path(dir_okay=False, path_type=Path),
    help="With --history: then import the archive into this store, each week at its analyzer.",
)
@click.option("--runs", type=click.IntRange(min=1), default=1, show_default=True)
@click.option("--cases", type=click.IntRange(min=1), default=4, show_default=True)
@click.option("--models", type=click.IntRange(min=1), default=2, show_default=True)
@click.option("--reps", type=click.IntRange(min=1), default=2, show_default=True)
@click.option("--seed", type=int, default=0, show_default=True)
@click.option(
    "--out",
    "out_path",
    type=click.Path(path_type=Path),
    required=True,
    help="Where to write the export (with --history: the archive's folder).",
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
@click.option(
    "--verdict-policy",
    is_flag=True,
    help="Mark the runs as decided under verdict policy v2 (suite pass threshold 0.5), so "
    "valuechain verdict decides them.",
)
@examples(
    "valuechain synth --runs 2 --failures --out run.json",
    "valuechain synth --ndjson --gzip --seed 7 --out run.jsonl.gz",
    "valuechain synth --history 6 --out history --store history.duckdb",
)
@click.pass_context
def synth(
    ctx: click.Context,
    history_weeks: int | None,
    history_store: Path | None,
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
    verdict_policy: bool,
) -> None:
    """Write a realistic synthetic export (deterministic for a seed), in bounded memory;
    with --history WEEKS, a seeded multi-week archive (and --store, a store built from it)."""
    from valuechain.synth import SynthConfig, write_export

    if history_weeks is not None:
        _refuse_with_history(ctx)
        write_history(out_path, history_weeks, seed, history_store)
        return
    if history_store is not None:
        raise UsageError("--store", "only --history builds a store", "add --history WEEKS")
    if out_path.is_dir():
        raise UsageError(str(out_path), "is a folder", "name a file, or add --history WEEKS")

    config = SynthConfig(
        runs=runs,
        cases=cases,
        models=models,
        reps=reps,
        seed=seed,
        redacted=redacted,
        failures=failures,
        verdict_policy=verdict_policy,
    )
    if sum((gzip_, zstd_, zstd_legacy)) > 1:
        raise UsageError(
            "--gzip/--zstd/--zstd-legacy", "choose one compression", "drop all but one"
        )
    zstd = "native" if zstd_ else "legacy" if zstd_legacy else None
    interruption_note(f"{out_path} is written only in part; synth writes it whole again")
    try:
        summary = write_export(out_path, config, ndjson=ndjson, gzip=gzip_, proto=proto, zstd=zstd)
    except OSError as exc:
        raise UsageError(
            str(out_path),
            f"cannot write the export ({exc.strerror})",
            "check that the folder exists and is writable",
        ) from exc
    if quiet():
        return
    out.print(
        f"wrote {summary.path}: {summary.bytes_written} bytes, {summary.runs} runs, "
        f"{summary.trials} trials, {summary.spans} spans"
    )


_EXPORT_ONLY = frozenset(  # the options of one export, which an archive has no use for
    {"runs", "cases", "models", "reps", "ndjson", "gzip_", "proto", "zstd_", "zstd_legacy"}
    | {"redacted", "failures", "verdict_policy"}
)


def _refuse_with_history(ctx: click.Context) -> None:
    """The shape and format options of a single export mean nothing to an archive."""
    given = [
        param.opts[0]
        for param in ctx.command.params
        if param.name in _EXPORT_ONLY
        and ctx.get_parameter_source(param.name) is not ParameterSource.DEFAULT
    ]
    if given:
        raise UsageError(
            "/".join(given),
            "the archive of --history has its own shape and format",
            "drop them, or drop --history",
        )


def write_history(folder: Path, weeks: int, seed: int, store_path: Path | None) -> None:
    """Write the archive, then (``store_path``) import it file by file at its analyzers."""
    from valuechain import api
    from valuechain.synth.history_manifest import MANIFEST_NAME

    interruption_note(f"the archive in {folder} is written only in part; synth writes it anew")
    try:
        manifest = api.synth_history(folder, weeks=weeks, seed=seed)
    except OSError as exc:
        raise UsageError(
            str(folder),
            f"cannot write the archive ({exc.strerror})",
            "check that the folder can be created and written",
        ) from exc
    old = [f"{f.week}" for f in manifest.files if f.analyzer != STAGE_ANALYZER_VERSION]
    suites = len({run.suite_id for run in manifest.runs})
    out.print(
        f"wrote {folder}: {weeks} weeks from {manifest.start}, {len(manifest.runs)} runs of "
        f"{suites} suites, {sum(run.trials for run in manifest.runs)} trials in "
        f"{len(manifest.files)} files; {MANIFEST_NAME} imports weeks {old[0]}–{old[-1]} at "
        f"analyzer {PREVIOUS_ANALYZER}, the rest at {STAGE_ANALYZER_VERSION}",
        highlight=False,
        soft_wrap=True,
    )
    if store_path is None:
        return
    with api.open(store_path) as store, ImportBar(err) as bar:
        imported = store.import_history(folder, on_progress=bar)
    for file, report in imported:
        out.print(
            f"{file.path} (week of {file.week_start}) at analyzer {file.analyzer}: "
            f"{len(file.runs)} runs, {report.traces} trials",
            highlight=False,
        )
    if not all(report.ok for _, report in imported):
        sys.exit(1)
    out.print(f"next: valuechain --store {store_path} trend, then recompute", highlight=False)


@main.command()
@examples(
    "valuechain demo",
    "valuechain --store valuechain-demo.duckdb runs",
)
def demo() -> None:
    """Import the bundled samples into a fresh demo store and show what it holds: a funnel,
    a failing trial, a comparison of two comparable runs with a regression, a trend.

    The demo always uses its own ./valuechain-demo.duckdb, recreated on each run; it never
    touches the store named by --store or VALUECHAIN_STORE. Its two samples: two runs of
    one suite (each in a run group of its own), and six weekly runs of another, comparable
    week to week, whose server regresses in week five.
    """
    from valuechain import api

    path = Path(DEMO_STORE)
    for stale in (path, Path(f"{path}.wal")):
        stale.unlink(missing_ok=True)
    samples = [sample_export_path(), sample_export_path(HISTORY_NAME)]
    if not quiet():
        out.rule("valuechain demo")
        out.print(f"store: {path}\nsamples: {samples[0]}\n         {samples[1]}")
    with api.open(path) as store:
        report = run_import(store, [str(sample) for sample in samples])
        print_import_report(report)
        if not quiet() and report.ok:
            _tour(store, path)
    if not report.ok:
        sys.exit(1)


LEGEND = "passed, failed: measured · not reached, not measured, not applicable: not a pass"


def _tour(store: api.Store, path: Path) -> None:
    """What the demo store holds: spans by role, a run's funnel, a failing trial, then the
    weekly history's regression compared with the week before, and its trend."""
    from valuechain.api.commands import trend_request
    from valuechain.report.compare import render_comparison
    from valuechain.report.funnel import render_funnel
    from valuechain.report.tables import fitted_table
    from valuechain.report.trend import render_trend
    from valuechain.report.trial import render_trial
    from valuechain.synth.demo_history import REGRESSION_WEEK

    def section(title: str) -> None:
        out.print()
        out.rule(title, align="left")

    section("what the store holds")
    out.print(fitted_table(store.spans_by_role(), title="spans by role"), crop=False)
    out.print(LEGEND, highlight=False)
    runs = store.runs().sort("completed_at")
    by_suite = runs.group_by("suite_id", maintain_order=True).agg("run_id")
    first, weekly = by_suite["run_id"][0].to_list(), by_suite["run_id"][-1].to_list()
    section(f"a run's funnel: {first[0]}")
    out.print(render_funnel(store.analytics_document(first[0]), run_id=first[0]))
    failing = store.first_failing_trial()
    if failing is not None:
        section(f"where one trial's value stopped: {failing}")
        out.print(render_trial(store.trial(failing)))
    before, after = weekly[REGRESSION_WEEK - 2], weekly[REGRESSION_WEEK - 1]
    section(f"week {REGRESSION_WEEK} against week {REGRESSION_WEEK - 1}: {after} vs {before}")
    out.print(render_comparison(store.compare(before, after)))
    suite = runs.filter(runs["run_id"] == after)["suite_id"][0]
    section(f"six weeks of one suite: {suite}")
    request = trend_request(suite=suite, stage="userValue")
    out.print(
        render_trend(
            store.trend(suite=suite, stage="userValue"), store.trend_blocked(suite=suite), request
        ),
        highlight=False,
    )
    regressed = store.trials(after, state="failed")["trial_id"].to_list()
    section("next")
    store_option = f"valuechain --store {path}"
    for line in (
        "runs",
        f"funnel {first[0]} --slice model",
        f"trials {after} --state failed",
        f"trial {regressed[0] if regressed else failing}",
        f"compare {before} {after}",
        f"trend --suite {suite}",
        f"verdict {after}",
        "report --out valuechain-demo.html",
        'sql "SELECT * FROM stage_rates LIMIT 5"',
    ):
        out.print(f"  {store_option} {line}", highlight=False, soft_wrap=True)
