"""The import's progress bar: one line that says which phase runs, on what, how far and how fast.

Each phase (`Phase`) restarts the bar, so its count and speed are that phase's own: bytes and
bytes per second while a source is hashed and decoded, traces while chains are derived, runs
while documents are materialized, and a pulsing bar for the commit, which counts nothing.
"""

from __future__ import annotations

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

from valuechain.pipeline.progress import UNITS, Phase


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


class ImportBar:
    """An `ImportProgress` drawing one transient bar on ``console`` (off when not a terminal)."""

    def __init__(self, console: Console) -> None:
        self._progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            _Done(),
            _Speed(),
            TimeElapsedColumn(),
            console=console,
            transient=True,
            disable=not console.is_terminal,
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

    def __enter__(self) -> ImportBar:
        self._progress.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self._progress.stop()
