"""Terminal tables: a table with one huge cell renders as fast as a small table.

A result frame of ``ROWS`` rows and four short columns, with and without one extra column
holding a ``BIG`` character value in its first row (the 10 MB attribute value of issue 15,
which an unbounded rich table took minutes and gigabytes to lay out). Cases:
- ``polars write_csv``   the same frame as CSV (the floor: every byte written once, whole)
- ``table, small cells`` `fitted_table` + printing at 80 columns, without the big column
- ``table, 10 MB cell``  the same with the big column (bounded to 200 characters)
- ``rich Table, 10 MB``  the plain bounded rich table other verbs still use
"""

from __future__ import annotations

import io

import polars as pl
from rich.console import Console

from bench.common import report, timed
from valuechain.report.formats import to_rich_table
from valuechain.report.tables import fitted_table

ROWS = 200
BIG = 10_000_000


def run(size_mb: int = 0) -> None:
    del size_mb  # sized by the cell
    small = pl.DataFrame(
        {
            "trace_id": [f"{n:032x}" for n in range(ROWS)],
            "span_id": [f"{n:016x}" for n in range(ROWS)],
            "name": ["tools/call"] * ROWS,
            "duration_ns": list(range(ROWS)),
        }
    )
    big = small.with_columns(pl.Series("value", ["x" * BIG] + ["y"] * (ROWS - 1)))
    mb = big.estimated_size() / 2**20

    def printed(renderable: object) -> int:
        screen = Console(file=io.StringIO(), width=80, color_system=None)
        screen.print(renderable, crop=False)
        return ROWS

    cases = {
        "polars write_csv": lambda: len(big.write_csv()) and ROWS,
        "table, small cells": lambda: printed(fitted_table(small)),
        "table, 10 MB cell": lambda: printed(fitted_table(big)),
        "rich Table, 10 MB": lambda: printed(to_rich_table(big)),
    }
    timings = [timed(name, fn, mb, repeat=3, item_name="rows") for name, fn in cases.items()]
    report("terminal tables (one 10 MB cell)", timings, "polars write_csv")
