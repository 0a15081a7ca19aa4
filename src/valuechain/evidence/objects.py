"""The shared, frozen parts of derivation inputs, built once per distinct value.

Grader rows of one case repeat across its trials and repetitions (same predicate, same
reason, same verdict); `interned` builds each distinct object once from polars' distinct
rows and hands the same object to every trial that carries it (TRACE-FORMAT §3.7 rows).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

import orjson
import polars as pl

from valuechain.contract.derivation import (
    JudgeEvidence,
    MetadataAttribution,
    PolicyInfo,
    PredicateRef,
    PredicateResult,
    PromptSummary,
    SetupSignal,
    StepError,
    ToolSignals,
)

T = TypeVar("T")


def interned(frame: pl.DataFrame, columns: Sequence[str], make: Callable[..., T]) -> list[T]:
    """`make(*values)` per row of `frame`, built once per distinct value tuple."""
    if frame.is_empty():
        return []
    keys = frame.select(columns)
    distinct = keys.unique(maintain_order=True).with_row_index("_oid")
    objects = [make(*row) for row in distinct.drop("_oid").iter_rows()]
    ids = keys.join(
        distinct, on=list(columns), how="left", nulls_equal=True, maintain_order="left"
    )["_oid"]
    return [objects[i] for i in ids.to_list()]


_JSON_CACHE: dict[str, tuple[object, ...] | None] = {}


def json_list(text: str | None) -> tuple[object, ...] | None:
    """A JSON array as a tuple; None when absent or not an array (cached: values repeat)."""
    if text is None:
        return None
    try:
        return _JSON_CACHE[text]
    except KeyError:
        pass
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError:
        value = None
    out = tuple(value) if isinstance(value, list) else None
    if len(_JSON_CACHE) < 100_000:
        _JSON_CACHE[text] = out
    return out


def string_list(text: str | None) -> tuple[str, ...] | None:
    """A JSON array of strings (others dropped); None when absent."""
    if text is None:
        return None
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError:
        return None
    return tuple(v for v in value if isinstance(v, str)) if isinstance(value, list) else None


def _listed(text: str | None, count: int | None) -> tuple[object, ...] | None:
    """The list as sent; if only its count survived, `count` placeholders (emptiness is
    all the derivation reads, TRACE-FORMAT §3.7 `prompts`)."""
    items = json_list(text)
    if items is None and count is not None:
        return tuple({} for _ in range(max(count, 0)))
    return items


def make_prompt(
    turn_index: int | None,
    expected: str | None,
    missing: str | None,
    missing_count: int | None,
    unexpected: str | None,
    unexpected_count: int | None,
    mismatches: str | None,
    mismatch_count: int | None,
    passed: bool | None,
) -> PromptSummary:
    """A matcher row (scope turn) as a turn summary (§3.7 `evidence.prompts`)."""
    return PromptSummary(
        prompt_index=turn_index,
        expected_tool_calls=json_list(expected),
        missing=_listed(missing, missing_count),
        unexpected=_listed(unexpected, unexpected_count),
        argument_mismatches=_listed(mismatches, mismatch_count),
        passed=passed,
    )


PROMPT_COLUMNS = (
    "mcp.app.grader.turn_index",
    "mcp.app.match.result.expected",
    "mcp.app.match.result.missing",
    "mcp.app.match.result.missing_count",
    "mcp.app.match.result.unexpected",
    "mcp.app.match.result.unexpected_count",
    "mcp.app.match.result.argument_mismatches",
    "mcp.app.match.result.argument_mismatch_count",
    "mcp.app.match.result.passed",
)
PREDICATE_COLUMNS = (
    "mcp.app.grader.passed",
    "mcp.app.grader.reason",
    "mcp.app.grader.status",
    "mcp.app.predicate.type",
    "mcp.app.predicate.tool_name",
    "mcp.app.grader.role",
)
JUDGE_COLUMNS = (
    "judge_status",
    "mcp.app.judge.pending_kind",
    "mcp.app.judge.verdict",
    "mcp.app.judge.attributed",
    "mcp.app.grader.reason",
)


def make_predicate(
    passed: bool | None,
    reason: str | None,
    status: str | None,
    kind: str | None,
    tool: str | None,
    role: str | None,
) -> PredicateResult:
    """A predicate grader row (§3.7 `evidence.predicateResults`)."""
    return PredicateResult(passed, reason, status, PredicateRef(kind, tool, role))


def make_judge(
    status: str, pending: str | None, verdict: str | None, _: bool | None, reason: str | None
) -> JudgeEvidence:
    """The goal-completion judge row (§3.7 `evidence.judgeEvidence`)."""
    return JudgeEvidence(status, pending, verdict, None if reason is None else (reason,))


def make_attribution(
    status: str, pending: str | None, _: str | None, attributed: bool | None, reason: str | None
) -> MetadataAttribution:
    """The metadata-attribution judge row (§3.7 `evidence.metadataAttribution`)."""
    return MetadataAttribution(status, pending, attributed, None if reason is None else (reason,))


def make_step_error(source: str | None, code: str | None, http: int | None) -> StepError | None:
    if source is None and code is None and http is None:
        return None
    return StepError(source, code, http)


def make_tool_signals(before: int | None, exposed: int | None) -> ToolSignals | None:
    if before is None and exposed is None:
        return None
    return ToolSignals(before, exposed)


def make_policy(blocked: bool | None, reason: str | None) -> PolicyInfo | None:
    return None if blocked is None else PolicyInfo(blocked, reason)


def make_signal(
    outcome: str | None,
    attribution: str | None,
    egress: bool | None,
    span_ids: str | None,
    duration: float | None,
) -> SetupSignal | None:
    """`mcp.app.setup.<phase>.*` as sent; absent outcome ⇒ no signal (§3.7.1 (1))."""
    if outcome is None:
        return None
    return SetupSignal(outcome, attribution, egress, string_list(span_ids), duration)


def fold_signal(
    failed: Sequence[bool], span_ids: tuple[str, ...], *, attribution: str
) -> SetupSignal:
    """CONTRACT Q20 fold over targets: `failed` if any target failed. Foreign traces carry no
    attribution or egress per target, so the fold's agreed attribution is `unknown` (§3.8)."""
    return SetupSignal("failed" if any(failed) else "ok", attribution, None, span_ids)
