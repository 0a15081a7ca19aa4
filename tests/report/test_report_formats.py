"""Every column type the store shows, in every output format: lists and structs are JSON in a
CSV or table cell, never polars' debug text (issue 12)."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from pathlib import Path

import polars as pl
import pytest
from rich.console import Console

import valuechain
from valuechain.report.formats import Format, render_bytes, to_rich_table

# DuckDB type → (a SQL literal of it, the JSON value, the CSV/table cell text). A type the
# store gains without a row here fails `test_every_stored_type_has_a_sample`.
SAMPLES: dict[str, tuple[str, object, str]] = {
    "BIGINT": ("-9007199254740993", "-9007199254740993", "-9007199254740993"),
    "BLOB": ("'\\x01\\xFF'::BLOB", "01ff", "01ff"),
    "BOOLEAN": ("true", True, "true"),
    "DOUBLE": ("2.5", 2.5, "2.5"),
    "HUGEINT": ("12345678901234567890123", "12345678901234567890123", "12345678901234567890123"),
    "INTEGER": ("-7", -7, "-7"),
    "INTEGER[]": ("[1, NULL, 3]", [1, None, 3], "[1,null,3]"),
    "JSON": ('\'{"a": [1, "x,y"]}\'', '{"a": [1, "x,y"]}', '{"a": [1, "x,y"]}'),
    "STRUCT(category VARCHAR, count BIGINT)[]": (
        "[{'category': 'a,\"b', 'count': 2}, NULL]",
        [{"category": 'a,"b', "count": 2}, None],
        '[{"category":"a,\\"b","count":2},null]',
    ),
    "STRUCT(detail VARCHAR, count BIGINT)[]": (
        "[{'detail': 'x', 'count': 9007199254740993}]",
        [{"detail": "x", "count": "9007199254740993"}],
        '[{"detail":"x","count":"9007199254740993"}]',
    ),
    "STRUCT(reason_index TINYINT, reason VARCHAR, count BIGINT)[]": (
        "[{'reason_index': 1, 'reason': 'observed', 'count': 3}]",
        [{"reason_index": 1, "reason": "observed", "count": 3}],
        '[{"reason_index":1,"reason":"observed","count":3}]',
    ),
    "TIMESTAMP WITH TIME ZONE": (
        "TIMESTAMPTZ '2024-05-01 18:41:34.721392+02'",
        "2024-05-01T16:41:34.721392Z",
        "2024-05-01T16:41:34.721392Z",  # ISO-8601 UTC with Z in every format
    ),
    "TINYINT": ("-3", -3, "-3"),
    "UBIGINT": ("18446744073709551615", "18446744073709551615", "18446744073709551615"),
    "UINTEGER": ("4294967295", 4294967295, "4294967295"),
    "VARCHAR": ("'a, \"quoted\"\nline'", 'a, "quoted"\nline', 'a, "quoted"\nline'),
    "VARCHAR[]": ("['W_X', 'a,\"b']", ["W_X", 'a,"b'], '["W_X","a,\\"b"]'),
}


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[valuechain.Store]:
    with valuechain.open(tmp_path_factory.mktemp("formats") / "s.duckdb") as opened:
        yield opened


def _stored_types(store: valuechain.Store) -> set[str]:
    """Every column type of the public views and the stored tables, from the store itself."""
    frame = store.sql(
        "SELECT DISTINCT data_type FROM information_schema.columns "
        "WHERE table_schema IN ('main', 'core')"
    )
    return set(frame.to_series().to_list())


@pytest.fixture(scope="module")
def sample(store: valuechain.Store) -> pl.DataFrame:
    """One row, one column per stored type (named by it), then an all-null row."""
    columns = ", ".join(
        f'CAST({literal} AS {kind}) AS "{kind}"' for kind, (literal, _, _) in SAMPLES.items()
    )
    nulls = ", ".join(f"CAST(NULL AS {kind})" for kind in SAMPLES)
    return store.sql(f"SELECT {columns} UNION ALL SELECT {nulls}")


def test_every_stored_type_has_a_sample(store: valuechain.Store) -> None:
    missing = _stored_types(store) - SAMPLES.keys()
    assert not missing, f"add a sample (and its expected outputs) for {sorted(missing)}"


def test_csv_cells(sample: pl.DataFrame) -> None:
    rows = list(csv.reader(io.StringIO(render_bytes(sample, Format.CSV).decode())))
    assert rows[0] == list(SAMPLES)
    assert dict(zip(rows[0], rows[1], strict=True)) == {
        kind: cell for kind, (_, _, cell) in SAMPLES.items()
    }
    assert rows[2] == [""] * len(SAMPLES)  # null is an empty cell
    for kind, cell in zip(rows[0], rows[1], strict=True):
        if kind.endswith("[]"):
            assert json.loads(cell) == SAMPLES[kind][1]


def test_json_values(sample: pl.DataFrame) -> None:
    rows = json.loads(render_bytes(sample, Format.JSON))
    assert rows[0] == {kind: value for kind, (_, value, _) in SAMPLES.items()}
    assert rows[1] == dict.fromkeys(SAMPLES)


def test_table_cells(sample: pl.DataFrame) -> None:
    console = Console(width=10_000, record=True, file=io.StringIO())
    console.print(to_rich_table(sample))
    text = console.export_text()
    assert "shape:" not in text and "Series" not in text
    table = to_rich_table(sample)
    cells = {column.header: list(column.cells) for column in table.columns}
    expected_table = {kind: cell for kind, (_, _, cell) in SAMPLES.items()}
    assert {kind: values[0] for kind, values in cells.items()} == expected_table
    assert all(values[1] == "∅" for values in cells.values())


def test_parquet_round_trip(sample: pl.DataFrame, tmp_path: Path) -> None:
    path = tmp_path / "o.parquet"
    path.write_bytes(render_bytes(sample, Format.PARQUET))
    back = pl.read_parquet(path)
    assert back.schema == sample.schema
    assert back.equals(sample)


def test_list_columns_of_the_views_are_json_in_csv(tmp_path: Path, shared: Path) -> None:
    example = shared / "spec/examples/mcpjam-eval-run-2cases-2models-2reps.otlp.json"
    with valuechain.open(tmp_path / "e.duckdb") as store:
        assert store.import_paths([example]).ok
        for query in (
            "SELECT conflicting_identity, source_stage_analyzer_versions FROM runs",
            "SELECT integrity_codes FROM trials",
        ):
            text = render_bytes(store.sql(query), Format.CSV).decode()
            assert "shape:" not in text and "Series" not in text
            for row in csv.DictReader(io.StringIO(text)):
                for cell in row.values():
                    assert cell == "" or isinstance(json.loads(cell), list)
