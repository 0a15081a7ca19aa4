"""store/memory_limit.py: DuckDB's size syntax, a floor of 64MB, one usage error otherwise."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

import valuechain
from valuechain.errors import UsageError
from valuechain.store.memory_limit import MIN_MEMORY_LIMIT, memory_limit_bytes

ACCEPTED = [
    ("1GB", 1000**3),
    ("64MB", MIN_MEMORY_LIMIT),
    ("64 mb", MIN_MEMORY_LIMIT),
    ("0.5GB", 500 * 1000**2),
    (".5gb", 500 * 1000**2),
    ("2GiB", 2 * 1024**3),
    ("512 MiB", 512 * 1024**2),
    ("1 t", 1000**4),
    ("3 gigabytes", 3 * 1000**3),
    ("64000000 bytes", MIN_MEMORY_LIMIT),
    ("70000000B", 70_000_000),
    (" 2TB ", 2 * 1000**4),
]
REFUSED = [
    ("1MB", "below the minimum of 64MB"),
    ("16MB", "below the minimum of 64MB"),
    ("63.9MB", "below the minimum of 64MB"),
    ("100KB", "below the minimum of 64MB"),
    ("0GB", "below the minimum of 64MB"),
    ("-5GB", "is not a size"),  # DuckDB: no limit at all
    ("none", "is not a size"),  # DuckDB: no limit at all
    ("lots", "is not a size"),
    ("16000000", "is not a size"),  # DuckDB wants a unit
    ("1e9B", "is not a size"),
    ("2 GBs", "is not a size"),
    ("", "is not a size"),
]


@pytest.mark.parametrize(("text", "size"), ACCEPTED)
def test_sizes_duckdb_reads_are_accepted_as_it_reads_them(text: str, size: int) -> None:
    assert memory_limit_bytes(text, "here") == size
    con = duckdb.connect()
    con.execute("SET memory_limit = $limit", {"limit": text})
    # DuckDB shows the limit to a tenth of its display unit
    (shown,) = con.execute("SELECT current_setting('memory_limit')").fetchone() or ("",)
    number, unit = shown.split()
    factor = {"MiB": 1024**2, "GiB": 1024**3, "TiB": 1024**4}[unit]
    assert abs(float(number) * factor - size) <= 0.1 * factor


@pytest.mark.parametrize(("text", "fragment"), REFUSED)
def test_other_sizes_are_one_usage_error(text: str, fragment: str) -> None:
    with pytest.raises(UsageError) as caught:
        memory_limit_bytes(text, "--memory-limit")
    assert caught.value.where == "--memory-limit"
    assert fragment in caught.value.problem
    assert caught.value.hint


def test_open_checks_the_argument_and_the_variable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "m.duckdb"
    with pytest.raises(UsageError, match=r"^memory_limit: memory limit '1MB' is below"):
        valuechain.open(path, memory_limit="1MB")
    monkeypatch.setenv("VALUECHAIN_MEMORY_LIMIT", "1MB")
    with pytest.raises(UsageError, match=r"^\$VALUECHAIN_MEMORY_LIMIT: memory limit '1MB'"):
        valuechain.open(path)
    assert not path.exists()  # refused before the store was created
    valuechain.open(path, memory_limit="128MB").sql("SELECT 1")  # the argument wins
