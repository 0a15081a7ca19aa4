"""Every option and argument more than one command takes, declared once.

Commands differ only where they must: each names the ``--format`` choices it can render
(`format_option`), and the ``--analyzer`` of a reader is a plain version number while the
``--analyzer`` of a deriving command is one of the selectable versions. A RUN argument is
checked once the store is open (`require_runs`), with the one "no such run" error.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING

import click
from click.decorators import FC

from valuechain.cli.messages import compact_option
from valuechain.contract.labels import STAGE_LABELS, STATE_LABELS
from valuechain.contract.versions import SELECTABLE_ANALYZER_VERSIONS, STAGE_ANALYZER_VERSION
from valuechain.errors import UsageError
from valuechain.report.output_formats import Format

if TYPE_CHECKING:
    from valuechain import api


def format_option(*choices: str, help: str | None = None) -> Callable[[FC], FC]:
    """``--format`` over ``choices`` (default: every `Format`), ``table`` by default; with
    ``json`` among them, ``--compact`` too."""
    fmt = click.option(
        "--format",
        "fmt",
        type=click.Choice(list(choices) or [f.value for f in Format]),
        default="table",
        show_default=True,
        help=help,
    )
    if choices and "json" not in choices:
        return fmt

    def with_compact(f: FC) -> FC:
        return fmt(compact_option()(f))

    return with_compact


class Vocabulary(click.ParamType[str]):
    """One word of a contract vocabulary, as the wire spells it (``userValue``) or as tables
    print it (``User value``, ``user-value``): case, spaces, ``-`` and ``_`` do not matter.
    The value is the wire word."""

    def __init__(self, name: str, words: Iterable[tuple[StrEnum, str]]) -> None:
        self.name = name
        self.words = dict(words)
        self._known = {
            _folded(w): e.value for e, label in self.words.items() for w in (e.value, label)
        }

    def get_metavar(self, param: click.Parameter, ctx: click.Context) -> str:
        return "|".join(e.value for e in self.words)

    def convert(
        self, value: object, param: click.Parameter | None, ctx: click.Context | None
    ) -> str:
        found = self._known.get(_folded(str(value)))
        if found is None:
            named = ", ".join(f"{e.value} ({label})" for e, label in self.words.items())
            self.fail(f"{value!r} is no {self.name}: one of {named}", param, ctx)
        return found


def _folded(word: str) -> str:
    return "".join(c for c in word.lower() if c.isalnum())


STAGE_WORDS = Vocabulary("stage", STAGE_LABELS.items())
STATE_WORDS = Vocabulary("state", STATE_LABELS.items())


def stage_option(help: str) -> Callable[[FC], FC]:
    """``--stage``: a link of the chain, by its wire name or the word tables print."""
    return click.option("--stage", type=STAGE_WORDS, default=None, help=help)


def interval_option(default: float, help: str) -> Callable[[FC], FC]:
    """``--interval SECONDS``: how often a long-running command looks for new data."""
    return click.option(
        "--interval",
        type=click.FloatRange(min=0.05),
        default=default,
        show_default=True,
        metavar="SECONDS",
        help=help,
    )


def examples(*lines: str) -> Callable[[FC], FC]:
    """Append an ``Examples:`` paragraph to a command's help, one command line each (a
    ``# comment`` says what it does); click prints it as written (a ``\\b`` block). Put it
    under ``@main.command()``, above the function."""

    def add(f: FC) -> FC:
        block = "".join(f"      {line}\n" for line in lines)
        f.__doc__ = f"{(f.__doc__ or '').rstrip()}\n\n    Examples:\n\n    \b\n{block}"
        return f

    return add


def reader_analyzer_option(help: str) -> Callable[[FC], FC]:
    """``--analyzer N`` of a reader: which analyzer version's chains or documents to read."""
    return click.option("--analyzer", type=int, default=None, help=help)


def run_argument(*, required: bool = True) -> Callable[[FC], FC]:
    """One RUN argument; a command that needs the run to exist calls `require_runs`."""
    return click.argument("run", required=required)


def require_runs(store: api.Store, *runs: str) -> None:
    """The one "no such run" error, naming the first unknown run in sort order."""
    unknown = sorted(run for run in set(runs) if not store.has_run(run))
    if unknown:
        raise UsageError(
            f"run {unknown[0]}", "no such run in this store", "list the runs: valuechain runs"
        )


def require_suite(store: api.Store, suite: str | None) -> None:
    """The one "no such suite" error (a filter by a suite the store never saw would only
    show nothing, as if the suite had no final run)."""
    if suite is not None and not store.has_suite(suite):
        raise UsageError(
            f"suite {suite}",
            "no such suite in this store",
            "the runs list each run's suite: valuechain runs",
        )


FORMAT = format_option(help="Output format.")
# A reader whose result is rows: csv too. One whose result is a document: table or json.
TABULAR = format_option(
    "table", "json", "csv", help="json and csv carry the data itself, every column."
)
DOCUMENT = format_option("table", "json", help="json carries the data itself, every field.")
RUNS = click.argument("runs_", metavar="[RUN]...", nargs=-1)
# Some runs of a verb that otherwise takes every run (``--runs A --runs B``).
SOME_RUNS = click.option(
    "--runs",
    "runs_",
    multiple=True,
    metavar="RUN",
    help="Only these runs (repeat the option); default: every run.",
)
OVERWRITE = click.option("--overwrite", is_flag=True, help="Replace DIR when it is not empty.")


def lake_folder(name: str, help_text: str) -> Callable[[FC], FC]:
    """The folder a Parquet layout is written to (``export --parquet``, ``scale --out``)."""
    return click.option(
        name,
        "folder",
        required=True,
        type=click.Path(file_okay=False, path_type=Path),
        metavar="DIR",
        help=help_text,
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
ALLOW_FILES = click.option(
    "--allow-files",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    metavar="DIR",
    help="Let the SQL read files in this folder (read_csv, …); by default it reads the store only.",
)
WIDE = click.option(
    "--wide",
    is_flag=True,
    help="Every column in line, however wide (by default a table fits the terminal: what does "
    "not fit goes under its row).",
)


WAIT_KEY = "valuechain.wait"


def _remember_wait(ctx: click.Context, _param: click.Parameter, value: float | None) -> None:
    if value is not None:  # a command's own --wait wins over the global one
        ctx.meta[WAIT_KEY] = value


def wait_option(*, envvar: str | None = None) -> Callable[[FC], FC]:
    """``--wait SECONDS``: while another process holds the store, wait for it this long
    instead of failing with "store is busy" (`store.lock`). Global, and on every command."""
    return click.option(
        "--wait",
        type=click.FloatRange(min=0),
        default=None,
        metavar="SECONDS",
        envvar=envvar,
        show_envvar=envvar is not None,
        expose_value=False,
        callback=_remember_wait,
        help="While another command holds the store, wait up to SECONDS for it (default 0).",
    )


def waited(ctx: click.Context) -> float:
    """The ``--wait`` of this command line (the command's own, else the global one), or 0."""
    return float(ctx.meta.get(WAIT_KEY, 0.0))
