"""The predicate kinds of CONTRACT §2.5 and §3.2: which link each kind grades, per analyzer.

Vocabulary as data, shared by derivation (routing rows to stages), the authored-case
inference of §2.3 (which kinds promise a tool call) and coverage (which kinds can decide a
link). Analyzer 12 reads the newest 36-kind table; the selectable analyzer 11 the 27-kind
column (§7.2 (b)).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from valuechain.contract.vocab import Stage, StageReason

_D, _S, _C, _R, _U = Stage.DISCOVERY, Stage.SELECTION, Stage.CALL, Stage.RESPONSE, Stage.USER_VALUE

# CONTRACT §3.2: kind, link at analyzer 12 (36 kinds), link at analyzer 11 (None = not in
# the 27-kind table, so it falls through to userValue like any unknown kind, §7.2 (b)).
KIND_TABLE: tuple[tuple[str, Stage, Stage | None], ...] = (
    ("toolDescriptionsPresent", _D, None),
    ("toolAnnotationsPresent", _D, None),
    ("toolNamesUnique", _D, None),
    ("noDeprecatedToolExposed", _D, None),
    ("toolInputSchemasWellFormed", _D, None),
    ("toolOutputSchemasPresent", _D, None),
    ("toolCalledWith", _S, _S),
    ("toolCalledAtLeastOnce", _S, _S),
    ("toolNeverCalled", _S, _S),
    ("onlyToolsCalled", _S, _S),
    ("firstToolWas", _S, _S),
    ("toolCallCountUnder", _S, _S),
    ("toolCalledBefore", _S, _S),
    ("noDeprecatedToolCalled", _S, _S),
    ("noDestructiveToolCalled", _S, _S),
    ("argumentsMatchToolSchema", _C, _C),
    ("noRepeatedIdenticalCall", _C, _C),
    ("toolInputMatches", _C, None),
    ("noToolErrors", _R, _R),
    ("toolLatencyUnder", _R, _R),
    ("toolResultContains", _R, _R),
    ("toolResultMatches", _R, None),
    ("toolResultMatchesSchema", _R, _R),
    ("toolResultSizeUnder", _R, _R),
    ("toolErrorNamesInput", _R, _R),
    ("fullPageHasContinuation", _R, _R),
    ("responseCloseTo", _U, None),
    ("responseContains", _U, _U),
    ("responseMatches", _U, _U),
    ("finalAssistantMessageNonEmpty", _U, _U),
    ("tokenBudgetUnder", _U, _U),
    ("turnCountUnder", _U, _U),
    ("widgetRendered", _U, _U),
    ("widgetRenderLatencyUnder", _U, _U),
    ("widgetNoConsoleErrors", _U, _U),
    ("noEndingQuestion", _U, _U),
)

PREDICATE_STAGE: Mapping[int, Mapping[str, Stage]] = MappingProxyType(
    {
        12: MappingProxyType({kind: v12 for kind, v12, _ in KIND_TABLE}),
        11: MappingProxyType({kind: v11 for kind, _, v11 in KIND_TABLE if v11 is not None}),
    }
)

# CONTRACT §2.5: the routed selection kinds and the reason a failed one is filed under.
# `toolCalledWith` is deliberately absent: a gating one is matcher-graded, so a row that
# nevertheless arrives falls through to userValue.
SELECTION_REASON_BY_KIND: Mapping[str, StageReason] = MappingProxyType(
    {
        "toolCalledAtLeastOnce": StageReason.MISSING_TOOL_CALL,
        "firstToolWas": StageReason.UNEXPECTED_TOOL_CALL,
        "toolNeverCalled": StageReason.UNEXPECTED_TOOL_CALL,
        "onlyToolsCalled": StageReason.UNEXPECTED_TOOL_CALL,
        "toolCallCountUnder": StageReason.UNEXPECTED_TOOL_CALL,
        "toolCalledBefore": StageReason.UNEXPECTED_TOOL_CALL,
        "noDeprecatedToolCalled": StageReason.UNEXPECTED_TOOL_CALL,
        "noDestructiveToolCalled": StageReason.UNEXPECTED_TOOL_CALL,
    }
)

# CONTRACT §2.5 JavaScript trap: the reference tests selection kinds with `kind in object`,
# which also answers true for inherited `Object.prototype` members. Reproduced for parity;
# ingestion should reject such kinds (as for unknown modes, §9 Q6).
JS_OBJECT_PROTOTYPE_MEMBERS: frozenset[str] = frozenset(
    {
        "constructor",
        "toString",
        "valueOf",
        "hasOwnProperty",
        "isPrototypeOf",
        "propertyIsEnumerable",
        "toLocaleString",
        "__proto__",
        "__defineGetter__",
        "__defineSetter__",
        "__lookupGetter__",
        "__lookupSetter__",
    }
)

# Kinds asserting that a call WILL happen (§2.3); `toolNeverCalled` deliberately is not one.
POSITIVE_TOOL_CALL_KINDS: frozenset[str] = frozenset({"toolCalledAtLeastOnce", "firstToolWas"})


def _routes(analyzer: int) -> Mapping[str, Stage]:
    routes: dict[str, Stage] = {
        kind: stage for kind, stage in PREDICATE_STAGE[analyzer].items() if stage is not _S
    }
    routes.update(dict.fromkeys(SELECTION_REASON_BY_KIND, _S))
    routes.update(dict.fromkeys(JS_OBJECT_PROTOTYPE_MEMBERS, _S))
    return MappingProxyType(routes)


# kind → the stage that consumes a gating-and-scored row of that kind (absent ⇒ userValue).
ROUTES: Mapping[int, Mapping[str, Stage]] = MappingProxyType({v: _routes(v) for v in (11, 12)})


def is_selection_kind(kind: object) -> bool:
    """`isSelectionPredicateKind`: a routed selection kind (JS `in` quirk included)."""
    return isinstance(kind, str) and (
        kind in SELECTION_REASON_BY_KIND or kind in JS_OBJECT_PROTOTYPE_MEMBERS
    )
