"""The click group, the one error boundary, the store it opens and the output helpers.

A ``ValuechainError`` prints as one red line (where, what) and a hint line, and exits 1; a
malformed command line the same way, exit 2; Ctrl-C one line saying what was kept, exit 130
(`interrupts`); anything else keeps its traceback, because that is a bug (`messages`).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from importlib import import_module
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
from click.core import ParameterSource
from rich.text import Text

from valuechain._version import __version__
from valuechain.api.store import default_store_path, memory_limit_bytes
from valuechain.cli.interrupts import (
    NOTHING_CHANGED,
    ROLLED_BACK,
    CtrlC,
    interruption_note,
    stop_interrupted,
)
from valuechain.cli.messages import (
    BadValue,
    aside,
    compact,
    compact_option,
    err,
    fail_usage,
    fail_with,
    out,
    quiet_option,
    remember_store,
)
from valuechain.cli.options import examples, wait_option, waited
from valuechain.cli.output import write_output
from valuechain.errors import UsageError, ValuechainError
from valuechain.report.output_formats import Format

if TYPE_CHECKING:
    from _collections_abc import dict_items, dict_keys, dict_values

    import polars as pl

    from valuechain import api
    from valuechain.report.columns import Col

COMMANDLINE = ParameterSource.COMMANDLINE
# The commands that never open the store of --store (no ``--wait``).
STORELESS = frozenset({"demo", "scale", "schema", "synth"})  # demo: its own store, recreated
__all__ = ["aside", "err", "out"]  # the consoles every command module prints on


class CommandsOnDemand(dict[str, click.Command]):
    """A group's commands, each module imported when one of its commands is first asked for
    (``valuechain runs`` imports the module of ``runs`` alone); listing them all (``--help``,
    the reference docs) imports every module. Its modules register their commands as they
    load (``@main.command()``)."""

    def __init__(self, modules: Mapping[str, str]) -> None:
        super().__init__()
        self._modules = dict(modules)  # command name → its module, until loaded

    def _load(self, name: str) -> None:
        module = self._modules.pop(name, None)
        if module is not None:
            import_module(module)

    def _load_all(self) -> None:
        for name in list(self._modules):
            self._load(name)

    def __getitem__(self, name: str) -> click.Command:
        self._load(name)
        return super().__getitem__(name)

    def get(self, name: str, default: Any = None) -> Any:  # click's `get_command`
        self._load(name)
        return super().get(name, default)

    def __contains__(self, name: object) -> bool:
        return name in self._modules or super().__contains__(name)

    def __iter__(self) -> Iterator[str]:
        self._load_all()
        return super().__iter__()

    def __len__(self) -> int:
        self._load_all()
        return super().__len__()

    def keys(self) -> dict_keys[str, click.Command]:
        self._load_all()
        return super().keys()

    def values(self) -> dict_values[str, click.Command]:
        self._load_all()
        return super().values()

    def items(self) -> dict_items[str, click.Command]:
        self._load_all()
        return super().items()


class Section(click.Group):
    """A group of verbs under the main one (``store …``): each takes ``--quiet`` too."""

    def add_command(self, cmd: click.Command, name: str | None = None) -> None:
        store_option(cmd)
        quiet_option()(cmd)
        super().add_command(cmd, name)


class Boundary(click.Group):
    """The one place expected errors become a red line, a hint line and exit code 1 (2 for
    a malformed command line), and Ctrl-C one line and exit code 130 (`interrupts`)."""

    group_class = Section

    def add_command(self, cmd: click.Command, name: str | None = None) -> None:
        """Every command that opens a store takes ``--store`` and ``--wait`` too
        (``valuechain runs --store x.duckdb`` as well as ``valuechain --store x.duckdb runs``),
        and every one ``--quiet``."""
        if (name or cmd.name) not in STORELESS:
            store_option(cmd)
            wait_option()(cmd)
        quiet_option()(cmd)
        super().add_command(cmd, name)

    def make_context(
        self,
        info_name: str | None,
        args: list[str],
        parent: click.Context | None = None,
        **extra: Any,
    ) -> click.Context:
        try:
            return super().make_context(info_name, args, parent, **extra)
        except click.exceptions.NoArgsIsHelpError:
            raise  # bare ``valuechain``: click prints the help
        except click.UsageError as exc:  # a global option misused
            fail_usage(exc)

    def invoke(self, ctx: click.Context) -> Any:
        with CtrlC() as ctrl_c:
            try:
                return super().invoke(ctx)
            except (SystemExit, click.exceptions.Exit, click.exceptions.NoArgsIsHelpError):
                raise
            except BaseException as exc:
                from valuechain.api.store import is_interruption

                # after Ctrl-C, whatever unwound the command (a stopped query's error too)
                if ctrl_c.presses or is_interruption(exc):
                    stop_interrupted(ctx, exc)
                if isinstance(exc, click.UsageError):
                    fail_usage(exc)
                if isinstance(exc, ValuechainError):
                    fail_with(exc)
                duckdb = sys.modules.get("duckdb")  # loaded once a command opened the store
                if duckdb is not None and isinstance(exc, duckdb.Error):  # a full disk, …
                    from valuechain.api.store import storage_error

                    storage = storage_error(exc, str(store_path(ctx)))
                    if storage is not None:
                        fail_with(storage)
                raise  # a bug: its traceback


def _memory_limit(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """The store's check of the size, as a usage error of the option (or its variable)."""
    if value is not None:
        try:
            memory_limit_bytes(value, "--memory-limit")
        except UsageError as exc:
            raise BadValue(exc.problem, exc.hint or "") from None
    return value


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
@click.option(
    "--memory-limit",
    envvar="VALUECHAIN_MEMORY_LIMIT",
    show_envvar=True,
    metavar="SIZE",
    callback=_memory_limit,
    help="Most memory the store's engine may use, e.g. 512MB (default 512MB); it spills beyond.",
)
@wait_option(envvar="VALUECHAIN_WAIT")
@quiet_option()
@compact_option()
@click.pass_context
@examples(
    "valuechain demo                       # the bundled sample, a funnel, a trial",
    "valuechain import exports/            # files, directories, globs",
    "valuechain runs                       # what the store holds",
    "valuechain --store other.duckdb -q funnel RUN --format json",
    "valuechain COMMAND --help             # its options and examples",
)
def main(ctx: click.Context, store_path: Path | None, memory_limit: str | None) -> None:
    """Honest user-value-chain analytics from OTLP eval traces of MCP servers."""
    ctx.obj = StoreChoice(store_path, memory_limit)
    if store_path is not None and ctx.get_parameter_source("store_path") is COMMANDLINE:
        remember_store(ctx, store_path)


@dataclass(slots=True)
class StoreChoice:
    """The global options that say which store to open, and how (a command's own
    ``--store`` replaces the global one's path)."""

    path: Path | None
    memory_limit: str | None


def _store_here(ctx: click.Context, _param: click.Parameter, value: Path | None) -> None:
    if value is not None:  # the command's own --store wins over the global one
        choice: StoreChoice = ctx.find_root().obj
        choice.path = value
        remember_store(ctx, value)


def store_option(cmd: click.Command) -> None:
    """A command's own ``--store``: the global option, after the command's name too."""
    click.option(
        "--store",
        "store_here",
        type=click.Path(dir_okay=False, path_type=Path),
        expose_value=False,
        callback=_store_here,
        help="The store file (as the global --store, which it replaces).",
    )(cmd)


def open_store(
    ctx: click.Context,
    *,
    read_only: bool = False,
    settle: bool = True,
    allow_files: Path | None = None,
) -> api.Store:
    """The store of the global options. What an interrupted import left underived is named
    on a read-only open and, on a writable one, derived before the command runs (unless
    ``settle`` is off: ``import`` does it itself and reports it in its summary)."""
    from valuechain import api  # the engines load with the first store opened
    from valuechain.api.store import STORE_SCHEMA_VERSION

    choice: StoreChoice = ctx.obj
    interruption_note(NOTHING_CHANGED if read_only else ROLLED_BACK)
    store = api.open(
        choice.path,
        read_only=read_only,
        memory_limit=choice.memory_limit,
        allow_files=allow_files,
        wait=waited(ctx),
    )
    if store.db.migrated_from is not None:
        aside(
            f"migrated the store from schema version {store.db.migrated_from} to "
            f"{STORE_SCHEMA_VERSION} (on a copy, swapped in once complete)"
        )
    try:
        pending = store.pending_derivation()
        if read_only:
            documents = store.pending_documents()
            for state in (pending, documents):
                if state is not None:
                    aside(Text.assemble(("warning:", "yellow"), f" {state.render()}"))
        elif settle and (pending is not None or store.pending_documents() is not None):
            done = store.complete_pending()
            if done is not None:
                aside(f"completed an unfinished derivation first: {done.describe()}")
    except BaseException:
        store.close()
        raise
    return store


def emit(
    frame: pl.DataFrame,
    fmt: Format,
    output: Path | None,
    *,
    columns: tuple[Col, ...] | None = None,
    wide: bool = False,
) -> None:
    """A result frame in ``fmt``: a table fitted to the terminal (``columns`` say how; see
    `fitted_table`), or whole as csv, json or parquet to ``output`` or standard output."""
    from valuechain.report.formats import render_bytes
    from valuechain.report.tables import fitted_table

    if fmt is Format.TABLE:
        if output is not None:
            raise UsageError(
                "--output",
                "a table is for the terminal",
                "use --format csv, json or parquet with --output",
            )
        out.print(fitted_table(frame, columns, wide=wide), crop=False)
        return
    if fmt is Format.PARQUET and output is None and _stdout_is_terminal():
        raise UsageError(
            "--format parquet",
            "Parquet is binary and standard output is a terminal",
            "add --output FILE.parquet, or redirect: > FILE.parquet",
        )
    data = render_bytes(frame, fmt, compact=compact())
    if output is not None:
        write_output(data, output, store_path(click.get_current_context()))
    else:
        sys.stdout.buffer.write(data)


def _stdout_is_terminal() -> bool:
    try:
        return os.isatty(sys.stdout.fileno())
    except (AttributeError, OSError, ValueError):  # no file descriptor (a test's capture)
        return sys.stdout.isatty()


def store_path(ctx: click.Context) -> Path:
    """The store the command names (--store, $VALUECHAIN_STORE, or the default)."""
    choice: StoreChoice = ctx.find_root().obj
    return choice.path if choice.path is not None else default_store_path()
