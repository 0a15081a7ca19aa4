"""The input conventions are readers, listed in one place, each filling only its own part.

`evidence.readers.READERS` is read in the order pinned here; each reader turns what its
convention writes on a span into the normalised columns, and no reader says anything about a
span written by another convention. `PREFERENCE` orders them per column as TRACE-FORMAT §8
orders the aliases.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import polars as pl
import pytest

from valuechain.evidence.contract_keys import Kind
from valuechain.evidence.readers import KEYS, PREFERENCE, READERS, read_conventions
from valuechain.evidence.readers import columns as c

ORDER = ["valuechain", "openinference", "genai", "otel_mcp", "traceloop"]

# (convention, span name, OpenInference kind, attributes) → the columns it fills; every
# other column is null (a flag: False).
CASES: list[tuple[str, str, str | None, dict[str, Any], dict[str, Any]]] = [
    (
        "valuechain",
        "tool search",
        None,
        {"mcp.app.tool.outcome": "ok", "mcp.app.redacted_keys": '["input.value"]'},
        {c.TOOL_OUTCOME: "ok", c.REDACTION_DECLARED: True},
    ),
    (
        "openinference",
        "search",
        "TOOL",
        {"tool.name": "search", "tool.id": "t1", "session.id": "s1"},
        {
            c.IS_EXECUTION: True,
            c.KIND_DECLARED: True,
            c.TOOL_NAME: "search",
            c.CALL_ID: "t1",
            c.APP_SESSION: "s1",
        },
    ),
    (
        "openinference",
        "ChatCompletion",
        "LLM",
        {"llm.system": "openai", "llm.model_name": "gpt", "llm.token_count.prompt": 3},
        {
            c.MODEL_STEP: True,
            c.KIND_DECLARED: True,
            c.PROVIDER: "openai",
            c.REQUEST_MODEL: "gpt",
            c.RESPONSE_MODEL: "gpt",
            c.INPUT_TOKENS: 3,
        },
    ),
    (
        "genai",
        "execute_tool search",
        None,
        {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.call.id": "c2"},
        {c.IS_EXECUTION: True, c.TOOL_NAME: "search", c.CALL_ID: "c2"},
    ),
    (
        "genai",
        "chat m",
        None,
        {
            "gen_ai.operation.name": "chat",
            "gen_ai.system": "anthropic",
            "gen_ai.request.model": "m",
            "gen_ai.usage.completion_tokens": 5,
            "gen_ai.conversation.id": "conv",
        },
        {
            c.MODEL_STEP: True,
            c.PROVIDER: "anthropic",
            c.REQUEST_MODEL: "m",
            c.OUTPUT_TOKENS: 5,
            c.CONVERSATION: "conv",
        },
    ),
    (
        "genai",
        "openai.chat",
        None,
        {"gen_ai.response.model": "m2"},
        {c.NAMES_MODEL: True, c.RESPONSE_MODEL: "m2"},
    ),
    (
        "otel_mcp",
        "tools/call search",
        None,
        {
            "mcp.method.name": "tools/call",
            "jsonrpc.request.id": "7",
            "mcp.session.id": "sess",
            "rpc.response.status_code": "-32602",
        },
        {
            c.MCP_METHOD: "tools/call",
            c.TOOL_NAME: "search",
            c.REQUEST_ID: "7",
            c.MCP_SESSION: "sess",
            c.ERROR_CODE: -32602,
        },
    ),
    (
        "otel_mcp",
        "MCP send tools/call search",
        None,
        {"error.type": "tool_error"},
        {c.TOOL_NAME: "search", c.ERROR_TYPE: "tool_error", c.CONTENT_ERROR: True},
    ),
    ("traceloop", "tools/list.mcp", None, {}, {c.MCP_METHOD: "tools/list"}),
    ("traceloop", "no/such/method.mcp", None, {}, {}),
    (
        "traceloop",
        "search.tool",
        None,
        {
            "traceloop.span.kind": "tool",
            "traceloop.entity.name": "search",
            "traceloop.entity.output": '{"result": {}, "is_error": true}',
        },
        {c.IS_EXECUTION: True, c.TOOL_NAME: "search", c.CONTENT_ERROR: True},
    ),
]


def _spans(rows: list[tuple[str, str | None, dict[str, Any]]]) -> pl.DataFrame:
    """The spans frame a reader reads: `name`, `oi` and a column per read key."""
    schema: dict[str, pl.DataType] = {"name": pl.String(), "oi": pl.String()}
    schema |= {k: pl.Int64() if kind == Kind.COUNT else pl.String() for k, kind in KEYS.items()}
    return pl.DataFrame(
        [{"name": name, "oi": oi, **attrs} for name, oi, attrs in rows], schema=schema
    )


def _filled(frame: pl.DataFrame) -> list[dict[str, Any]]:
    """Per row, the columns that are neither null nor a False flag."""
    return [
        {k: v for k, v in row.items() if v is not None and v is not False}
        for row in frame.to_dicts()
    ]


def test_readers_are_listed_in_order() -> None:
    assert [r.name for r in READERS] == ORDER


def test_every_column_takes_every_alias_once() -> None:
    assert set(PREFERENCE) == set(c.COLUMNS)
    for reader in READERS:
        aliases = reader.aliases()
        for column in c.COLUMNS:
            used = Counter(PREFERENCE[column])[reader.name]
            assert used == len(aliases.get(column, ())), (reader.name, column)


@pytest.mark.parametrize(
    ("convention", "name", "oi", "attrs", "expected"),
    CASES,
    ids=[f"{case[0]}:{case[1]}" for case in CASES],
)
def test_a_convention_fills_its_columns(
    convention: str, name: str, oi: str | None, attrs: dict[str, Any], expected: dict[str, Any]
) -> None:
    assert _filled(read_conventions(_spans([(name, oi, attrs)]))) == [expected]
    assert [c.COLUMNS[k] for k in expected] == [
        read_conventions(_spans([(name, oi, attrs)])).schema[k] for k in expected
    ]


@pytest.mark.parametrize("reader", READERS, ids=ORDER)
def test_a_reader_says_nothing_of_other_conventions(reader: Any) -> None:
    """Over every case span, the reader's aliases are null on the other conventions' spans;
    a reader that reads some spans only (`spans`) reads every span it says anything of."""
    others = [(n, o, a) for conv, n, o, a, _ in CASES if conv != reader.name]
    own = [(n, o, a) for conv, n, o, a, _ in CASES if conv == reader.name]
    exprs = [e for es in reader.aliases().values() for e in es]
    said = _spans(others).select(pl.any_horizontal(e.is_not_null() for e in exprs))
    assert not said.to_series().any()
    if reader.spans is not None:
        frame = _spans(own + others)
        speaks = frame.select(pl.any_horizontal(e.is_not_null() for e in exprs)).to_series()
        read = frame.select(reader.spans()).to_series()
        assert not (speaks & ~read).any()


def test_the_preferred_alias_wins() -> None:
    """§8's order across conventions: `tool_call.id`, `gen_ai.tool.call.id`, `tool.id`;
    GenAI's provider before OpenInference's; the named tool before the span name's."""
    rows = [
        ("x", None, {"tool_call.id": "a", "gen_ai.tool.call.id": "b", "tool.id": "c"}),
        ("x", None, {"gen_ai.tool.call.id": "b", "tool.id": "c"}),
        ("x", None, {"llm.provider": "oi", "gen_ai.system": "genai"}),
        ("execute_tool y", None, {"gen_ai.tool.name": "z"}),
        ("search.tool", None, {"traceloop.span.kind": "tool", "traceloop.entity.name": "t"}),
    ]
    out = read_conventions(_spans(rows))
    assert out[c.CALL_ID].to_list()[:3] == ["a", "b", None]
    assert out[c.PROVIDER].to_list()[2] == "genai"
    assert out[c.TOOL_NAME].to_list()[3:] == ["z", "t"]
