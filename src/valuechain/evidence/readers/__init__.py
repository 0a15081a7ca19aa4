"""The input conventions as readers: each fills the normalised span columns it speaks for.

A trace mixes conventions — the valuechain eval convention (`mcp.app.*`), OpenInference,
OTel GenAI, OTel MCP / JSON-RPC, traceloop / OpenLLMetry — and each is one module here, a
`Reader` of the spans frame (`name`, `oi` and the wide attribute columns the reading step
scattered). `READERS` lists them; `PREFERENCE` says, per normalised column
(`readers.columns.COLUMNS`), whose value wins: the first reader, in that order, that says
anything (TRACE-FORMAT §8, first alias = preferred). A flag is raised when any reader raises
it. `read_conventions` runs them once, in the reading step (`evidence.reading`); no later
pass reads a convention's key or asks which convention wrote a span. (MCPJam SDK results
need no reader of their own: the import translates them into spans under the eval
convention, `ingest.mcpjam`.)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from types import MappingProxyType

import polars as pl

from valuechain.evidence.contract_keys import Kind
from valuechain.evidence.readers import columns as c
from valuechain.evidence.readers import genai, openinference, otel_mcp, traceloop, valuechain
from valuechain.evidence.readers.columns import Aliases, Reader

READERS: tuple[Reader, ...] = (
    valuechain.READER,  # mcp.app.*: the producer's tool outcome, redacted keys
    openinference.READER,  # openinference.span.kind, tool.*, llm.*, session.id
    genai.READER,  # gen_ai.*
    otel_mcp.READER,  # mcp.*, rpc.*, jsonrpc.*, error.type, the SDK's span names
    traceloop.READER,  # traceloop.*, `{method}.mcp` / `{tool}.tool` span names
)

_VC, _OI, _GENAI, _MCP, _TL = (r.name for r in READERS)

# Per column, the readers in order of preference. A reader named twice gives its first alias
# at its first place and its next alias at the second (§8 interleaves some conventions).
PREFERENCE: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        c.MCP_METHOD: (_MCP, _TL),  # mcp.method.name, a `{method}.mcp` name
        c.IS_EXECUTION: (_OI, _GENAI, _TL),
        # tool.name, gen_ai.tool.name, a traceloop tool's entity name; last, a span name's
        # suffix (`execute_tool X`, `tools/call X`, `MCP send tools/call X`)
        c.TOOL_NAME: (_OI, _GENAI, _TL, _GENAI, _MCP, _MCP),
        c.CALL_ID: (_OI, _GENAI, _OI),  # tool_call.id, gen_ai.tool.call.id, tool.id
        c.REQUEST_ID: (_MCP,),
        c.MCP_SESSION: (_MCP,),
        c.ERROR_CODE: (_MCP,),
        c.ERROR_TYPE: (_MCP,),
        c.CONTENT_ERROR: (_MCP, _TL),  # error.type = tool_error, `"is_error": true`
        c.TOOL_OUTCOME: (_VC,),
        c.MODEL_STEP: (_OI, _GENAI),  # an LLM span, an inference operation
        c.NAMES_MODEL: (_GENAI,),
        c.KIND_DECLARED: (_OI,),
        c.PROVIDER: (_GENAI, _OI),
        c.REQUEST_MODEL: (_GENAI, _OI),
        c.RESPONSE_MODEL: (_GENAI, _OI),
        c.INPUT_TOKENS: (_GENAI, _OI),
        c.OUTPUT_TOKENS: (_GENAI, _OI),
        c.APP_SESSION: (_OI,),
        c.CONVERSATION: (_GENAI,),
        c.REDACTION_DECLARED: (_VC,),
    }
)

# Every key a reader reads wide, on every span, with the kind it is read as.
KEYS: Mapping[str, Kind] = MappingProxyType(
    {
        **valuechain.KEYS,
        **openinference.KEYS,
        **genai.KEYS,
        **otel_mcp.KEYS,
        **traceloop.KEYS,
    }
)


def read_conventions(spans: pl.DataFrame) -> pl.DataFrame:
    """The normalised columns of `COLUMNS`, a row per span of `spans` (which holds `name`,
    `oi` and a column per key of `KEYS`). A reader that speaks for some spans only is
    evaluated over those rows alone; its aliases are null elsewhere."""
    said: dict[str, Aliases] = {}
    scattered: list[pl.Series] = []
    for reader in READERS:
        aliases = reader.aliases()
        if reader.spans is not None:
            rows = spans.select(pl.arg_where(reader.spans())).to_series()
            subset = spans[rows] if len(rows) else None
            aliases = {
                column: tuple(
                    _slot(subset, rows, spans.height, expr, c.COLUMNS[column], scattered)
                    for expr in exprs
                )
                for column, exprs in aliases.items()
            }
        said[reader.name] = aliases
    frame = spans.with_columns(scattered) if scattered else spans
    return frame.select(_combined(column, said) for column in c.COLUMNS)


def _slot(
    subset: pl.DataFrame | None,
    rows: pl.Series,
    height: int,
    expr: pl.Expr,
    dtype: pl.DataType,
    out: list[pl.Series],
) -> pl.Expr:
    """`expr` over the `subset` of spans at `rows`, as a column of `height` rows null
    elsewhere, added to `out`; a null literal when there is no such span (most batches)."""
    if subset is None:
        return pl.lit(None, dtype)
    part = subset.select(expr.cast(dtype)).to_series()
    name = f"\x1fslot{len(out)}"
    out.append(pl.repeat(None, height, dtype=dtype, eager=True).scatter(rows, part).alias(name))
    return pl.col(name)


def _combined(column: str, said: Mapping[str, Aliases]) -> pl.Expr:
    """The first non-null alias of `column` in `PREFERENCE` order (a flag: False if none)."""
    taken: Counter[str] = Counter()
    exprs = []
    for name in PREFERENCE[column]:
        exprs.append(said[name][column][taken[name]])
        taken[name] += 1
    dtype = c.COLUMNS[column]
    combined = pl.coalesce(exprs).cast(dtype)
    return (combined.fill_null(False) if dtype == pl.Boolean else combined).alias(column)
