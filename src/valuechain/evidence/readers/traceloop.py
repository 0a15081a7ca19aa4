"""traceloop / OpenLLMetry's `@traceloop/instrumentation-mcp` as a reader (0.27.0,
`dist/index.js`; keys of `@traceloop/ai-semantic-conventions` `SpanAttributes`).

It writes no `mcp.method.name` at all: a request span is named `{method}.mcp`
(`initialize.mcp`, `tools/list.mcp`), a tool call `{tool}.tool` with
`traceloop.span.kind = tool` and `traceloop.entity.name = {tool}`; with content tracing on,
`traceloop.entity.output` is JSON `{"result": …, "is_error": …}`. An `isError` result and a
JSON-RPC error alike only set the span status ERROR (no code, no `error.type`).

Only spans that can be its spans are read — a `….mcp` name, a `traceloop.span.kind`, an
entity output — so its name and JSON checks cost nothing on a batch without them.
"""

from __future__ import annotations

from typing import Final

import polars as pl

from valuechain.evidence.contract_keys import Kind
from valuechain.evidence.readers import columns as c
from valuechain.evidence.readers.columns import Aliases, Reader, flag

SPAN_KIND: Final = "traceloop.span.kind"  # `tool` on a tool span, `session`, …
ENTITY_NAME: Final = "traceloop.entity.name"  # the tool's name on a tool span
ENTITY_OUTPUT: Final = "traceloop.entity.output"  # JSON: {result, is_error}
TOOL_KIND: Final = "tool"
METHOD_SUFFIX: Final = ".mcp"
# `"is_error": true` in the entity output JSON (an `isError` result).
_IS_ERROR_TRUE = r'"is_error"\s*:\s*true\b'

KEYS: dict[str, Kind] = dict.fromkeys((SPAN_KIND, ENTITY_NAME, ENTITY_OUTPUT), Kind.STR)


def _spans() -> pl.Expr:
    return (
        pl.col("name").str.ends_with(METHOD_SUFFIX)
        | pl.col(SPAN_KIND).is_not_null()
        | pl.col(ENTITY_OUTPUT).is_not_null()
    )


def _aliases() -> Aliases:
    name = pl.col("name")
    method = name.str.strip_suffix(METHOD_SUFFIX)
    # any other `….mcp` name is not read as a method
    known = name.str.ends_with(METHOD_SUFFIX) & method.is_in(sorted(c.MCP_METHODS))
    is_tool = (pl.col(SPAN_KIND) == TOOL_KIND).fill_null(False)
    return {
        c.MCP_METHOD: (pl.when(known).then(method),),
        c.IS_EXECUTION: (flag(is_tool),),
        c.TOOL_NAME: (pl.when(is_tool).then(pl.col(ENTITY_NAME)),),
        c.CONTENT_ERROR: (flag(pl.col(ENTITY_OUTPUT).str.contains(_IS_ERROR_TRUE)),),
    }


READER = Reader("traceloop", _aliases, _spans)
