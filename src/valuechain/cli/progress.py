"""The progress bar of every long verb: one line that says which phase runs, on what, how far
and how fast — on standard error, only on a terminal, never with ``--quiet``.

Each phase (`Phase`) restarts the bar, so its count and speed are that phase's own: bytes and
bytes per second while a source is hashed and decoded, traces while chains are derived, runs
while documents are materialized, batches while a recompute runs, and a pulsing bar for what
counts nothing (a commit, a store operation: `working`).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from types import TracebackType

from rich.console import Console
from rich.filesize import decimal
from rich.progress import (
    BarColumn,
    Progress,
    ProgressColumn,
    Task,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
)
from rich.text import Text

from valuechain.api.commands import UNITS, Phase
from valuechain.cli.messages import err, quiet


class _Done(ProgressColumn):
    """``12.3/166.8 MB`` for bytes, ``3,000/20,000 traces`` for counts, nothing for a commit."""

    def render(self, task: Task) -> Text:
        unit = task.fields.get("unit", "")
        if task.total is None or not unit:
            return Text("")
        if unit == "bytes":
            return Text(f"{decimal(int(task.completed))}/{decimal(int(task.total))}")
        return Text(f"{int(task.completed):,}/{int(task.total):,} {unit}")


class _Speed(ProgressColumn):
    """The current phase's speed (rich's estimate over its recent samples), in its unit."""

    def render(self, task: Task) -> Text:
        unit = task.fields.get("unit", "")
        speed = task.finished_speed or task.speed
        if speed is None or not unit:
            return Text("")
        if unit == "bytes":
            return Text(f"{decimal(int(speed))}/s")
        return Text(f"{speed:,.0f} {unit}/s")


class PhaseBar:
    """An `ImportProgress` drawing one transient bar on ``console`` (standard error by
    default; off when it is not a terminal, and with ``--quiet``)."""

    def __init__(self, console: Console | None = None) -> None:
        console = console or err
        self._progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            _Done(),
            _Speed(),
            TimeElapsedColumn(),
            console=console,
            transient=True,
            disable=not console.is_terminal or quiet(),
        )
        self._task: TaskID | None = None

    def start(self, phase: Phase, total: int | None, label: str = "") -> None:
        description = f"{phase.value} {label}".strip()
        if self._task is None:
            self._task = self._progress.add_task(description, total=total, unit=UNITS[phase])
        else:
            self._progress.reset(
                self._task, total=total, completed=0, description=description, unit=UNITS[phase]
            )

    def advance(self, done: int) -> None:
        if self._task is not None:
            self._progress.advance(self._task, done)

    def __enter__(self) -> PhaseBar:
        self._progress.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self._progress.stop()


ImportBar = PhaseBar  # the import's, by its first name


@contextmanager
def working(phase: Phase, label: str = "", console: Console | None = None) -> Iterator[PhaseBar]:
    """A pulsing bar while one uncounted step runs (``store vacuum``, ``materialize``)."""
    with PhaseBar(console) as bar:
        bar.start(phase, None, label)
        yield bar
