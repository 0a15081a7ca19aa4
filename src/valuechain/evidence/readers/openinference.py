"""OpenInference (`openinference.span.kind`, `tool.*`, `llm.*`, `session.id`) as a reader.

The span kind is read by the import (`oi`): a `TOOL` span is a tool's execution, an `LLM`
span a model call. Its transcript keys (`llm.input_messages.*`, `llm.output_messages.*`,
`input.value`) are read as long rows by the attribute reading (`evidence.classify`).
"""

from __future__ import annotations

from typing import Final

import polars as pl

from valuechain.evidence.contract_keys import Kind
from valuechain.evidence.readers import columns as c
from valuechain.evidence.readers.columns import Aliases, Reader, flag

TOOL_NAME: Final = "tool.name"
TOOL_CALL_ID: Final = "tool_call.id"
TOOL_ID: Final = "tool.id"  # §8: after GenAI's call id
PROVIDER: tuple[str, ...] = ("llm.provider", "llm.system")
REQUEST_MODEL: tuple[str, ...] = ("llm.request.model_name", "llm.model_name")
RESPONSE_MODEL: tuple[str, ...] = ("llm.response.model_name", "llm.model_name")
INPUT_TOKENS: Final = "llm.token_count.prompt"
OUTPUT_TOKENS: Final = "llm.token_count.completion"
SESSION: Final = "session.id"

KEYS: dict[str, Kind] = {
    **dict.fromkeys((TOOL_NAME, TOOL_CALL_ID, TOOL_ID), Kind.TEXT),
    **dict.fromkeys((*PROVIDER, *REQUEST_MODEL, *RESPONSE_MODEL, SESSION), Kind.STR),
    **dict.fromkeys((INPUT_TOKENS, OUTPUT_TOKENS), Kind.COUNT),
}


def _aliases() -> Aliases:
    kind = pl.col("oi")
    return {
        c.IS_EXECUTION: (flag(kind == "TOOL"),),
        c.TOOL_NAME: (pl.col(TOOL_NAME),),
        c.CALL_ID: (pl.col(TOOL_CALL_ID), pl.col(TOOL_ID)),
        c.MODEL_STEP: (flag(kind == "LLM"),),
        c.KIND_DECLARED: (flag(kind.is_not_null()),),
        c.PROVIDER: (pl.coalesce(PROVIDER),),
        c.REQUEST_MODEL: (pl.coalesce(REQUEST_MODEL),),
        c.RESPONSE_MODEL: (pl.coalesce(RESPONSE_MODEL),),
        c.INPUT_TOKENS: (pl.col(INPUT_TOKENS),),
        c.OUTPUT_TOKENS: (pl.col(OUTPUT_TOKENS),),
        c.APP_SESSION: (pl.col(SESSION),),
    }


READER = Reader("openinference", _aliases)
