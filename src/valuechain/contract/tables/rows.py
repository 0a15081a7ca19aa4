"""Shifting batch-local row ids: the decoder joins a source's parts with it, the store a group
of small sources (each source's rows follow the one's before it)."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc

from valuechain.contract.tables.spans import OWNER_TABLES, ROW_ID_COLUMNS

_OWNER_ORDER = ("resource", "scope", "span", "event", "link")
# The tables whose rows carry a record index (a position in their source).
_RECORD_TABLES = ("resources", "spans", "quarantine", "unknown_fields")


def rebase(
    part_tables: dict[str, pa.Table], rows: dict[str, int], record_offset: int
) -> dict[str, pa.Table]:
    """Shift a part's batch-local row ids by ``rows`` (per owner table) and its record indexes
    by ``record_offset``: what came before it."""
    out: dict[str, pa.Table] = {}
    for name, original in part_tables.items():
        table = original
        if table.num_rows:
            for column, owner in ROW_ID_COLUMNS.get(name, {}).items():
                table = _shift(table, column, rows[owner])
            if record_offset and name in _RECORD_TABLES:
                table = _shift(table, "record_index", record_offset)
            if name == "attributes" and any(rows[OWNER_TABLES[o]] for o in _OWNER_ORDER):
                index = pc.index_in(table["owner_type"], value_set=pa.array(_OWNER_ORDER))
                shift = pc.take(
                    pa.array([rows[OWNER_TABLES[o]] for o in _OWNER_ORDER], pa.int64()), index
                )
                position = table.schema.get_field_index("owner_row")
                table = table.set_column(
                    position, table.schema.field(position), pc.add(table["owner_row"], shift)
                )
        out[name] = table
    return out


def _shift(table: pa.Table, column: str, offset: int) -> pa.Table:
    if not offset:
        return table
    position = table.schema.get_field_index(column)
    fld = table.schema.field(position)
    shifted = pc.add(table[column], pa.scalar(offset, fld.type))
    return table.set_column(position, fld, shifted)
