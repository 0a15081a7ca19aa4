"""Rows gathered from several batches, written to the store as one group.

DuckDB writes an insert of at least a row group (122,880 rows) of one table as whole row
groups straight into the file; a smaller one goes through the write-ahead log, and each
checkpoint then rewrites the table's last, partly filled row group. So both writers gather
batches into groups (the import's ``writer.COMMIT_ROWS``, the derive step's
``pipeline.derive.WRITE_ROWS``). The import hands each table over in one contiguous chunk:
DuckDB scans a many-chunk Arrow table in parallel and pays for putting its rows back in order
(`writer.COMMIT_ROWS` has the figures). The derive step's plain inserts gained nothing from
the copy, so its groups keep the batches' chunks.
"""

from __future__ import annotations

import pyarrow as pa


def concatenated(
    batches: list[dict[str, pa.Table]], *, contiguous: bool = True
) -> dict[str, pa.Table]:
    """The tables of ``batches`` as one batch, each table's rows in batch order: in one chunk
    (``contiguous``), or as the batches' chunks, not copied.

    Each table's pieces are let go once joined (``batches`` is emptied), so a contiguous join
    holds the gathered rows twice only one table at a time. A column that is all null in one
    batch takes the type it has in the others.
    """
    if len(batches) == 1:
        return batches.pop()
    joined = {}
    for name in list(batches[0]):
        pieces = [batch.pop(name) for batch in batches]
        table = pa.concat_tables(pieces, promote_options="default")
        joined[name] = table.combine_chunks() if contiguous else table
        del pieces
    batches.clear()
    return joined
