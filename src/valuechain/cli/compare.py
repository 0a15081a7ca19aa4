"""``compare``: two runs, parity blockers first, deltas and case changes only when comparable."""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

import click
from rich.text import Text

from valuechain.cli.app import main, open_store, out
from valuechain.cli.messages import aside
from valuechain.cli.options import CHAINS, DOCUMENT, examples, reader_analyzer_option
from valuechain.cli.output import write_json
from valuechain.errors import UsageError

if TYPE_CHECKING:
    from valuechain.contract.compare import RunComparison

# Exit code of `--fail-on regression` when a comparable pair regressed (1 stays an error,
# 2 a usage error, as click has it).
REGRESSION_EXIT: Final = 3


@main.command()
@click.argument("run_a")
@click.argument("run_b")
@CHAINS
@reader_analyzer_option("Compare the documents of this analyzer version.")
@DOCUMENT
@click.option(
    "--force",
    is_flag=True,
    help="List the cases even when the runs are not comparable (not a comparison claim).",
)
@click.option(
    "--fail-on",
    type=click.Choice(["regression"]),
    help="Exit 3 when a comparable pair shows a regressed case or a lower measured pass rate "
    "on any stage; exit 1 when the pair is not comparable (nothing was compared).",
)
@click.pass_context
@examples(
    "valuechain compare RUN_A RUN_B",
    "valuechain compare RUN_A RUN_B --fail-on regression   # a CI gate: exit 3",
)
def compare(
    ctx: click.Context,
    run_a: str,
    run_b: str,
    chains: str,
    analyzer: int | None,
    fmt: str,
    force: bool,
    fail_on: str | None,
) -> None:
    """Compare run B against run A: blockers first, then stage deltas and case changes."""
    if run_a == run_b:
        aside(
            Text.assemble(
                ("warning:", "yellow"),
                f" {run_a} is on both sides: a run compared with itself shows no change",
            )
        )
    with open_store(ctx, read_only=True) as store:
        comparison = store.compare(run_a, run_b, chains=chains, analyzer=analyzer, force=force)
    if fmt == "json":
        write_json(comparison.to_json())
    else:
        from valuechain.report.compare import render_comparison

        out.print(render_comparison(comparison))
    if fail_on is None:
        return
    if not comparison.comparable:
        why = ", ".join([*comparison.blockers, *(f"{r} unmeasured" for r in comparison.unmeasured)])
        raise UsageError(
            f"compare {run_a} {run_b}",
            f"not comparable ({why}), so --fail-on regression cannot decide",
            _blocked_hint(comparison),
        )
    from valuechain.api.commands import regression

    found = regression(comparison)
    if found:
        click.echo(f"regression: {'; '.join(found)}", err=True)
        ctx.exit(REGRESSION_EXIT)


def _blocked_hint(comparison: RunComparison) -> str:
    """The producer option that lifts a blocker, as the plain compare names it (an MCPJam
    SDK run without ``ci.pipelineId``); else what a comparable pair shares."""
    from pydantic import MISSING

    hints = [] if comparison.hints is MISSING else comparison.hints
    named = list(dict.fromkeys(h.hint for h in hints))
    if named:
        return "; ".join(named)
    return "compare final runs that share run group, config and case set, at one analyzer"
