"""Span rows that travel between the scale-out path's stages, and their assembly (pure Arrow).

A decoded export (`decode_export`) becomes one row per span that carries everything the
evidence adapter later reads of it: its columns, its own attribute rows and its resource's
(as lists, in ordinal order), the source it came from and its position there. Rows of one run
from any number of files are then assembled into exactly what the store's ``sql/evidence``
statements hand the derive step (`assemble`), applying the store's import rules on the way:
spans in import order (source, then position), an exact duplicate kept once, conflicting
duplicates sharing a ``dup_group``, identical resources one row (TRACE-FORMAT §5.1–§5.2,
``sql/ingest/100``–``162``). So a trace split across files is derived whole, as an import of
the same files would derive it.
"""

from __future__ import annotations

from collections.abc import Mapping

import polars as pl
import pyarrow as pa

from valuechain.evidence.classify import VALUE_TYPES
from valuechain.ingest.source.decoded import DecodedSource
from valuechain.pipeline.staging import BatchRows

# One attribute row as ``sql/evidence/020`` returns it (less the owner, which is the row).
ATTRIBUTE_FIELDS = (
    "ordinal",
    "key",
    "value_type",
    "string_value",
    "int_value",
    "double_value",
    "bool_value",
    "json_value",
)
# The span columns ``sql/evidence/010`` returns (row ids are assigned on assembly).
SPAN_FIELDS = (
    "trace_id",
    "span_id",
    "parent_span_id",
    "name",
    "kind",
    "start_time_unix_nano",
    "end_time_unix_nano",
    "status_code",
    "mcp_app_role",
    "oi_span_kind",
    "dropped_attributes_count",
)
RUN_ID_KEY = "mcp.app.run.id"
TRIAL_ROLE = "trial"
CONTRACT_PREFIX = "mcp.app."


def decoded_rows(decoded: DecodedSource, source_index: int) -> pa.Table:
    """One row per span of a decoded source, with its attributes and its resource's.

    Columns: ``source_index`` (the file's place in the import order), ``span_row`` (its
    position in the file), the span columns, ``content_hash``, ``resource_hash``,
    ``run_attr`` (the ``mcp.app.run.id`` of a trial root), ``attributes`` and
    ``resource_attributes`` (lists of structs of `ATTRIBUTE_FIELDS`).
    """
    tables = decoded.tables
    if "spans" not in tables or tables["spans"].num_rows == 0:
        return empty_rows()
    attrs = _attribute_rows(tables["attributes"], tables["large_values"])
    nested = (
        attrs.sort("owner_type", "owner_row", "ordinal")
        .group_by("owner_type", "owner_row", maintain_order=True)
        .agg(pl.struct(*ATTRIBUTE_FIELDS).alias("attributes"))
    )
    own = nested.filter(pl.col("owner_type") == "span").select(
        pl.col("owner_row").alias("span_row"), "attributes"
    )
    resource = nested.filter(pl.col("owner_type") == "resource").select(
        pl.col("owner_row").alias("resource_row"), pl.col("attributes").alias("resource_attributes")
    )
    run_attr = (  # a span's first run id (the derive keeps a duplicated key's first copy)
        attrs.filter(
            (pl.col("owner_type") == "span")
            & (pl.col("key") == RUN_ID_KEY)
            & pl.col("string_value").is_not_null()
        )
        .group_by("owner_row")
        .agg(pl.col("string_value").sort_by("ordinal").first().alias("run_attr"))
        .rename({"owner_row": "span_row"})
    )
    hashes = _frame(tables["resources"]).select(
        "resource_row", pl.col("content_hash").alias("resource_hash")
    )
    spans = _frame(tables["spans"]).select("span_row", "resource_row", *SPAN_FIELDS, "content_hash")
    out = (
        spans.join(own, on="span_row", how="left", maintain_order="left")
        .join(hashes, on="resource_row", how="left", maintain_order="left")
        .join(resource, on="resource_row", how="left", maintain_order="left")
        .join(run_attr, on="span_row", how="left", maintain_order="left")
        .with_columns(
            pl.when(pl.col("mcp_app_role") == TRIAL_ROLE).then(pl.col("run_attr")),
            pl.lit(source_index, pl.Int32).alias("source_index"),
        )
        .drop("resource_row")
    )
    return out.select(ROWS_SCHEMA.names).to_arrow().cast(ROWS_SCHEMA)


def _frame(table: pa.Table) -> pl.DataFrame:
    frame = pl.from_arrow(table)
    assert isinstance(frame, pl.DataFrame)
    return frame


def _attribute_rows(attributes: pa.Table, large_values: pa.Table) -> pl.DataFrame:
    """Span and resource attribute rows as ``sql/evidence/020`` gives them: contract keys
    moved to large values inlined (content keys keep their stub), unknown types as null."""
    large = _frame(large_values).select(
        "large_value_ref", pl.col("string_value").alias("large_string")
    )
    return (
        _frame(attributes)
        .filter(pl.col("owner_type").is_in(["span", "resource"]))
        .join(large, on="large_value_ref", how="left", maintain_order="left")
        .with_columns(
            pl.when(pl.col("value_type").is_in(VALUE_TYPES)).then(pl.col("value_type")),
            pl.when(
                pl.col("string_value").is_null() & pl.col("key").str.starts_with(CONTRACT_PREFIX)
            )
            .then(pl.col("large_string"))
            .otherwise(pl.col("string_value"))
            .alias("string_value"),
        )
        .select("owner_type", "owner_row", *ATTRIBUTE_FIELDS)
    )


_ATTRIBUTE = pa.struct(
    [
        ("ordinal", pa.uint32()),
        ("key", pa.string()),
        ("value_type", pa.string()),
        ("string_value", pa.large_string()),
        ("int_value", pa.int64()),
        ("double_value", pa.float64()),
        ("bool_value", pa.bool_()),
        ("json_value", pa.large_string()),
    ]
)
ROWS_SCHEMA = pa.schema(
    [
        ("source_index", pa.int32()),
        ("span_row", pa.int64()),
        ("trace_id", pa.binary(16)),
        ("span_id", pa.binary(8)),
        ("parent_span_id", pa.binary(8)),
        ("name", pa.string()),
        ("kind", pa.int32()),
        ("start_time_unix_nano", pa.uint64()),
        ("end_time_unix_nano", pa.uint64()),
        ("status_code", pa.int32()),
        ("mcp_app_role", pa.string()),
        ("oi_span_kind", pa.string()),
        ("dropped_attributes_count", pa.uint32()),
        ("content_hash", pa.binary(32)),
        ("resource_hash", pa.binary(32)),
        ("run_attr", pa.string()),
        ("attributes", pa.list_(_ATTRIBUTE)),
        ("resource_attributes", pa.list_(_ATTRIBUTE)),
    ]
)


def empty_rows() -> pa.Table:
    return ROWS_SCHEMA.empty_table()


def trace_sources(rows: pa.Table) -> pa.Table:
    """Per (trace, source): the trial root's run id there (None: no root with one); of several,
    the first in the file (the derive keeps a duplicated root's first copy)."""
    frame = _frame(rows.select(["trace_id", "source_index", "span_row", "run_attr"]))
    return (
        frame.group_by("trace_id", "source_index")
        .agg(pl.col("run_attr").sort_by("span_row").drop_nulls().first())
        .to_arrow()
        .cast(TRACE_SOURCES)
    )


TRACE_SOURCES = pa.schema(
    [("trace_id", pa.binary(16)), ("source_index", pa.int32()), ("run_attr", pa.string())]
)


def run_keys(trace_sources: pa.Table, source_ids: Mapping[int, int]) -> pl.DataFrame:
    """Every trace's run key, as ``sql/query/trace_runs.sql`` computes it over a store: the
    trial root's ``mcp.app.run.id`` (of several, the first source's), else ``source:`` and the
    first source holding the trace
    (TRACE-FORMAT §3.8). ``source_ids`` maps a file's index to its store id; files absent
    from it (rejected, or the same bytes as an earlier file) hold nothing."""
    ids = pl.DataFrame(
        {"source_index": list(source_ids), "source_id": list(source_ids.values())},
        schema={"source_index": pl.Int32, "source_id": pl.Int32},
    )
    return (
        _frame(trace_sources)
        .join(ids, on="source_index", how="inner")
        .group_by("trace_id")
        .agg(
            pl.col("run_attr").sort_by("source_id").drop_nulls().first(), pl.col("source_id").min()
        )
        .select(
            "trace_id",
            pl.coalesce("run_attr", pl.lit("source:") + pl.col("source_id").cast(pl.String)).alias(
                "run_key"
            ),
        )
    )


def keyed_rows(rows: pa.Table, keys: pl.DataFrame, source_ids: Mapping[int, int]) -> pa.Table:
    """The rows of kept sources with their store ``source_id`` and their trace's run key."""
    ids = pl.DataFrame(
        {"source_index": list(source_ids), "source_id": list(source_ids.values())},
        schema={"source_index": pl.Int32, "source_id": pl.Int32},
    )
    out = (
        _frame(rows)
        .join(ids, on="source_index", how="inner", maintain_order="left")
        .join(keys, on="trace_id", how="inner", maintain_order="left")
        .drop("source_index")
    )
    return out.to_arrow()


def assemble(rows: pa.Table, sha256: Mapping[int, str]) -> BatchRows:
    """The rows of whole runs (any files, any order) as the store would hand them to the
    derive step (``sql/evidence``): import order, duplicates resolved, resources shared."""
    frame = (
        _frame(rows)
        .sort("source_id", "span_row")
        .unique(["trace_id", "span_id", "content_hash"], keep="first", maintain_order=True)
        .drop("span_row")
        .with_row_index("span_row")
        .with_columns(pl.col("span_row").cast(pl.Int64))
    )
    same_span = ("trace_id", "span_id")
    frame = frame.with_columns(
        pl.when(pl.col("content_hash").n_unique().over(same_span) > 1)
        .then(pl.col("span_row").min().over(same_span))
        .alias("dup_group"),
        pl.col("span_row").min().over("resource_hash").alias("resource_row"),
    )
    spans = frame.select(
        "span_row",
        "trace_id",
        "span_id",
        "parent_span_id",
        "resource_row",
        "source_id",
        *SPAN_FIELDS[3:],
        "dup_group",
    )
    own = _long(frame.select(pl.col("span_row").alias("owner_row"), "attributes"), "span")
    resources = frame.unique("resource_row", keep="first", maintain_order=True).select(
        pl.col("resource_row").alias("owner_row"),
        pl.col("resource_attributes").alias("attributes"),
    )
    attributes = pl.concat([own, _long(resources, "resource")])
    traces = frame.get_column("trace_id").unique(maintain_order=True).to_list()
    held = frame.get_column("source_id").unique().to_list()
    return BatchRows(
        [bytes(t) for t in traces],
        spans.to_arrow(),
        attributes.to_arrow(),
        {int(s): sha256[int(s)] for s in held},
    )


def _long(owners: pl.DataFrame, owner_type: str) -> pl.DataFrame:
    """One attribute row per list item, owner first (the shape of ``sql/evidence/020``)."""
    return (
        owners.explode("attributes")
        .filter(pl.col("attributes").is_not_null())
        .unnest("attributes")
        .select(pl.lit(owner_type).alias("owner_type"), "owner_row", *ATTRIBUTE_FIELDS)
    )
