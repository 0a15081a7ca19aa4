"""``synth`` and ``demo``: synthetic exports and the guided tour on the bundled sample."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from valuechain import api
from valuechain.cli.app import main, out
from valuechain.cli.ingest import print_import_report, run_import
from valuechain.cli.messages import quiet
from valuechain.cli.options import examples
from valuechain.cli.sample import sample_export_path
from valuechain.errors import UsageError
from valuechain.report.funnel import render_funnel
from valuechain.report.tables import fitted_table
from valuechain.report.trial import render_trial

DEMO_STORE = "valuechain-demo.duckdb"


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
@click.option(
    "--verdict-policy",
    is_flag=True,
    help="Mark the runs as decided under verdict policy v2 (suite pass threshold 0.5), so "
    "valuechain verdict decides them.",
)
@examples(
    "valuechain synth --runs 2 --failures --out run.json",
    "valuechain synth --ndjson --gzip --seed 7 --out run.jsonl.gz",
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
    verdict_policy: bool,
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
        verdict_policy=verdict_policy,
    )
    if sum((gzip_, zstd_, zstd_legacy)) > 1:
        raise UsageError(
            "--gzip/--zstd/--zstd-legacy", "choose one compression", "drop all but one"
        )
    zstd = "native" if zstd_ else "legacy" if zstd_legacy else None
    try:
        summary = write_export(out_path, config, ndjson=ndjson, gzip=gzip_, proto=proto, zstd=zstd)
    except OSError as exc:
        raise UsageError(
            str(out_path),
            f"cannot write the export ({exc.strerror})",
            "check that the folder exists and is writable",
        ) from exc
    out.print(
        f"wrote {summary.path}: {summary.bytes_written} bytes, {summary.runs} runs, "
        f"{summary.trials} trials, {summary.spans} spans"
    )


@main.command()
@examples(
    "valuechain demo",
    "valuechain --store valuechain-demo.duckdb runs",
)
def demo() -> None:
    """Import the bundled sample export into a fresh demo store and show what it holds.

    The demo always uses its own ./valuechain-demo.duckdb, recreated on each run; it never
    touches the store named by --store or VALUECHAIN_STORE.
    """
    path = Path(DEMO_STORE)
    for stale in (path, Path(f"{path}.wal")):
        stale.unlink(missing_ok=True)
    sample = sample_export_path()
    if not quiet():
        out.rule("valuechain demo")
        out.print(f"store: {path}\nsample: {sample}")
    with api.open(path) as store:
        report = run_import(store, [str(sample)])
        print_import_report(report)
        if not quiet():
            _tour(store, path)
    if not report.ok:
        sys.exit(1)


def _tour(store: api.Store, path: Path) -> None:
    """What the demo store holds: spans by role, the first run's funnel, a failing trial."""
    out.print(fitted_table(store.spans_by_role(), title="spans by role"), crop=False)
    run_ids = store.runs()["run_id"].to_list()
    if run_ids:
        out.print(render_funnel(store.analytics_document(run_ids[0]), run_id=run_ids[0]))
        failing = store.first_failing_trial()
        if failing is not None:
            out.print(render_trial(store.trial(failing)))
    out.print(
        f"next: valuechain --store {path} runs | funnel RUN --slice model | trial TRIAL_ID | "
        'sql "SELECT * FROM stage_rates LIMIT 5"'
    )
