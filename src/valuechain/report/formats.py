"""Rendering result frames for people and programs: table, CSV, JSON, Parquet.

JSON follows DESIGN.md's conventions: one array of row objects keyed by column name; integers
beyond ±2^53 as strings (raw nanosecond times would otherwise lose digits in JavaScript);
timestamps ISO-8601 UTC; binary as lower-case hex; NaN and Infinity as null.
"""

from __future__ import annotations

import datetime as dt
import io
import math
from decimal import Decimal
from typing import TYPE_CHECKING, Any, Final

import orjson
from rich.table import Table

from valuechain.contract.vocab import JS_MAX_SAFE_INTEGER
from valuechain.report.output_formats import Format

if TYPE_CHECKING:  # a table of Python rows renders without the engine (`runs`)
    import polars as pl

ISO_UTC: Final = "%Y-%m-%dT%H:%M:%S.%fZ"  # every timestamp, in every format
CELL_LIMIT: Final = 200  # characters a table cell shows at most (csv and json stay whole)


def bounded(text: str, limit: int = CELL_LIMIT) -> str:
    """``text``, or its first ``limit`` characters and ``… (N bytes)`` (N: its UTF-8 size)."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text.encode('utf-8', 'surrogatepass')):,} bytes)"


def json_value(value: Any) -> Any:
    """One value made JSON-safe per the conventions above."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, int):
        return value if -JS_MAX_SAFE_INTEGER <= value <= JS_MAX_SAFE_INTEGER else str(value)
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, Decimal):
        return json_value(int(value) if value == value.to_integral_value() else float(value))
    if isinstance(value, bytes | bytearray | memoryview):
        return bytes(value).hex()
    if isinstance(value, dt.datetime):
        if value.tzinfo is not None:
            value = value.astimezone(dt.UTC)
        return value.strftime(ISO_UTC)
    if isinstance(value, dt.date | dt.time):
        return value.isoformat()
    if isinstance(value, dt.timedelta):
        return value.total_seconds()
    if isinstance(value, list | tuple):
        return [json_value(v) for v in value]
    if isinstance(value, dict):
        return {str(k): json_value(v) for k, v in value.items()}
    return str(value)


def to_json(frame: pl.DataFrame, *, compact: bool = False) -> bytes:
    """One JSON array of row objects keyed by column name (indented, unless ``compact``)."""
    rows = [{k: json_value(v) for k, v in row.items()} for row in frame.iter_rows(named=True)]
    return orjson.dumps(rows, option=0 if compact else orjson.OPT_INDENT_2) + b"\n"


def to_csv(frame: pl.DataFrame) -> bytes:
    """CSV; a list, array or struct cell holds its JSON text (per the JSON conventions), a
    binary cell its lower-case hex, a timestamp ISO-8601 UTC with ``Z`` as in JSON; a null
    cell is empty."""
    import polars as pl

    flat = frame.with_columns(
        pl.Series(name, [cell_text(v) for v in frame.get_column(name).to_list()], pl.String)
        for name, dtype in frame.schema.items()
        if dtype.is_nested() or dtype in (pl.Binary, pl.Object)
    ).with_columns(
        _utc_text(pl.col(name), dtype)
        for name, dtype in frame.schema.items()
        if isinstance(dtype, pl.Datetime)
    )
    return flat.write_csv().encode()


def _utc_text(column: pl.Expr, dtype: pl.Datetime) -> pl.Expr:
    """A timestamp column as JSON writes it (`json_value`): UTC, microseconds, ``Z``."""
    utc = column.dt.convert_time_zone("UTC") if dtype.time_zone else column
    return utc.dt.strftime(ISO_UTC.replace(".%f", "%.6f"))


def cell_text(value: Any) -> str | None:
    """One value as the text of a CSV or table cell: JSON for nested values, hex for binary."""
    if value is None:
        return None
    safe = json_value(value)
    return safe if isinstance(safe, str) else orjson.dumps(safe).decode()


def to_parquet(frame: pl.DataFrame) -> bytes:
    buffer = io.BytesIO()
    frame.write_parquet(buffer)
    return buffer.getvalue()


def to_rich_table(frame: pl.DataFrame, title: str | None = None, max_rows: int = 200) -> Table:
    table = Table(title=title, show_lines=False, header_style="bold")
    for column in frame.columns:
        table.add_column(column, overflow="fold")
    for row in frame.head(max_rows).iter_rows():
        table.add_row(*("∅" if v is None else bounded(str(cell_text(v))) for v in row))
    if frame.height > max_rows:
        table.caption = f"{max_rows} of {frame.height} rows shown; use --format csv or --output"
    return table


def render_bytes(frame: pl.DataFrame, fmt: Format, *, compact: bool = False) -> bytes:
    """Machine formats as bytes (table is rendered by the caller's console)."""
    if fmt is Format.JSON:
        return to_json(frame, compact=compact)
    if fmt is Format.CSV:
        return to_csv(frame)
    if fmt is Format.PARQUET:
        return to_parquet(frame)
    raise ValueError(f"{fmt} is rendered by the console")
