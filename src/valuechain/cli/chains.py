"""``derive``, ``verify`` and ``trial``: the six-stage chains of trials."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Final

import click

from valuechain.cli.app import emit, main, open_store, out
from valuechain.cli.messages import quiet
from valuechain.cli.messages import summary as summary_line
from valuechain.cli.options import (
    ANALYZER,
    CHAINS,
    STATE_WORDS,
    TABULAR,
    WIDE,
    examples,
    reader_analyzer_option,
    require_runs,
    run_argument,
    stage_option,
)
from valuechain.cli.output import write_json
from valuechain.cli.progress import PhaseBar
from valuechain.contract.words import plural
from valuechain.report.columns import Col
from valuechain.report.output_formats import Format

if TYPE_CHECKING:
    import polars as pl

    from valuechain.api.commands import ProducerClaims, TrialView


# ---------------------------------------------------------------------------- chains
@main.command()
@ANALYZER
@click.pass_context
@examples(
    "valuechain derive                 # at the current analyzer",
    "valuechain derive --analyzer 11    # beside it, at the previous one",
)
def derive(ctx: click.Context, analyzer: int) -> None:
    """(Re)derive every trial's chain at an analyzer version (12, or the selectable 11)."""
    with open_store(ctx) as store, PhaseBar() as bar:
        summary = store.derive(analyzer=analyzer, on_progress=bar)
    summary_line(
        f"derived {plural(summary.derived, 'chain')} at analyzer {analyzer} over "
        f"{plural(summary.trials, 'trial')} in {plural(len(summary.run_ids), 'run')}; "
        f"{plural(summary.producer_chains, 'producer chain')} stored; "
        f"{plural(summary.issues, 'trial issue')}"
    )


@main.command()
@run_argument(required=False)
@click.option(
    "--claims",
    is_flag=True,
    help="With --format json/csv: the producer's own verdicts beside the derived chains "
    "(MCPJam SDK runs), one row per trial, instead of the chain disagreements.",
)
@TABULAR
@click.pass_context
@examples(
    "valuechain verify RUN",
    "valuechain verify --format json",
    "valuechain verify RUN --claims --format csv   # SDK runs: the SDK's passed vs the chain",
)
def verify(ctx: click.Context, run: str | None, claims: bool, fmt: str) -> None:
    """List every trial where the producer's chain and valuechain's disagree, stage by stage;
    for MCPJam SDK runs, set the SDK's own verdict beside each derived chain and say why they
    differ."""
    with open_store(ctx, read_only=True) as store:
        if run is not None:
            require_runs(store, run)
        found = store.disagreements(run)
        verdicts = store.producer_claims(run)
    if fmt != "table":
        emit(verdicts.rows if claims else found.rows, Format(fmt), None)
        return
    out.print(
        f"{found.compared} trials carry a producer chain; "
        f"{found.trials} disagree with the derived one"
    )
    if found.rows.height:
        emit(found.rows, Format.TABLE, None)
    if verdicts.trials:
        _print_claims(verdicts)


CLAIM_TABLE: Final = (
    Col("case"),
    Col("variant", keep=2),
    Col("rep", align="right", keep=2),
    Col("sdk"),
    Col("chain"),
    Col("agree", keep=1),
    Col("why", under=True),
)


def _print_claims(claims: ProducerClaims) -> None:
    """The SDK's verdicts beside the derived chains: counts per run, then trial by trial."""
    out.print(
        f"{claims.trials} MCPJam SDK trials carry the SDK's own verdict (passed); "
        f"{claims.agree} agree with the derived chain, {claims.disagree} disagree "
        "(agree: both fail, or neither does)"
    )
    for row in claims.by_run().iter_rows(named=True):
        out.print(
            f"  run {row['run_id']}: {row['trials']} trials, {row['agree']} agree, "
            f"{row['disagree']} disagree"
        )
    rows = claims.rows
    import polars as pl

    table = pl.DataFrame(
        {
            "case": rows["case_title"],
            "variant": rows["provider"] + "/" + rows["model"],
            "rep": rows["repetition"],
            "sdk": rows["producer_result"],
            "chain": [
                derived if stage is None else f"failed at {stage} ({reason})"
                for derived, stage, reason in zip(
                    rows["derived_result"],
                    rows["first_failed_stage"],
                    rows["first_failed_reason"],
                    strict=True,
                )
            ],
            "agree": rows["agrees"].replace_strict({True: "yes", False: "NO"}),
            "why": rows["why"].fill_null(""),
        }
    )
    emit(table, Format.TABLE, None, columns=CLAIM_TABLE)


@main.command()
@click.argument("trial_id")
@CHAINS
@reader_analyzer_option("Show the chain of this version.")
@TABULAR
@WIDE
@click.pass_context
@examples(
    "valuechain trial TRIAL_ID",
    "valuechain trial TRIAL_ID --chains producer --format json",
)
def trial(
    ctx: click.Context, trial_id: str, chains: str, analyzer: int | None, fmt: str, wide: bool
) -> None:
    """Show one trial's chain: where value stopped, why, and who should look next."""
    with open_store(ctx, read_only=True) as store:
        view = store.trial(trial_id, chains=chains, analyzer=analyzer)
    if fmt == "json":
        write_json(view.to_json())
        return
    if fmt == "csv":
        emit(chain_frame(view), Format.CSV, None)
        return
    from valuechain.report.trial import render_trial

    out.print(render_trial(view, wide=wide), crop=False)


def chain_frame(view: TrialView) -> pl.DataFrame:
    """The trial's chain as rows, one per stage, with the ids that say whose chain it is."""
    import polars as pl

    ids = {
        "trial_id": view.identity["trial_id"],
        "run_id": view.identity["run_id"],
        "chain_source": view.source,
        "analyzer_version": view.analyzer_version,
    }
    rows = [{**ids, **{_snake(k): v for k, v in row.items()}} for row in view.chain]
    return pl.DataFrame(rows, infer_schema_length=None)


def _snake(name: str) -> str:
    """``stateLabel`` → ``state_label``: csv columns are snake_case, as the views'."""
    return re.sub(r"(?<!^)([A-Z])", r"_\1", name).lower()


TRIALS_COLUMNS: Final = (
    Col("trial_id", "trial"),
    Col("first_failed_stage", "stopped at"),
    Col("reason", keep=1),
    Col("stage_state", "at --stage", keep=1),
    Col("stage_reason", "its reason", keep=2),
    Col("category", keep=3),
    Col("variant", keep=4),
    Col("repetition", "rep", align="right", keep=4),
    Col("case", under=True),
    Col("status", wide=True),
)


@main.command()
@run_argument()
@click.option("--case", "case", help="Only this case (its id, key or title).")
@click.option(
    "--state",
    type=STATE_WORDS,
    help="Only trials with a link in this state (with --stage: that link).",
)
@stage_option("Only trials that stopped at this link (with --state: whose link is in it).")
@reader_analyzer_option("Read chains of this analyzer version.")
@TABULAR
@WIDE
@click.pass_context
@examples(
    "valuechain trials RUN                         # every trial and where it stopped",
    "valuechain trials RUN --stage 'Tool call'      # those that stopped at Tool call",
    "valuechain trials RUN --state notMeasured --stage userValue",
)
def trials(
    ctx: click.Context,
    run: str,
    case: str | None,
    state: str | None,
    stage: str | None,
    analyzer: int | None,
    fmt: str,
    wide: bool,
) -> None:
    """List a run's trials with the link each stopped at, its reason and category: the ids
    to pass to `valuechain trial`."""
    with open_store(ctx, read_only=True) as store:
        frame = store.trials(run, case=case, state=state, stage=stage, analyzer=analyzer)
    if fmt != "table":
        emit(frame, Format(fmt), None)
        return
    if not frame.height:
        out.print(f"no trial of run {run} matches", highlight=False)
        return
    import polars as pl

    table = frame.with_columns(pl.col("first_failed_stage").fill_null("— (no link failed)"))
    columns = tuple(c for c in TRIALS_COLUMNS if c.name in frame.columns)
    emit(table, Format.TABLE, None, columns=columns, wide=wide)
    if not quiet():
        shown = f"{frame.height} trial{'s' * (frame.height != 1)}"
        first = frame["trial_id"][0] if frame.height else None
        summary_line(shown + (f"; one in full: valuechain trial {first}" if first else ""))
