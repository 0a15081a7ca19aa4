"""The calls pass: one row per logical tool call, requested calls never run included (§2.4).

One-span calls come from the tools frame (`prepare_tools`), joined calls as the assembler
built them (`inputs`), and the calls a model requested (`llm.output_messages.<i>.message.
tool_calls.<k>.tool_call.*`) that no span executed (§2.4 (1)).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import polars as pl

from valuechain.evidence.attributes import Attributes
from valuechain.evidence.evidence_frame import EvidenceFrame, need


def calls_pass(frame: EvidenceFrame) -> EvidenceFrame:
    """Fills `calls` from `tools`, the assembler's joined calls and the requested calls."""
    requested = requests(need(frame.st, "st"), need(frame.attrs, "attrs"))
    calls = tool_calls(need(frame.tools, "tools"), list(frame.joined_calls), requested)
    return replace(frame, calls=calls)


def requests(st: pl.DataFrame, attrs: Attributes) -> pl.DataFrame:
    """Requested calls: `llm.output_messages.<i>.message.tool_calls.<k>.tool_call.*` (§2.4 (1))."""
    part = attrs.llm_calls
    keys = ["owner_row", "index1", "index2"]
    ids = part.filter(pl.col("field") == "id").select(*keys, pl.col("text").alias("call_id"))
    names = part.filter(pl.col("field") == "function.name").select(
        *keys, pl.col("text").alias("tool_name")
    )
    return (
        ids.join(names, on=keys, how="left")
        .rename({"owner_row": "span_row"})
        .join(st.select("span_row", "trial_index", "start_ns"), on="span_row", how="inner")
        .filter(pl.col("call_id").is_not_null())
        .sort(["trial_index", "start_ns", "span_row", "index1", "index2"], nulls_last=True)
        .unique(["trial_index", "call_id"], keep="first", maintain_order=True)
        .select("trial_index", "call_id", "tool_name")
    )


_CALL_SCHEMA = {
    "trial_index": pl.Int64,
    "call_id": pl.String,
    "tool_name": pl.String,
    "executed": pl.Boolean,
    "outcome": pl.String,
    "status": pl.String,
    "span_id": pl.String,
    "span_count": pl.Int32,
    "mcp_error_code": pl.Int64,
    "prompt_index": pl.Int64,
}


def tool_calls(
    tools: pl.DataFrame, joined_rows: list[tuple[Any, ...]], requested: pl.DataFrame
) -> pl.DataFrame:
    """One row per logical call (§2.4): one-span calls vectorised, joined calls as built by
    the assembler, then the requests that never executed; `requested` by tool-call id."""
    simple = tools.filter(pl.col("simple") & (pl.col("is_role") | ~pl.col("t_contract"))).select(
        "trial_index",
        "call_id",
        "tool_name",
        "executed",
        "outcome",
        pl.when(pl.col("executed")).then(pl.col("status")).alias("status"),
        pl.col("span").alias("span_id"),
        pl.lit(1, dtype=pl.Int32).alias("span_count"),
        pl.col("code").alias("mcp_error_code"),
        "prompt_index",
    )
    joined = pl.DataFrame(joined_rows, schema=_CALL_SCHEMA, orient="row")
    calls = pl.concat([simple.cast(_CALL_SCHEMA), joined])  # type: ignore[arg-type]
    seen = tools.select("trial_index", "call_id").filter(pl.col("call_id").is_not_null())
    never = requested.join(seen, on=["trial_index", "call_id"], how="anti").select(
        "trial_index",
        "call_id",
        "tool_name",
        pl.lit(False).alias("executed"),
        pl.lit(None, dtype=pl.String).alias("outcome"),
        pl.lit(None, dtype=pl.String).alias("status"),
        pl.lit(None, dtype=pl.String).alias("span_id"),
        pl.lit(0, dtype=pl.Int32).alias("span_count"),
        pl.lit(None, dtype=pl.Int64).alias("mcp_error_code"),
        pl.lit(None, dtype=pl.Int64).alias("prompt_index"),
    )
    calls = pl.concat([calls, never.cast(_CALL_SCHEMA)])  # type: ignore[arg-type]
    asked = requested.select("trial_index", "call_id", pl.lit(True).alias("requested"))
    return (
        calls.join(asked, on=["trial_index", "call_id"], how="left", maintain_order="left")
        .with_columns(pl.col("requested").fill_null(False))
        .sort("trial_index", maintain_order=True)
    )
