"""A batch's stored rows handed to a staging worker, and its staged tables handed back, as
Arrow IPC files the receiving process memory-maps.

Pickling a batch's rows (≈ 23 MB at 1,000 traces, mostly attribute rows) through the pool's
pipe cost ≈ 30 ms of CPU in this process and as much in the worker — several copies and
hundreds of 64 KB pipe writes and reads. Written once as an IPC file in a folder of the
derive step, the rows are mapped by the worker without a copy (≈ 7 ms and 2 ms); the staged
tables (≈ 3.4 MB) come back the same way. Each file is unlinked as soon as it is mapped, and
the folder is removed with whatever an interrupted step left in it
(`pipeline.derive.staged_batches`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa

from valuechain.pipeline.staging import BatchRows, DeriveSummary, StagedBatch, stage_rows

__all__ = ["MappedBatch", "MappedRows", "hand_off", "stage_mapped", "staged_from", "take_up"]


@dataclass(frozen=True, slots=True)
class MappedRows:
    """`BatchRows` whose two tables wait in IPC files (what crosses the pool's pipe)."""

    stem: str
    traces: list[bytes]
    spans: str
    attributes: str
    sources: dict[int, str]


@dataclass(frozen=True, slots=True)
class MappedBatch:
    """A `StagedBatch` whose tables wait in IPC files (what crosses the pipe back)."""

    traces: str
    tables: dict[str, str]
    summary: DeriveSummary


def hand_off(rows: BatchRows, stem: Path) -> MappedRows:
    """Write the batch's tables beside ``stem`` (``<stem>.spans``, ``<stem>.attributes``)."""
    spans, attributes = f"{stem}.spans", f"{stem}.attributes"
    _write(rows.spans, spans)
    _write(rows.attributes, attributes)
    return MappedRows(str(stem), rows.traces, spans, attributes, rows.sources)


def take_up(mapped: MappedRows) -> BatchRows:
    """The batch's rows, mapped from their files, which are unlinked (the mapping holds the
    bytes until the last table over them is freed)."""
    return BatchRows(mapped.traces, _read(mapped.spans), _read(mapped.attributes), mapped.sources)


def stage_mapped(mapped: MappedRows, analyzer: int) -> MappedBatch:
    """`stage_rows` of a batch handed off as files, handed back as files (a worker's task)."""
    staged = stage_rows(take_up(mapped), analyzer)
    traces = f"{mapped.stem}.traces"
    _write(staged.traces, traces)
    tables = {name: f"{mapped.stem}.{name}" for name in staged.tables}
    for name, path in tables.items():
        _write(staged.tables[name], path)
    return MappedBatch(traces, tables, staged.summary)


def staged_from(mapped: MappedBatch) -> StagedBatch:
    """The staged batch a worker handed back, mapped from its files (which are unlinked)."""
    tables = {name: _read(path) for name, path in mapped.tables.items()}
    return StagedBatch(_read(mapped.traces), tables, mapped.summary)


def _write(table: pa.Table, path: str) -> None:
    # the table's chunks are written as they are, so the worker sees the same layout
    with pa.OSFile(path, "wb") as sink, pa.ipc.new_file(sink, table.schema) as writer:
        writer.write_table(table)


def _read(path: str) -> pa.Table:
    with pa.memory_map(path) as source:
        table = pa.ipc.open_file(source).read_all()
    os.unlink(path)
    return table
