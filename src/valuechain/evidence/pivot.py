"""Typed reads of attribute values by key kind, and the scatter pivot into wide columns.

A value is read by the kind of its key (`contract_keys.Kind`, TRACE-FORMAT §3.2/§3.5): a
value of a type the kind does not accept reads as null. Wide columns (`READ_KEYS`) are built
by one scatter per value column into a flat array laid out key by key, each key a block the
size of its owner class (first row wins), sliced into columns — a pivot without a sort.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache

import polars as pl
import pyarrow as pa
import pyarrow.compute as pc

from valuechain.evidence.classify import (
    KIND_CODE,
    READ_KEYS,
    VT_CODE,
    KeyClass,
    ValueColumn,
    gather,
    value_column,
)
from valuechain.evidence.contract_keys import Kind, OwnerClass
from valuechain.evidence.frames import to_polars

# --------------------------------------------------------------------------- typed values


def _kind_is(*kinds: Kind) -> pl.Expr:
    return pl.col("kind").is_in([KIND_CODE[k] for k in kinds])


_S, _I, _D, _B, _A, _KV = (
    VT_CODE[x] for x in ("string", "int", "double", "bool", "array", "kvlist")
)


def _text_value() -> pl.Expr:
    vt = pl.col("vt")
    return (
        pl.when(_kind_is(Kind.STR, Kind.JSON, Kind.TEXT) & (vt == _S))
        .then(pl.col("string_value"))
        .when(_kind_is(Kind.JSON, Kind.STRS, Kind.INTS) & vt.is_in((_A, _KV)))
        .then(pl.col("json_value"))
        .when(_kind_is(Kind.TEXT) & (vt == _I))
        .then(pl.col("int_value").cast(pl.String))
        .when(_kind_is(Kind.TEXT) & (vt == _D))
        .then(pl.col("double_value").cast(pl.String))
    )


def _int_value() -> pl.Expr:
    vt, double = pl.col("vt"), pl.col("double_value")
    return (
        pl.when(vt == _I)
        .then(pl.col("int_value"))
        .when(_kind_is(Kind.COUNT) & (vt == _D) & (double == double.round(0)))
        .then(double.cast(pl.Int64, strict=False))
    )


def _num_value() -> pl.Expr:
    vt = pl.col("vt")
    return (
        pl.when(vt == _D)
        .then(pl.col("double_value"))
        .when(vt == _I)
        .then(pl.col("int_value").cast(pl.Float64))
    )


def _bool_value() -> pl.Expr:
    return pl.when(pl.col("vt") == _B).then(pl.col("bool_value"))


_VALUE_EXPRS = {
    ValueColumn.TEXT: _text_value,
    ValueColumn.INT: _int_value,
    ValueColumn.NUM: _num_value,
    ValueColumn.BOOL: _bool_value,
}


def typed(rows: pl.DataFrame) -> pl.DataFrame:
    """`text`/`ival`/`fval`/`bval` per the kind of each row's key; null on a type clash."""
    k = pl.col("kind")
    ints = _kind_is(Kind.INT, Kind.COUNT)
    return rows.select(
        "owner_row",
        "key_index",
        "kind",
        _text_value().alias("text"),
        pl.when(ints).then(_int_value()).alias("ival"),
        pl.when(k == KIND_CODE[Kind.NUM]).then(_num_value()).alias("fval"),
        pl.when(k == KIND_CODE[Kind.BOOL]).then(_bool_value()).alias("bval"),
    )


# --------------------------------------------------------------------------- wide pivot

_VALUE_DTYPES: Mapping[ValueColumn, pl.DataType] = {
    ValueColumn.TEXT: pl.String(),
    ValueColumn.INT: pl.Int64(),
    ValueColumn.NUM: pl.Float64(),
    ValueColumn.BOOL: pl.Boolean(),
}
_WIDE_VALUE_NAMES: Mapping[ValueColumn, tuple[str, ...]] = {
    ValueColumn.TEXT: ("string_value", "json_value", "int_value", "double_value"),
    ValueColumn.INT: ("int_value", "double_value"),
    ValueColumn.NUM: ("int_value", "double_value"),
    ValueColumn.BOOL: ("bool_value",),
}


@cache
def _layout() -> dict[ValueColumn, list[int]]:
    """Read-key indexes grouped by the value column they are read from."""
    groups: dict[ValueColumn, list[int]] = {}
    for i, rk in enumerate(READ_KEYS):
        groups.setdefault(value_column(rk.kind), []).append(i)
    return groups


def _class_sizes(spans: pl.DataFrame) -> dict[OwnerClass, int]:
    sizes = {OwnerClass(c): n for c, n in spans.group_by("owner_class").len().iter_rows()}
    sizes[OwnerClass.ALL] = spans.height
    return sizes


def _offsets(sizes: Mapping[OwnerClass, int]) -> tuple[list[int], dict[ValueColumn, int]]:
    """Each read key's first cell in the flat array of its value column, and the totals."""
    offsets, totals = [0] * len(READ_KEYS), {}
    for column, members in _layout().items():
        total = 0
        for i in members:
            offsets[i] = total
            total += sizes.get(READ_KEYS[i].owner, 0)
        totals[column] = total
    return offsets, totals


def _owner_index(owner_row: pa.ChunkedArray | pa.Array, spans: pl.DataFrame) -> pa.Array:
    """Each row's span position (`pos`), null for owners that are not in `spans`."""
    if isinstance(owner_row, pa.ChunkedArray):
        owner_row = owner_row.combine_chunks()
    rows = spans["span_row"]
    first, last = rows.first(), rows.last()
    if (
        isinstance(first, int)
        and isinstance(last, int)
        and last - first + 1 == spans.height
        and rows.is_sorted()
    ):  # decode_export and one-source loads: span_row is a contiguous range
        pos = pc.subtract(owner_row, first)
        inside = pc.and_(pc.greater_equal(pos, 0), pc.less(pos, spans.height))
        return pc.if_else(inside, pos, pa.scalar(None, pa.int64()))
    return pc.index_in(owner_row, value_set=rows.to_arrow()).cast(pa.int64())


def wide_cells(
    table: pa.Table,
    vt: pa.Array,
    key_indices: pa.Array,
    classes: list[KeyClass],
    kinds: list[int],
    is_span: pa.Array,
    spans: pl.DataFrame,
) -> dict[ValueColumn, pl.DataFrame]:
    """Per value column, the rows of read keys with their flat cell (C++ kernels only)."""
    offsets, _ = _offsets(_class_sizes(spans))
    read = [c.read for c in classes]
    pos = _owner_index(table.column("owner_row"), spans)
    owner_class = pc.take(spans["owner_class"].to_arrow(), pos)
    class_pos = pc.take(spans["class_pos"].to_arrow(), pos)
    key_owner = gather(
        [int(READ_KEYS[r].owner) if r >= 0 else -1 for r in read], key_indices, pa.int8()
    )
    offset = gather([offsets[r] if r >= 0 else 0 for r in read], key_indices, pa.int64())
    local = pc.if_else(
        pc.equal(key_owner, 0),
        pos,
        pc.if_else(pc.equal(key_owner, owner_class), class_pos, pa.scalar(None, pa.int64())),
    )
    cell = pc.add(offset, local)
    vcol = gather(
        [int(value_column(READ_KEYS[r].kind)) if r >= 0 else -1 for r in read],
        key_indices,
        pa.int8(),
    )
    kind = gather(kinds, key_indices, pa.int8())
    usable = pc.and_(is_span, pc.invert(pc.is_null(cell)))
    out: dict[ValueColumn, pl.DataFrame] = {}
    for column in _layout():
        mask = pc.and_(usable, pc.equal(vcol, int(column)))
        part = pa.table(
            {
                "cell": cell.filter(mask),
                "vt": vt.filter(mask),
                "kind": kind.filter(mask),
                **{n: table.column(n).filter(mask) for n in _WIDE_VALUE_NAMES[column]},
            }
        )
        out[column] = (
            to_polars(part)
            .select("cell", _VALUE_EXPRS[column]().alias("value"))
            .filter(pl.col("value").is_not_null())
        )
    return out


def scatter_wide(
    parts: Mapping[ValueColumn, pl.DataFrame], spans: pl.DataFrame
) -> dict[OwnerClass, pl.DataFrame]:
    """One frame per owner class: a column per read key, a row per span of that class.

    Per value column, the keys' cells are laid out in one flat array, key after key, each
    key a block the size of its owner class; every row is scattered to its cell (rows in
    reverse, so the first row of a duplicated key wins) and the blocks become columns.
    """
    sizes = _class_sizes(spans)
    offsets, totals = _offsets(sizes)
    out: dict[OwnerClass, list[pl.Series]] = {cls: [] for cls in OwnerClass}
    for column, members in _layout().items():
        cells = parts[column]
        flat = pl.repeat(None, totals[column], dtype=_VALUE_DTYPES[column], eager=True)
        if cells.height:  # reversed: scatter is last-write-wins, the contract first-wins
            flat = flat.scatter(cells["cell"].reverse(), cells["value"].reverse())
        for i in members:
            rk = READ_KEYS[i]
            out[rk.owner].append(flat.slice(offsets[i], sizes.get(rk.owner, 0)).alias(rk.key))
    return {
        cls: pl.DataFrame(cols) if cols else pl.DataFrame(height=sizes.get(cls, 0))
        for cls, cols in out.items()
    }
