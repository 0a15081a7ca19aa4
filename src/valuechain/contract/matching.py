"""The matcher's types: match options, their layers, tool calls and a turn's match (CONTRACT §2.4).

What §2.4's tool-call matcher (`derive/matching.py`) resolves and returns, kept apart from
the derivation input because the matcher builds these per turn and hands derivation only
the turn's summary (`PromptSummary`). Frozen dataclasses with the wire conventions of
`derivation.py`; the two option shapes write their own keys (`to_wire()`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Final

from valuechain.contract.derivation import Number, WireDict, WireShape


class Unset(Enum):
    """Marks an option a layer leaves undefined (it inherits), distinct from an explicit null."""

    UNSET = "unset"


UNSET: Final = Unset.UNSET


@dataclass(frozen=True, slots=True)
class MatchOptions:
    """Resolved `EvalMatchOptions` (§2.4); `max_extra_tool_calls=None` is null (unbounded)."""

    argument_matching: str = "partial"  # partial | exact | ignore
    tool_call_order: str = "ignore"  # ignore | strict | superset
    max_extra_tool_calls: Number | None = None

    def to_wire(self) -> WireDict:
        """All three keys; `maxExtraToolCalls` is written as null when unbounded."""
        return {
            "toolCallOrder": self.tool_call_order,
            "maxExtraToolCalls": self.max_extra_tool_calls,
            "argumentMatching": self.argument_matching,
        }


@dataclass(frozen=True, slots=True)
class MatchOptionsLayer:
    """One suite / case / run-override layer of match options; undefined fields inherit."""

    argument_matching: str | None = None
    tool_call_order: str | None = None
    max_extra_tool_calls: Number | Unset | None = UNSET  # None = explicit null
    allow_extra_tool_calls: bool | None = None  # legacy: True ⇒ null, False ⇒ 0

    def to_wire(self) -> WireDict:
        """Defined keys only; an explicit null `maxExtraToolCalls` is kept."""
        out: WireDict = {}
        if self.tool_call_order is not None:
            out["toolCallOrder"] = self.tool_call_order
        if not isinstance(self.max_extra_tool_calls, Unset):
            out["maxExtraToolCalls"] = self.max_extra_tool_calls
        if self.allow_extra_tool_calls is not None:
            out["allowExtraToolCalls"] = self.allow_extra_tool_calls
        if self.argument_matching is not None:
            out["argumentMatching"] = self.argument_matching
        return out


@dataclass(frozen=True, slots=True)
class ToolCall(WireShape):
    """An expected or actual tool call; absent or null arguments compare as `{}` (§2.4)."""

    tool_name: str
    arguments: Mapping[str, object] | None = None


@dataclass(frozen=True, slots=True)
class ArgumentMismatch(WireShape):
    """An expected call paired by name only in pass 2: called with the wrong arguments."""

    tool_name: str
    expected_args: Mapping[str, object]
    actual_args: Mapping[str, object]


@dataclass(frozen=True, slots=True)
class ToolCallMatch(WireShape):
    """The matcher's result for one turn; `extra` becomes the turn's `unexpected`."""

    missing: tuple[ToolCall, ...]
    extra: tuple[ToolCall, ...]
    argument_mismatches: tuple[ArgumentMismatch, ...]
    passed: bool
