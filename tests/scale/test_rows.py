"""The scale-out path's span rows, without Ray: assembling files as an import would store them.

Each case imports the same files into a store and assembles their decoded rows; the span
rows the derive step reads (``sql/evidence``) must agree: order, duplicates, conflicts.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import orjson
import polars as pl
import pyarrow as pa
import pytest

import valuechain
from valuechain.errors import UsageError
from valuechain.ingest.decode import decode_export
from valuechain.pipeline.scale import stages
from valuechain.pipeline.scale.job import require_ray, source_numbers
from valuechain.pipeline.scale.rows import (
    assemble,
    decoded_rows,
    keyed_rows,
    run_keys,
    trace_sources,
)

SPAN_COLUMNS = ["trace_id", "span_id", "name", "source_id", "dup_group"]


def rows_of(files: list[bytes]) -> tuple[pa.Table, dict[int, str]]:
    """The files decoded and keyed, as the driver keys them (sources numbered from 1)."""
    tables, sha = [], {}
    decoded = [decode_export(data, f"f{i}") for i, data in enumerate(files)]
    facts = [
        stages.summaries(stages.with_files(decoded_rows(d, i), _file(d, i)))
        for i, d in enumerate(decoded)
    ]
    all_facts = pa.concat_tables(facts)
    is_file = all_facts.column("file").is_valid()
    numbers = source_numbers(
        pa.Table.from_struct_array(all_facts.filter(is_file).column("file").combine_chunks())
    )
    traces = all_facts.filter(pa.compute.invert(is_file)).drop_columns("file")
    keys = run_keys(traces, numbers.ids)
    for i, d in enumerate(decoded):
        tables.append(keyed_rows(decoded_rows(d, i), keys, numbers.ids))
    sha.update(numbers.sha256)
    return pa.concat_tables(tables), sha


def _file(decoded: Any, index: int) -> pa.Table:
    row = {
        "source_index": index,
        "path": decoded.source,
        "sha256": decoded.sha256,
        "bytes": decoded.bytes_raw,
        "status": decoded.status,
        "problem": None,
        "spans": decoded.span_count,
    }
    return pa.Table.from_pylist([row], stages.FILES_SCHEMA)


def stored_spans(tmp_path: Path, files: list[bytes]) -> pl.DataFrame:
    paths = []
    for i, data in enumerate(files):
        path = tmp_path / f"f{i}.otlp.json"
        path.write_bytes(data)
        paths.append(path)
    store = valuechain.open(":memory:")
    store.import_paths(paths, workers=0, derive=False)
    traces = [
        bytes(t)
        for (t,) in store.db.con.execute("SELECT DISTINCT trace_id FROM core.spans").fetchall()
    ]
    spans, _ = store.db.trial_rows(traces)
    return _canonical(spans)


def _canonical(spans: pa.Table) -> pl.DataFrame:
    frame = pl.from_arrow(spans)
    assert isinstance(frame, pl.DataFrame)
    return frame.with_columns(pl.col("dup_group").is_not_null()).select(SPAN_COLUMNS)


def files_of(otlp: SimpleNamespace, *requests: dict[str, Any]) -> list[bytes]:
    return [orjson.dumps(r) for r in requests]


@pytest.mark.parametrize(
    "case",
    [
        "split",  # one trace over two files
        "identical",  # the same span in two files: kept once
        "conflict",  # the same span id with other content: both kept, one dup_group
    ],
)
def test_assembled_rows_are_the_stored_rows(
    otlp: SimpleNamespace, tmp_path: Path, case: str
) -> None:
    first = otlp.request(otlp.span(1), otlp.span(2, parentSpanId=f"{1:016x}"))
    second = {
        "split": otlp.request(otlp.span(3, parentSpanId=f"{1:016x}")),
        "identical": otlp.request(otlp.span(2, parentSpanId=f"{1:016x}"), otlp.span(4)),
        "conflict": otlp.request(otlp.span(2, name="other"), otlp.span(5)),
    }[case]
    files = files_of(otlp, first, second)
    rows, sha = rows_of(files)
    assembled = _canonical(assemble(rows, sha).spans)
    assert assembled.equals(stored_spans(tmp_path, files))
    if case == "conflict":
        assert assembled["dup_group"].sum() == 2


def test_a_trace_takes_its_roots_run_whichever_file_holds_it() -> None:
    traces = pa.table(
        {
            "trace_id": pa.array([b"a" * 16, b"a" * 16, b"b" * 16], pa.binary(16)),
            "source_index": pa.array([0, 1, 1], pa.int32()),
            "run_attr": pa.array([None, "run_1", None], pa.string()),
        }
    )
    keys = run_keys(traces, {0: 1, 1: 2}).sort("trace_id")
    assert keys["run_key"].to_list() == ["run_1", "source:2"]
    # a file that is not a source (rejected, or a copy) holds nothing
    assert run_keys(traces, {0: 1})["run_key"].to_list() == ["source:1"]


def test_ray_missing_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(__import__("sys").modules, "ray", None)
    with pytest.raises(UsageError, match=r"valuechain\[ray\]"):
        require_ray()


def test_a_trace_naming_two_runs_takes_its_first_roots_as_the_store_does() -> None:
    """Of several run ids, the first file's, the first root row's there, its first value: the
    run the derive files the trial under (sql/query/trace_runs.sql keys a store so)."""
    traces = pa.table(
        {
            "trace_id": pa.array([b"a" * 16] * 3 + [b"b" * 16] * 2, pa.binary(16)),
            "source_index": pa.array([0, 0, 1, 1, 1], pa.int32()),
            "span_row": pa.array([5, 7, 0, 1, 2], pa.int64()),
            "run_attr": pa.array(["run_9", "run_0", "run_00", None, "run_5"], pa.string()),
        }
    )
    keys = run_keys(trace_sources(traces), {0: 1, 1: 2}).sort("trace_id")
    assert keys["run_key"].to_list() == ["run_9", "run_5"]
