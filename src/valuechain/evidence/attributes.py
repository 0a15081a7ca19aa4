"""The one pass that reads the attribute rows the adapter needs (shapes: `evidence.frames`).

No string operation per row: the key column is dictionary-encoded once; each *distinct*
key is classified in Python (which wide column it feeds, which span role it is read on, or
which indexed family — `mcp.app.stages.<i>.*`, `llm.output_messages.<i>…tool_calls.<k>…` —
it belongs to); the classification is then gathered back onto the rows with Arrow kernels.
Wide columns are built by one scatter per value kind into a flat array laid out key by key
(first row wins), sliced into columns — a pivot without a sort.

One module over the ~400-line guide, on purpose: it is one algorithm (classify distinct keys,
gather, scatter) whose steps share the one key-by-key layout; cut in two, each half would
restate it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import IntEnum
from functools import cache

import polars as pl
import pyarrow as pa
import pyarrow.compute as pc

from valuechain.evidence import contract_keys as ck
from valuechain.evidence import conventions as cv
from valuechain.evidence.contract_keys import Kind, OwnerClass
from valuechain.evidence.frames import Frame, to_polars

VALUE_TYPES: tuple[str, ...] = ("string", "int", "double", "bool", "array", "kvlist", "bytes")
_VT_CODE = {name: code for code, name in enumerate(VALUE_TYPES)}
_VT_OTHER = len(VALUE_TYPES)  # "empty" and anything unknown
KINDS: tuple[Kind, ...] = tuple(Kind)
_KIND_CODE = {kind: code for code, kind in enumerate(KINDS)}


class Special(IntEnum):
    """Key families read as long rows rather than wide columns."""

    NONE = 0
    STAGE = 1  # mcp.app.stages.<i>.<field>
    MEASUREMENT = 2  # mcp.app.measurements.<i>.<field>
    LLM_CALL = 3  # llm.output_messages.<i>.message.tool_calls.<k>.tool_call.{id,function.name}
    USER_SIGNAL = 4  # input.value, llm.input_messages.<i>.message.role, gen_ai.input.messages


class ValueColumn(IntEnum):
    TEXT = 0
    INT = 1
    NUM = 2
    BOOL = 3


_VALUE_DTYPES: Mapping[ValueColumn, pl.DataType] = {
    ValueColumn.TEXT: pl.String(),
    ValueColumn.INT: pl.Int64(),
    ValueColumn.NUM: pl.Float64(),
    ValueColumn.BOOL: pl.Boolean(),
}


def value_column(kind: Kind) -> ValueColumn:
    if kind in (Kind.INT, Kind.COUNT):
        return ValueColumn.INT
    if kind is Kind.NUM:
        return ValueColumn.NUM
    if kind is Kind.BOOL:
        return ValueColumn.BOOL
    return ValueColumn.TEXT


# --------------------------------------------------------------------------- key plan


@dataclass(frozen=True, slots=True)
class ReadKey:
    """A key pivoted wide: its kind, the owner class it is read on and its flat offset."""

    key: str
    kind: Kind
    owner: OwnerClass


@dataclass(frozen=True, slots=True)
class KeyClass:
    """What one distinct key is, as gathered onto its rows."""

    read: int  # index into READ_KEYS, or -1
    special: Special
    index1: int  # stage/measurement/message index; -1 if none
    index2: int  # tool-call index within a message; -1 if none
    field: str | None  # stage/measurement/tool-call field
    contract_kind: int  # KINDS index for known contract keys, -1 otherwise
    unknown_contract: bool  # an mcp.app.* key in no contract table
    trial_key: bool  # mcp.app.trial.* (W_TRIAL_ROOT_MISSING)


READ_KEYS: tuple[ReadKey, ...] = tuple(
    ReadKey(key, kind, owner) for key, (kind, owner) in cv.READ_KEYS.items()
)
_READ_INDEX = {rk.key: i for i, rk in enumerate(READ_KEYS)}
_USER_SIGNAL_KEYS = frozenset({cv.INPUT_VALUE, cv.GENAI_INPUT_MESSAGES})


@cache
def classify_key(key: str) -> KeyClass:
    """Classify one distinct attribute key (cached: keys repeat across calls)."""
    read = _READ_INDEX.get(key, -1)
    contract_kind = -1
    kind = ck.CONTRACT_KEY_KINDS.get(key)
    special, index1, index2, field = Special.NONE, -1, -1, None
    if kind is None and (m := ck.STAGE_KEY.match(key)):
        kind = ck.STAGE_FIELDS.get(m.group(2))
        special, index1, field = Special.STAGE, int(m.group(1)), m.group(2)
    elif kind is None and (m := ck.MEASUREMENT_KEY.match(key)):
        kind = ck.MEASUREMENT_FIELDS.get(m.group(2))
        special, index1, field = Special.MEASUREMENT, int(m.group(1)), m.group(2)
    elif m := cv.LLM_TOOL_CALL_KEY.match(key):
        special, index1, index2, field = (
            Special.LLM_CALL,
            int(m.group(1)),
            int(m.group(2)),
            m.group(3),
        )
    elif key in _USER_SIGNAL_KEYS or cv.LLM_INPUT_ROLE_KEY.match(key):
        special = Special.USER_SIGNAL
    if kind is not None:
        contract_kind = _KIND_CODE[kind]
    if special in (Special.STAGE, Special.MEASUREMENT) and (kind is None or read >= 0):
        special = Special.NONE  # read wide (rows 0–5), or an unknown field: unknown key
    return KeyClass(
        read=read,
        special=special,
        index1=index1,
        index2=index2,
        field=field,
        contract_kind=contract_kind,
        unknown_contract=key.startswith("mcp.app.") and kind is None,
        trial_key=key.startswith("mcp.app.trial."),
    )


@cache
def _accepted_table() -> pa.Array:
    """accepted[kind_code * (VT + 1) + vt_code]: whether a contract kind accepts a value type."""
    width = _VT_OTHER + 1
    table = [False] * (len(KINDS) * width)
    for kind, types in ck.ACCEPTED_VALUE_TYPES.items():
        for vt in types:
            table[_KIND_CODE[kind] * width + _VT_CODE[vt]] = True
    return pa.array(table, type=pa.bool_())


def _encode(column: pa.ChunkedArray | pa.Array) -> tuple[pa.Array, list[str | None]]:
    """Dictionary indices (int32, one array) and the dictionary's values."""
    if isinstance(column, pa.ChunkedArray):
        column = column.combine_chunks()
    encoded = column if pa.types.is_dictionary(column.type) else pc.dictionary_encode(column)
    assert isinstance(encoded, pa.DictionaryArray)
    indices = encoded.indices.cast(pa.int32())
    return indices, encoded.dictionary.cast(pa.string()).to_pylist()


def _gather(values: Sequence[object], indices: pa.Array, dtype: pa.DataType) -> pa.Array:
    return pc.take(pa.array(values, type=dtype), indices)


# --------------------------------------------------------------------------- attributes


@dataclass(frozen=True, slots=True)
class Attributes:
    """What the adapter reads from the attribute rows, in one pass.

    `wide[cls]` holds one column per `READ_KEYS` key of owner class `cls`, aligned with the
    spans of that class in span order (`OwnerClass.ALL`: every span). `resources` is the
    §3.4 keys per resource_row. `stages`, `measurements`, `llm_calls`, `user_signals` are
    the indexed families as long rows. `type_clashes` / `unknown_keys` are the raw rows of
    contract keys with the wrong value type / not in the contract (owner_type, owner_row,
    key, value_type) for the checks; `trial_key_owners` the span rows with mcp.app.trial.*.
    """

    wide: dict[OwnerClass, pl.DataFrame]
    resources: pl.DataFrame
    stages: pl.DataFrame
    measurements: pl.DataFrame
    llm_calls: pl.DataFrame
    user_signals: pl.DataFrame
    type_clashes: pl.DataFrame
    unknown_keys: pl.DataFrame
    trial_key_owners: pl.Series


def read_attributes(attributes: Frame, spans: pl.DataFrame) -> Attributes:
    """Read the attribute rows of `spans` (normalised) and their resources."""
    table = attributes.to_arrow() if isinstance(attributes, pl.DataFrame) else attributes
    owner_type = table.column("owner_type")
    if pa.types.is_dictionary(owner_type.type):
        owner_type = owner_type.cast(pa.string())
    is_span = pc.equal(owner_type, "span")
    is_resource = pc.equal(owner_type, "resource")
    key_indices, keys = _encode(table.column("key"))
    classes = [classify_key(k or "") for k in keys]
    value_type = table.column("value_type")
    if pa.types.is_dictionary(value_type.type):
        value_type = value_type.cast(pa.string())
    vt = pc.fill_null(pc.index_in(value_type, value_set=pa.array(VALUE_TYPES)), _VT_OTHER).cast(
        pa.int8()
    )
    kinds = [_KIND_CODE[_row_kind(k or "", c)] for k, c in zip(keys, classes, strict=True)]

    def per_row(values: Sequence[object], dtype: pa.DataType) -> pa.Array:
        return _gather(values, key_indices, dtype)

    contract_kind = per_row([c.contract_kind for c in classes], pa.int8())
    code = pc.add(pc.multiply(contract_kind.cast(pa.int32()), _VT_OTHER + 1), vt.cast(pa.int32()))
    accepted = pc.take(_accepted_table(), pc.if_else(pc.less(contract_kind, 0), 0, code))
    clash = pc.and_(pc.greater_equal(contract_kind, 0), pc.invert(accepted))
    meta = pa.table(
        {
            "owner_row": table.column("owner_row"),
            "is_resource": is_resource,
            "vt": vt,
            "key_index": key_indices,
            "kind": per_row(kinds, pa.int8()),
        }
    )

    def rows(mask: pa.Array, extra: Sequence[str] = _VALUE_NAMES) -> pl.DataFrame:
        """The rows where `mask` holds; a sparse mask is taken by index (cheaper on strings)."""
        selected = pc.sum(mask).as_py() or 0
        if selected * 8 < len(mask):
            indices = pc.indices_nonzero(mask)
            part = meta.take(indices)
            for name in extra:
                part = part.append_column(name, table.column(name).take(indices))
        else:
            part = meta.filter(mask)
            for name in extra:
                part = part.append_column(name, table.column(name).filter(mask))
        return to_polars(part)

    wide_parts = _wide_cells(table, vt, key_indices, classes, kinds, is_span, spans)
    special = per_row([int(c.special) for c in classes], pa.int8())
    family = _typed(rows(pc.and_(is_span, pc.greater(special, 0)))).with_columns(
        lookup([int(c.special) for c in classes], pl.Int8()).alias("special")
    )
    unknown = per_row([c.unknown_contract for c in classes], pa.bool_())
    trial_keys = per_row([c.trial_key for c in classes], pa.bool_())
    resource_rows = rows(is_resource)
    return Attributes(
        wide=_scatter_wide(wide_parts, spans),
        resources=_resources(resource_rows, keys),
        stages=_family(family, Special.STAGE, classes),
        measurements=_family(family, Special.MEASUREMENT, classes),
        llm_calls=_family(family, Special.LLM_CALL, classes),
        user_signals=_user_signals(family, keys),
        type_clashes=_with_keys(rows(clash, ()), keys),
        unknown_keys=_with_keys(rows(pc.and_(unknown, pc.or_(is_span, is_resource)), ()), keys),
        trial_key_owners=rows(pc.and_(is_span, trial_keys), ())["owner_row"].unique(),
    )


_VALUE_NAMES = ("string_value", "int_value", "double_value", "bool_value", "json_value")
_WIDE_VALUE_NAMES: Mapping[ValueColumn, tuple[str, ...]] = {
    ValueColumn.TEXT: ("string_value", "json_value", "int_value", "double_value"),
    ValueColumn.INT: ("int_value", "double_value"),
    ValueColumn.NUM: ("int_value", "double_value"),
    ValueColumn.BOOL: ("bool_value",),
}


def lookup(values: Sequence[object], dtype: pl.DataType, index: str = "key_index") -> pl.Expr:
    """`values[index]` per row: a per-distinct-key table gathered onto the rows."""
    return pl.lit(pl.Series(values, dtype=dtype)).gather(pl.col(index))


def _with_keys(frame: pl.DataFrame, keys: list[str | None]) -> pl.DataFrame:
    return frame.with_columns(
        lookup(keys, pl.String()).alias("key"),
        lookup([*VALUE_TYPES, "empty"], pl.String(), "vt").alias("value_type"),
    )


def _kind_is(*kinds: Kind) -> pl.Expr:
    return pl.col("kind").is_in([_KIND_CODE[k] for k in kinds])


_S, _I, _D, _B, _A, _KV = (
    _VT_CODE[x] for x in ("string", "int", "double", "bool", "array", "kvlist")
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


def _typed(rows: pl.DataFrame) -> pl.DataFrame:
    """`text`/`ival`/`fval`/`bval` per the kind of each row's key; null on a type clash."""
    k = pl.col("kind")
    ints = _kind_is(Kind.INT, Kind.COUNT)
    return rows.select(
        "owner_row",
        "key_index",
        "kind",
        _text_value().alias("text"),
        pl.when(ints).then(_int_value()).alias("ival"),
        pl.when(k == _KIND_CODE[Kind.NUM]).then(_num_value()).alias("fval"),
        pl.when(k == _KIND_CODE[Kind.BOOL]).then(_bool_value()).alias("bval"),
    )


def _row_kind(key: str, key_class: KeyClass) -> Kind:
    if key_class.read >= 0:
        return READ_KEYS[key_class.read].kind
    if key_class.special in (Special.STAGE, Special.MEASUREMENT) and key_class.contract_kind >= 0:
        return KINDS[key_class.contract_kind]
    if key_class.special is Special.LLM_CALL:
        return Kind.TEXT
    if key_class.special is Special.USER_SIGNAL:
        return Kind.JSON if key != cv.INPUT_VALUE else Kind.TEXT
    return Kind.STR


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


def _wide_cells(
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
    key_owner = _gather(
        [int(READ_KEYS[r].owner) if r >= 0 else -1 for r in read], key_indices, pa.int8()
    )
    offset = _gather([offsets[r] if r >= 0 else 0 for r in read], key_indices, pa.int64())
    local = pc.if_else(
        pc.equal(key_owner, 0),
        pos,
        pc.if_else(pc.equal(key_owner, owner_class), class_pos, pa.scalar(None, pa.int64())),
    )
    cell = pc.add(offset, local)
    vcol = _gather(
        [int(value_column(READ_KEYS[r].kind)) if r >= 0 else -1 for r in read],
        key_indices,
        pa.int8(),
    )
    kind = _gather(kinds, key_indices, pa.int8())
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


def _scatter_wide(
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


def _resources(rows: pl.DataFrame, keys: list[str | None]) -> pl.DataFrame:
    """The §3.4 keys per resource_row (a handful of rows: a plain first-per-key)."""
    rows = _with_keys(rows, keys).filter(pl.col("key").is_in(list(ck.RESOURCE_KEYS)))
    version = (
        rows.filter((pl.col("key") == ck.SCHEMA_VERSION) & (pl.col("vt") == _VT_CODE["int"]))
        .group_by("owner_row")
        .agg(pl.col("int_value").first().alias("schema_version"))
    )
    present = rows.filter(pl.col("key") == ck.SCHEMA_VERSION).select("owner_row").unique()
    content = (
        rows.filter((pl.col("key") == ck.INCLUDE_CONTENT) & (pl.col("vt") == _VT_CODE["bool"]))
        .group_by("owner_row")
        .agg(pl.col("bool_value").first().alias("include_content"))
    )
    return (
        present.join(version, on="owner_row", how="left")
        .join(content, on="owner_row", how="full", coalesce=True)
        .with_columns(pl.col("owner_row").is_in(present["owner_row"].implode()).alias("contract"))
        .rename({"owner_row": "resource_row"})
    )


def _family(rows: pl.DataFrame, family: Special, classes: list[KeyClass]) -> pl.DataFrame:
    """Rows of one indexed family: owner_row, index1, index2, field, typed values."""
    part = rows.filter(pl.col("special") == int(family))
    return part.select(
        "owner_row",
        lookup([c.index1 for c in classes], pl.Int64()).alias("index1"),
        lookup([c.index2 for c in classes], pl.Int64()).alias("index2"),
        lookup([c.field for c in classes], pl.String()).alias("field"),
        "text",
        "ival",
        "fval",
        "bval",
    )


def _user_signals(rows: pl.DataFrame, keys: list[str | None]) -> pl.DataFrame:
    """Span rows that show a user ask: a user message, or an `input.value` (§3.8)."""
    part = rows.filter(pl.col("special") == int(Special.USER_SIGNAL))
    key = lookup(keys, pl.String())
    message = (key != cv.INPUT_VALUE) & (
        (pl.col("text") == "user") | pl.col("text").str.contains(r'"role"\s*:\s*"user"')
    )
    return part.select(
        pl.col("owner_row").alias("span_row"),
        message.fill_null(False).alias("message"),
        (key == cv.INPUT_VALUE).alias("input_value"),
    )
