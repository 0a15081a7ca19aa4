"""Which stage may read a predicate row (CONTRACT §2.5, §3.2, §3.3).

A row decides anything only if it is gating AND scored. Gating-and-scored rows are routed
by `predicate.type`: routed selection kinds to selection, then the discovery / call /
response kinds of the kind→stage table, and everything else — unknown kinds and rows
without a discriminator included — to userValue. Analyzer 12 routes by the newest 36-kind
table; valuechain's selectable analyzer 11 by the 27-kind column (§7.2 (b)).
"""

from __future__ import annotations

from collections.abc import Iterable

from valuechain.contract.derivation import PredicateResult
from valuechain.contract.predicates import (
    JS_OBJECT_PROTOTYPE_MEMBERS,
    KIND_TABLE,
    POSITIVE_TOOL_CALL_KINDS,
    PREDICATE_STAGE,
    ROUTES,
    SELECTION_REASON_BY_KIND,
    is_selection_kind,
)
from valuechain.contract.vocab import Stage

_U = Stage.USER_VALUE

__all__ = [
    "JS_OBJECT_PROTOTYPE_MEMBERS",
    "KIND_TABLE",
    "POSITIVE_TOOL_CALL_KINDS",
    "PREDICATE_STAGE",
    "ROUTES",
    "SELECTION_REASON_BY_KIND",
    "is_gating_and_scored",
    "is_selection_kind",
    "route_predicates",
    "routed_stage",
]


def is_gating_and_scored(row: PredicateResult) -> bool:
    """May this row decide a stage? Advisory (exact string) and `error` rows never do."""
    predicate = row.predicate
    return row.status != "error" and (predicate is None or predicate.role != "advisory")


def routed_stage(kind: object, analyzer: int) -> Stage:
    """The stage a gating-and-scored row of `kind` is consumed by, at `analyzer`."""
    if not isinstance(kind, str):
        return _U
    return ROUTES[analyzer].get(kind, _U)


def route_predicates(
    rows: Iterable[PredicateResult], analyzer: int
) -> tuple[dict[Stage, list[PredicateResult]], int]:
    """Gating-and-scored rows grouped by consuming stage (author order kept), and their count.

    Advisory and error rows are dropped here, so they are invisible to every stage rule,
    to applicability and to the setup-abort test alike (CONTRACT §2.5).
    """
    routes = ROUTES[analyzer]
    routed: dict[Stage, list[PredicateResult]] = {}
    count = 0
    for row in rows:
        predicate = row.predicate
        if row.status == "error":
            continue
        if predicate is None:
            stage = _U
        else:
            if predicate.role == "advisory":
                continue
            kind = predicate.kind_
            stage = routes.get(kind, _U) if isinstance(kind, str) else _U
        count += 1
        bucket = routed.get(stage)
        if bucket is None:
            routed[stage] = [row]
        else:
            bucket.append(row)
    return routed, count
