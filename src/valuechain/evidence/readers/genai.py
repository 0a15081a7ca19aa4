"""The OpenTelemetry GenAI conventions (`gen_ai.*`, TRACE-FORMAT §2.2) as a reader.

A span's operation says what it is: `execute_tool` a tool's execution (named
`execute_tool {tool}`), `chat` / `text_completion` / `generate_content` a model call. A span
that names a model (`gen_ai.request.model` / `gen_ai.response.model`) and no operation at all
comes from an instrumentation written before the operation name existed (OpenLLMetry's
`openai.chat`, …): `names_model`, a model call outside the contract. A span naming another
operation (`invoke_agent`) is neither, so an agent's summed usage is not counted twice. The
deprecated transcript keys (`gen_ai.prompt*`, `gen_ai.completion*`) are read as long rows by
the attribute reading (`evidence.classify`).
"""

from __future__ import annotations

from typing import Final

import polars as pl

from valuechain.evidence.contract_keys import Kind
from valuechain.evidence.readers import columns as c
from valuechain.evidence.readers.columns import Aliases, Reader, flag, name_suffix

OPERATION: Final = "gen_ai.operation.name"
EXECUTE_TOOL: Final = "execute_tool"
# Inference operations (§2.2) whose spans count as model steps and carry token usage.
INFERENCE_OPERATIONS: frozenset[str] = frozenset({"chat", "text_completion", "generate_content"})
TOOL_NAME: Final = "gen_ai.tool.name"
TOOL_CALL_ID: Final = "gen_ai.tool.call.id"
PROVIDER: tuple[str, ...] = ("gen_ai.provider.name", "gen_ai.system")  # the second deprecated
REQUEST_MODEL: Final = "gen_ai.request.model"
RESPONSE_MODEL: Final = "gen_ai.response.model"
INPUT_TOKENS: tuple[str, ...] = ("gen_ai.usage.input_tokens", "gen_ai.usage.prompt_tokens")
OUTPUT_TOKENS: tuple[str, ...] = ("gen_ai.usage.output_tokens", "gen_ai.usage.completion_tokens")
CONVERSATION: Final = "gen_ai.conversation.id"
# The span name of a tool's execution, `execute_tool {tool}`: its suffix names the tool.
EXECUTE_TOOL_PREFIX: Final = "execute_tool "

KEYS: dict[str, Kind] = {
    **dict.fromkeys((TOOL_NAME, TOOL_CALL_ID), Kind.TEXT),
    **dict.fromkeys((OPERATION, *PROVIDER, REQUEST_MODEL, RESPONSE_MODEL, CONVERSATION), Kind.STR),
    **dict.fromkeys((*INPUT_TOKENS, *OUTPUT_TOKENS), Kind.COUNT),
}


def _aliases() -> Aliases:
    operation = pl.col(OPERATION)
    names_model = operation.is_null() & pl.coalesce(REQUEST_MODEL, RESPONSE_MODEL).is_not_null()
    return {
        c.IS_EXECUTION: (flag(operation == EXECUTE_TOOL),),
        c.TOOL_NAME: (pl.col(TOOL_NAME), name_suffix(EXECUTE_TOOL_PREFIX)),
        c.CALL_ID: (pl.col(TOOL_CALL_ID),),
        c.MODEL_STEP: (flag(operation.is_in(INFERENCE_OPERATIONS)),),
        c.NAMES_MODEL: (flag(names_model),),
        c.PROVIDER: (pl.coalesce(PROVIDER),),
        c.REQUEST_MODEL: (pl.col(REQUEST_MODEL),),
        c.RESPONSE_MODEL: (pl.col(RESPONSE_MODEL),),
        c.INPUT_TOKENS: (pl.coalesce(INPUT_TOKENS),),
        c.OUTPUT_TOKENS: (pl.coalesce(OUTPUT_TOKENS),),
        c.CONVERSATION: (pl.col(CONVERSATION),),
    }


READER = Reader("genai", _aliases)
