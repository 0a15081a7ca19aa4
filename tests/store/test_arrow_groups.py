"""Batches gathered into one write group: rows in order, one chunk a table, null columns typed."""

from __future__ import annotations

import pyarrow as pa
import pytest

from valuechain.store import concatenated


def _batch(first: int, count: int, *, label: str | None = "x") -> dict[str, pa.Table]:
    ids = list(range(first, first + count))
    labels = pa.array([label] * count, pa.string() if label is not None else pa.null())
    return {"rows": pa.table({"id": ids, "label": labels}), "other": pa.table({"id": ids})}


def test_rows_follow_batch_order_in_one_chunk_per_table() -> None:
    batches = [_batch(0, 3), _batch(3, 2), _batch(5, 4)]
    joined = concatenated(batches)
    assert list(joined) == ["rows", "other"]
    for table in joined.values():
        assert table.column("id").to_pylist() == list(range(9))
        assert all(column.num_chunks == 1 for column in table.columns)
    assert batches == []  # the pieces are let go


def test_a_column_all_null_in_one_batch_takes_the_others_type() -> None:
    joined = concatenated([_batch(0, 2, label=None), _batch(2, 2, label="y")])
    assert joined["rows"].schema.field("label").type == pa.string()
    assert joined["rows"].column("label").to_pylist() == [None, None, "y", "y"]


@pytest.mark.parametrize("count", [0, 3])
def test_one_batch_is_passed_through(count: int) -> None:
    batch = _batch(0, count)
    tables = dict(batch)
    assert concatenated([batch]) == tables


def test_without_contiguous_the_chunks_are_the_batches_own() -> None:
    first, second = _batch(0, 2), _batch(2, 3)
    pieces = first["rows"].column("id").chunks + second["rows"].column("id").chunks
    joined = concatenated([first, second], contiguous=False)
    assert joined["rows"].column("id").to_pylist() == list(range(5))
    kept = joined["rows"].column("id").chunks
    assert [c.buffers()[1].address for c in kept] == [c.buffers()[1].address for c in pieces]
