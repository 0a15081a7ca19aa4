"""A simulated OpenTelemetry collector file exporter (TRACE-FORMAT §5.3), run as a process.

``python collector_sim.py OUT_DIR LINES_FILE [--rotate-every N] [--pause S] [--group KEY]``
appends the NDJSON lines of LINES_FILE to ``OUT_DIR/[KEY/]traces.json`` the way the
collector does — each line in two writes, so a reader often meets a half-written last line —
and every N lines rotates: the live file is renamed ``traces-<UTC timestamp>.json`` and a new
live file starts. It prints ``done`` when every line is written. With --stop-after K it
writes K lines, leaves the next one half written, and waits to be killed.
"""

from __future__ import annotations

import argparse
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("out", type=Path)
    parser.add_argument("lines", type=Path)
    parser.add_argument("--rotate-every", type=int, default=0)
    parser.add_argument("--pause", type=float, default=0.0)
    parser.add_argument("--group", default="")
    parser.add_argument("--stop-after", type=int, default=0)
    args = parser.parse_args()
    folder = args.out / args.group if args.group else args.out
    folder.mkdir(parents=True, exist_ok=True)
    live = folder / "traces.json"
    lines = args.lines.read_bytes().splitlines(keepends=True)
    clock = datetime(2026, 1, 1, tzinfo=UTC)
    written = 0
    for n, line in enumerate(lines):
        if args.stop_after and n == args.stop_after:
            with live.open("ab") as handle:
                handle.write(line[: len(line) // 2])
            print("stalled", flush=True)
            time.sleep(3600)
        if args.rotate_every and written == args.rotate_every:
            clock += timedelta(seconds=1)
            stamp = clock.strftime("%Y-%m-%dT%H-%M-%S.000")
            live.rename(folder / f"traces-{stamp}.json")
            written = 0
        with live.open("ab") as handle:
            half = len(line) // 2
            handle.write(line[:half])
            handle.flush()
            time.sleep(args.pause)
            handle.write(line[half:])
        written += 1
        time.sleep(args.pause)
    print("done", flush=True)
    sys.stdout.flush()


if __name__ == "__main__":
    main()
