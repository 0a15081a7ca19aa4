"""``verdict``: a run's decision summary for people and CI gates (CONTRACT §6)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Final

import click

from valuechain.cli.app import main, open_store, out
from valuechain.cli.messages import with_store
from valuechain.cli.options import (
    CHAINS,
    examples,
    format_option,
    reader_analyzer_option,
    run_argument,
)
from valuechain.cli.output import write_json
from valuechain.contract.vocab import Verdict

# Exit code of `--fail-on` when the verdict is one of those listed (1 stays an error, 2 a
# usage error, as click has it) — the same code `compare --fail-on regression` uses.
VERDICT_EXIT: Final = 3


def _verdicts(ctx: click.Context, param: click.Parameter, value: str | None) -> frozenset[Verdict]:
    if value is None:
        return frozenset()
    chosen = [v.strip() for v in value.split(",") if v.strip()]
    known = {v.value for v in Verdict}
    wrong = [v for v in chosen if v not in known]
    if wrong or not chosen:
        raise click.BadParameter(
            f"{', '.join(wrong) or 'nothing'} is not a verdict; choose from {', '.join(known)}"
        )
    return frozenset(Verdict(v) for v in chosen)


@main.command()
@run_argument()
@CHAINS
@reader_analyzer_option("Show diagnostics over the chains of this analyzer version.")
@format_option(
    "table",
    "json",
    "markdown",
    "junit",
    help="json prints the decision summary document itself; markdown suits a pull-request "
    "comment; junit lets CI systems show cases.",
)
@click.option(
    "--policy",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Decide under this policy file (TOML or JSON; see valuechain schema verdict-policy).",
)
@click.option("--page", metavar="CURSOR", help="Show the diagnostics page this cursor names.")
@click.option(
    "--fail-on",
    metavar="VERDICTS",
    callback=_verdicts,
    help="Exit 3 when the verdict is one of these (comma-separated, e.g. failed,inconclusive).",
)
@click.pass_context
@examples(
    "valuechain verdict RUN",
    "valuechain verdict RUN --format junit --fail-on failed > verdict.xml",
)
def verdict(
    ctx: click.Context,
    run: str,
    chains: str,
    analyzer: int | None,
    fmt: str,
    policy: Path | None,
    page: str | None,
    fail_on: frozenset[Verdict],
) -> None:
    """A run's verdict: what was measured (with its unit), why, and who acts next."""
    from valuechain.report.verdict import render_verdict, verdict_junit, verdict_markdown

    with open_store(ctx, read_only=True) as store:
        view = store.verdict(run, chains=chains, analyzer=analyzer, policy=policy, page=page)
    if fmt == "json":
        write_json(view.summary.to_json())
    elif fmt == "markdown":
        sys.stdout.write(verdict_markdown(view, with_store))
    elif fmt == "junit":
        sys.stdout.write(verdict_junit(view))
    else:
        out.print(render_verdict(view, with_store))
    if view.summary.verdict in fail_on:
        click.echo(f"verdict {view.summary.verdict.value}: listed in --fail-on", err=True)
        ctx.exit(VERDICT_EXIT)
