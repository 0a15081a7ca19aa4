"""The issue log and the import summary for the terminal: where and what in line, the
message under its row."""

from __future__ import annotations

from typing import Final

import polars as pl

from valuechain.report.columns import Col

ISSUE_COLUMNS: Final = (
    Col("code"),
    Col("severity", keep=1),
    Col("source", keep=2),
    Col("line", align="right", keep=2),
    Col("occurrences", "count", align="right", keep=3),
    Col("json_path", "at", under=True),
    Col("message", under=True),
)

# The import summary: a source's path in line whole (it is what `issues --source` takes).
SOURCE_COLUMNS: Final = (
    Col("source"),
    Col("outcome"),
    Col("spans", align="right", keep=1),
    Col("traces", align="right", keep=1),
    Col("issues", align="right", keep=1),
)


def issues_table(frame: pl.DataFrame) -> pl.DataFrame:
    """The columns people read (a source by its file name; csv and json keep every column)."""
    return frame.select(
        pl.col("source").str.split("/").list.last().alias("source"),
        "severity",
        "code",
        "line",
        "json_path",
        "message",
        "occurrences",
    )
