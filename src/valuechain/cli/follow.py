"""``import --follow DIR``: tail a collector's output directory until Ctrl-C."""

from __future__ import annotations

import signal
import threading
from datetime import UTC, datetime
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any

import click

from valuechain.cli.app import open_store, out
from valuechain.cli.messages import aside, summary
from valuechain.cli.options import interval_option

if TYPE_CHECKING:
    from valuechain.api.commands import FollowRound

FOLLOW = click.option(
    "--follow",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    metavar="DIR",
    help="Keep importing a collector's output directory as it grows (Ctrl-C stops).",
)
INTERVAL = interval_option(2.0, "With --follow: seconds between looks at the directory.")


def run_follow(ctx: click.Context, directory: Path, interval: float, **options: Any) -> None:
    """Follow until Ctrl-C (or SIGTERM): the round under way finishes, then it stops; a
    second Ctrl-C interrupts at once (the unfinished source is undone, nothing half-written)."""
    stopping = threading.Event()
    requested: list[int] = []

    def request_stop(signum: int, frame: FrameType | None) -> None:
        if requested:
            raise KeyboardInterrupt
        requested.append(signum)
        # set from another thread: this handler runs on the main thread, which may be holding
        # the event's lock inside `stopping.wait` (a lock it cannot take twice)
        threading.Thread(target=stopping.set, daemon=True).start()
        aside("stopping after this round (Ctrl-C again to interrupt now)")

    previous = {s: signal.signal(s, request_stop) for s in (signal.SIGINT, signal.SIGTERM)}
    totals = {"sources": 0, "spans": 0, "rounds": 0}

    def report(result: FollowRound) -> None:
        totals["rounds"] += 1
        for source in result.sources:
            totals["sources"] += 1
            totals["spans"] += source.spans
            line = f"{_now()} {source.path}: {source.outcome}, {source.spans} spans"
            if source.error is not None:
                line += f" ({source.error.render()})"
            out.print(line, highlight=False, soft_wrap=True)
        if result.derived is not None:
            out.print(f"{_now()} {result.derived.describe()}", highlight=False, soft_wrap=True)

    try:
        with open_store(ctx, settle=False) as store:
            summary(f"following {directory} every {interval:g}s (Ctrl-C stops)")
            store.follow(
                directory, interval=interval, stop=stopping.wait, on_round=report, **options
            )
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    summary(
        f"stopped after {_n(totals['rounds'], 'round')}: {_n(totals['sources'], 'source')}, "
        f"{_n(totals['spans'], 'span')} imported; a restart resumes here"
    )


def _n(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
