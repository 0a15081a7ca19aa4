"""The one pass that reads the attribute rows the adapter needs (shapes: `evidence.frames`).

Each distinct key is classified once (`classify`) and the wide columns are scattered in one
pass (`pivot`); here the rows of each part are selected by mask, and what is read as long
rows is read: the indexed families (`mcp.app.stages.<i>.*`, `mcp.app.measurements.<i>.*`,
TRACE-FORMAT §3.5; requested tool calls, §2.4 (1); user signals, §3.8), the raw rows the
§5.2 checks report, and the §3.4 keys per resource.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import polars as pl
import pyarrow as pa
import pyarrow.compute as pc

from valuechain.evidence import contract_keys as ck
from valuechain.evidence import conventions as cv
from valuechain.evidence.classify import (
    KIND_CODE,
    VALUE_TYPES,
    VT_CODE,
    VT_OTHER,
    KeyClass,
    Special,
    accepted_table,
    classify_key,
    encode,
    gather,
    is_output_content,
    lookup,
    per_value,
    row_kind,
)
from valuechain.evidence.contract_keys import OwnerClass
from valuechain.evidence.frames import Frame, to_polars
from valuechain.evidence.pivot import scatter_wide, typed, wide_cells


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
    is_span = per_value(owner_type, lambda t: pc.equal(t, "span"))
    is_resource = per_value(owner_type, lambda t: pc.equal(t, "resource"))
    key_indices, keys = encode(table.column("key"))
    classes = [classify_key(k or "") for k in keys]
    value_types = pa.array(VALUE_TYPES)
    vt = pc.fill_null(
        per_value(table.column("value_type"), lambda t: pc.index_in(t, value_set=value_types)),
        VT_OTHER,
    ).cast(pa.int8())
    kinds = [KIND_CODE[row_kind(k or "", c)] for k, c in zip(keys, classes, strict=True)]

    def per_row(values: Sequence[object], dtype: pa.DataType) -> pa.Array:
        return gather(values, key_indices, dtype)

    contract_kind = per_row([c.contract_kind for c in classes], pa.int8())
    code = pc.add(pc.multiply(contract_kind.cast(pa.int32()), VT_OTHER + 1), vt.cast(pa.int32()))
    accepted = pc.take(accepted_table(), pc.if_else(pc.less(contract_kind, 0), 0, code))
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

    wide_parts = wide_cells(table, vt, key_indices, classes, kinds, is_span, spans)
    special = per_row([int(c.special) for c in classes], pa.int8())
    family = typed(rows(pc.and_(is_span, pc.greater(special, 0)))).with_columns(
        lookup([int(c.special) for c in classes], pl.Int8()).alias("special")
    )
    unknown = per_row([c.unknown_contract for c in classes], pa.bool_())
    trial_keys = per_row([c.trial_key for c in classes], pa.bool_())
    resource_rows = rows(is_resource)
    return Attributes(
        wide=scatter_wide(wide_parts, spans),
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


# --------------------------------------------------------------------------- families, resources


def _with_keys(frame: pl.DataFrame, keys: list[str | None]) -> pl.DataFrame:
    return frame.with_columns(
        lookup(keys, pl.String()).alias("key"),
        lookup([*VALUE_TYPES, "empty"], pl.String(), "vt").alias("value_type"),
    )


def _resources(rows: pl.DataFrame, keys: list[str | None]) -> pl.DataFrame:
    """The §3.4 keys per resource_row (a handful of rows: a plain first-per-key)."""
    rows = _with_keys(rows, keys).filter(pl.col("key").is_in(list(ck.RESOURCE_KEYS)))
    version = (
        rows.filter((pl.col("key") == ck.SCHEMA_VERSION) & (pl.col("vt") == VT_CODE["int"]))
        .group_by("owner_row")
        .agg(pl.col("int_value").first().alias("schema_version"))
    )
    present = rows.filter(pl.col("key") == ck.SCHEMA_VERSION).select("owner_row").unique()
    content = (
        rows.filter((pl.col("key") == ck.INCLUDE_CONTENT) & (pl.col("vt") == VT_CODE["bool"]))
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


# A user message inside a serialised list: JSON, or the Python repr the deprecated
# `gen_ai.prompt` string was written as (`[{'role': 'user', …}]`).
_USER_ROLE_IN_MESSAGES = r"""["']role["']\s*:\s*["']user["']"""


def _user_signals(rows: pl.DataFrame, keys: list[str | None]) -> pl.DataFrame:
    """Span rows that show a user ask — a user message, or an `input.value` (§3.8) — or any
    message content at all (output keys among them: they are never an ask)."""
    part = rows.filter(pl.col("special") == int(Special.USER_SIGNAL))
    key = lookup(keys, pl.String())
    output = lookup([k is not None and is_output_content(k) for k in keys], pl.Boolean())
    message = (
        (key != cv.INPUT_VALUE)
        & ~output
        & ((pl.col("text") == "user") | pl.col("text").str.contains(_USER_ROLE_IN_MESSAGES))
    )
    return part.select(
        pl.col("owner_row").alias("span_row"),
        message.fill_null(False).alias("message"),
        (key == cv.INPUT_VALUE).alias("input_value"),
    )
