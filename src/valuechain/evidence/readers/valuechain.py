"""The valuechain eval convention (`mcp.app.*`, TRACE-FORMAT §3.5) as a reader.

Most of the convention is read by owner class (`evidence.contract_keys`, `attributes`: a
trial root's keys, a grader's, a widget's, a turn's) and its span role by the import (`role`).
What it says on any span is read here: the producer's outcome of a tool call and the keys a
span left out. The passes heed both only inside contract trials (§3.8: `mcp.app.*` keys
outside the contract are interpreted by nobody).
"""

from __future__ import annotations

from typing import Final

import polars as pl

from valuechain.evidence.contract_keys import SPAN_KEYS, Kind
from valuechain.evidence.readers.columns import (
    REDACTION_DECLARED,
    TOOL_OUTCOME,
    Aliases,
    Reader,
    flag,
)

TOOL_OUTCOME_KEY: Final = "mcp.app.tool.outcome"
REDACTED_KEYS: Final = "mcp.app.redacted_keys"

KEYS: dict[str, Kind] = {key: SPAN_KEYS[key] for key in (REDACTED_KEYS, TOOL_OUTCOME_KEY)}


def _aliases() -> Aliases:
    return {
        TOOL_OUTCOME: (pl.col(TOOL_OUTCOME_KEY),),
        REDACTION_DECLARED: (flag(pl.col(REDACTED_KEYS).is_not_null()),),
    }


READER = Reader("valuechain", _aliases)
