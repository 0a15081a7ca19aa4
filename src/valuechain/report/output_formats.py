"""The output formats a command can print (apart from ``formats``, which renders them: the
command line names the choices at start-up without loading polars)."""

from __future__ import annotations

from enum import StrEnum


class Format(StrEnum):
    TABLE = "table"
    CSV = "csv"
    JSON = "json"
    PARQUET = "parquet"
