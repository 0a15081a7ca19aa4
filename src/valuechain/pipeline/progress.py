"""What a long command tells whoever watches it: which phase it is in, and how far along.

An import goes through labelled phases — ``hash`` and ``decode`` count the bytes of one source
as they are read (decoding consumes them), ``commit`` writes its last transaction, ``derive``
counts the traces (≈ trials) of the runs it derives, ``materialize`` the runs whose documents
it writes. A watcher implements `ImportProgress`; the pipeline calls ``start`` at each phase
and ``advance`` as work is done, so a speed computed per phase is the speed of that phase.

The other long verbs use the same watchers: ``recompute`` counts its batches of runs; the
store's operations (``delete``, ``purge``, ``migrate``, ``vacuum``) are one step each, so they
count nothing and say only that they run (`Phase` units of ``""``).
"""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum
from typing import Protocol


class Phase(StrEnum):
    HASH = "hash"
    DECODE = "decode"
    COMMIT = "commit"
    DERIVE = "derive"
    MATERIALIZE = "materialize"
    RECOMPUTE = "recompute"
    DELETE = "delete"
    PURGE = "purge"
    MIGRATE = "migrate"
    VACUUM = "vacuum"
    EXPORT = "export"


UNITS: dict[Phase, str] = {
    Phase.HASH: "bytes",
    Phase.DECODE: "bytes",
    Phase.COMMIT: "",
    Phase.DERIVE: "traces",
    Phase.MATERIALIZE: "runs",
    Phase.RECOMPUTE: "batches",
    Phase.DELETE: "",
    Phase.PURGE: "",
    Phase.MIGRATE: "",
    Phase.VACUUM: "",
    Phase.EXPORT: "tables",
}


class ImportProgress(Protocol):
    def start(self, phase: Phase, total: int | None, label: str = "") -> None:
        """A phase begins; ``total`` units of work (None: not counted), ``label`` what on."""

    def advance(self, done: int) -> None:
        """``done`` more units of the current phase are done."""


class Silent:
    """No one is watching."""

    def start(self, phase: Phase, total: int | None, label: str = "") -> None:
        del phase, total, label

    def advance(self, done: int) -> None:
        del done


class BytesDecoded:
    """Calls ``fn(n)`` for every ``n`` bytes of a source decoded (the sum: every byte read)."""

    def __init__(self, fn: Callable[[int], None]) -> None:
        self.fn = fn
        self.counting = False

    def start(self, phase: Phase, total: int | None, label: str = "") -> None:
        del total, label
        self.counting = phase is Phase.DECODE

    def advance(self, done: int) -> None:
        if self.counting:
            self.fn(done)


class BatchesDone:
    """``recompute``'s ``on_batch(done, total, trials)`` as a `Phase.RECOMPUTE` on ``watcher``:
    uncounted until the first batch reports how many there are, then counted."""

    def __init__(self, watcher: ImportProgress) -> None:
        self.watcher = watcher
        self.done: int | None = None
        watcher.start(Phase.RECOMPUTE, None)

    def __call__(self, done: int, total: int, trials: int) -> None:
        del trials
        if self.done is None:
            self.watcher.start(Phase.RECOMPUTE, total)
            self.done = 0
        self.watcher.advance(done - self.done)
        self.done = done
