"""What the command line says besides its result: errors, hints, and asides that --quiet stops.

An expected error is one red line — where, then what — and a ``hint:`` line under it, each
wrapped at the width of the terminal (80 when it is not one) without ever breaking a word, so
an id or a path stays whole and can be copied. Asides (progress bars, "migrated the store",
"completed an unfinished derivation first", notes about what a format leaves out) go to
standard error and are silenced by ``--quiet``, which leaves only the result and the errors.
"""

from __future__ import annotations

import re
import shlex
import sys
from collections.abc import Callable
from typing import Final, NoReturn

import click
from click.decorators import FC
from rich.console import Console
from rich.text import Text

from valuechain.errors import ValuechainError

out = Console()
err = Console(stderr=True)

QUIET_KEY: Final = "valuechain.quiet"
COMPACT_KEY: Final = "valuechain.compact"
STORE_KEY: Final = "valuechain.store"  # the --store the command line named, if it did
_COMMAND = re.compile(r"\bvaluechain ([a-z][a-z-]*)\b(?: ([a-z][a-z-]*)\b)?")
INDENT: Final = "  "  # a wrapped line continues under its first word


def _flag_option(key: str, *names: str, help: str) -> Callable[[FC], FC]:
    """A flag that is global and on every command alike: given either place, it is kept in
    the root context's ``meta[key]`` (read by `quiet`, `compact`); eager, so it holds before
    any other option's callback runs."""

    def remember(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
        if value:  # global or the command's own: either holds for the whole command line
            ctx.find_root().meta[key] = True

    return click.option(
        *names,
        is_flag=True,
        default=False,
        expose_value=False,
        is_eager=True,
        callback=remember,
        help=help,
    )


def quiet_option() -> Callable[[FC], FC]:
    """``--quiet`` / ``-q``: no progress, no asides — only the result, or the error. Global,
    and on every command; exit codes do not change."""
    return _flag_option(
        QUIET_KEY,
        "--quiet",
        "-q",
        help="Print only the result (or the error): no progress bars, no notes.",
    )


def quiet() -> bool:
    """Whether this command line asked for ``--quiet`` (False outside a command)."""
    ctx = click.get_current_context(silent=True)
    return bool(ctx is not None and ctx.find_root().meta.get(QUIET_KEY))


def compact_option() -> Callable[[FC], FC]:
    """``--compact``: JSON on one line. Global, and on every command that prints JSON; by
    default every command's JSON is indented two spaces."""
    return _flag_option(
        COMPACT_KEY,
        "--compact",
        help="JSON on one line (by default indented two spaces, as every command prints it).",
    )


def compact() -> bool:
    """Whether this command line asked for ``--compact`` JSON."""
    ctx = click.get_current_context(silent=True)
    return bool(ctx is not None and ctx.find_root().meta.get(COMPACT_KEY))


def aside(message: str | Text) -> None:
    """A note on standard error for whoever watches; nothing with --quiet."""
    if not quiet():
        err.print(message, highlight=False, soft_wrap=True)


def summary(message: str) -> None:
    """What a writing command changed, on standard output; nothing with --quiet (the exit
    code says whether it worked; a dry run's description is its result and always prints)."""
    if not quiet():
        out.print(message, highlight=False, soft_wrap=True)


def wrapped(text: str, width: int, label: str = "") -> list[str]:
    """``label text`` in lines of at most ``width`` columns, continuation lines indented; a
    word longer than a line (a long path) is never cut: it stands whole on a line of its own
    (after the label, when it comes first)."""
    words = text.split()
    current = label or (words.pop(0) if words else "")
    lines: list[str] = []
    for word in words:
        if len(current) + 1 + len(word) <= width or current in (label, INDENT):
            current = f"{current} {word}" if current != INDENT else INDENT + word
        else:
            lines.append(current)
            current = INDENT + word
    lines.append(current)
    return lines


def remember_store(ctx: click.Context, path: object) -> None:
    """The ``--store`` this command line named, for the commands its hints suggest."""
    ctx.find_root().meta[STORE_KEY] = str(path)


def with_store(text: str) -> str:
    """``text`` with the ``--store`` the command line named put into every ``valuechain
    COMMAND`` it suggests, so the suggestion reads the same store (unchanged without one)."""
    ctx = click.get_current_context(silent=True)
    named = ctx.find_root().meta.get(STORE_KEY) if ctx is not None else None
    if ctx is None or named is None:
        return text
    commands = getattr(ctx.find_root().command, "commands", {})
    option = f"--store {shlex.quote(named)}"

    def named_store(m: re.Match[str]) -> str:
        command = commands.get(m[1])
        if command is None:
            return m[0]
        group = getattr(command, "commands", None)  # `store`: a command only with its verb
        if group is not None and m[2] not in group:
            return m[0]  # prose: "not a valuechain store"
        return f"valuechain {option} {m[0].removeprefix('valuechain ')}"

    return _COMMAND.sub(named_store, text)


def error_lines(
    problem: str, hint: str | None, width: int, label: str = "error:", detail: str | None = None
) -> list[Text]:
    """The red ``error:`` line and its ``hint:`` line (its commands on the store the command
    line named), wrapped at ``width``; between them the ``detail`` lines as they are,
    indented (a query with the caret under its error must not be wrapped)."""
    lines = [Text(line, style="red") for line in wrapped(problem, width, label)]
    for line in (detail or "").splitlines():  # the query and its caret stay as they are
        kept = line.startswith("LINE ") or set(line.strip()) <= {"^"}
        shown = [INDENT + line] if kept else wrapped(line, width, INDENT)
        lines.extend(Text(part, style="red") for part in shown)
    if hint:
        hint = with_store(hint)
        lines.extend(Text(line, style="dim") for line in wrapped(hint, width, "hint:"))
    return lines


def say_error(exc: ValuechainError, label: str = "error:") -> None:
    """A `ValuechainError` as its red line (where: what) and its hint, on standard error
    (even with --quiet)."""
    problem = f"{exc.where}: {exc.problem}" if exc.where else exc.problem
    for line in error_lines(problem, exc.hint, err.width, label, exc.detail):
        err.print(line, highlight=False, soft_wrap=True)


def fail(problem: str, hint: str | None = None, *, code: int = 1) -> NoReturn:
    """Print one error and its hint on standard error (even with --quiet) and exit ``code``."""
    for line in error_lines(problem, hint, err.width):
        err.print(line, highlight=False, soft_wrap=True)
    sys.exit(code)


def fail_with(exc: ValuechainError) -> NoReturn:
    """A `ValuechainError` as its red line (where: what) and its hint; exit 1."""
    say_error(exc)
    sys.exit(1)


class BadValue(click.BadParameter):
    """A value click's types accept and our check refuses, with the hint that fixes it."""

    def __init__(self, message: str, hint: str) -> None:
        super().__init__(message)
        self.hint = hint


def fail_usage(exc: click.UsageError) -> NoReturn:
    """A malformed command line as one red line and its hint (the value's own, else the
    help that shows how); exit 2, as click has it."""
    ctx = exc.ctx
    command = ctx.command_path if ctx is not None else "valuechain"
    hint = getattr(exc, "hint", None) or f"{command} --help shows the options and an example"
    fail(exc.format_message(), hint, code=2)
