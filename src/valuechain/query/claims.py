"""The producer's own verdict set beside the derived chain (``verify``, docs/spec/mcpjam-sdk.md §5).

MCPJam SDK results carry no chain, only the SDK's claim: `passed`, which the SDK computes with
`finalizePassedForEval` (6d550c0 sdk/src/eval-tool-execution.ts:213; the same in 1.14.0): a
failing predicate fails it; then, unless `failOnToolError` is `false` (the default is strict),
an iteration error or a tool failure in the trace fails it; else the test function's own answer
stands. In 6.x `passed` is derived from the gating score rows alone (6d550c0
sdk/src/EvalTest.ts:694, `scoresPassed` sdk/src/scorers/run.ts:151); the reader keeps those rows
too (`mcp.app.claim.scores`, each marked whether it fails the SDK's gate) and names the failing
ones. The reader keeps that claim (`mcp.app.trial.result`) and valuechain derives the chain
from the evidence, so the two can differ. Per trial this module says whether they agree — both
fail, or neither does — and, in plain words drawn from the evidence, why they differ (or, when
both fail, where each side puts the failure). The rules are tables, first match wins.

The derived reading of a chain: `failed` when a link failed; `passed` when every link passed
or was not applicable; else `notMeasured` (nothing failed, something was not measured — a
provider error withdraws every link, CONTRACT §2.9).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

import duckdb
import orjson
import polars as pl

from valuechain.contract.labels import STAGE_LABELS
from valuechain.contract.vocab import Stage
from valuechain.query.statements import query_frame

Facts = dict[str, Any]

OUTCOME_WORDS: Final = {
    "tool_error": "returned an error result (isError)",
    "rpc_error": "failed with a protocol error",
    "transport_error": "lost its transport",
}


@dataclass(frozen=True, slots=True)
class Rule:
    """When ``applies`` to a trial's facts, ``say`` words the reason."""

    applies: Callable[[Facts], bool]
    say: Callable[[Facts], str]


# ------------------------------------------------------------------------------ the facts
def _stage(facts: Facts) -> str:
    stage = facts["first_failed_stage"]
    return f"{STAGE_LABELS[Stage(stage)]} ({_reason_at(facts, stage)})"


def _reason_at(facts: Facts, stage: str) -> str:
    return next((str(s["reason"]) for s in facts["chain"] if s["stage"] == stage), "?")


def _names(calls_json: str | None) -> list[str]:
    try:
        calls = orjson.loads(calls_json or "[]")
    except orjson.JSONDecodeError:
        return []
    return [str(c.get("toolName", "?")) for c in calls if isinstance(c, dict)]


def _extras_tolerated(facts: Facts) -> list[str]:
    return [
        name
        for turn in facts["matcher_turns"]
        if turn["passed"] is True
        for name in _names(turn["unexpected"])
    ]


def _failing_turn(facts: Facts) -> dict[str, Any] | None:
    return next((t for t in facts["matcher_turns"] if t["passed"] is False), None)


def _turn_words(turn: dict[str, Any]) -> str:
    parts = []
    if missing := _names(turn["missing"]):
        parts.append("misses " + ", ".join(missing))
    if unexpected := _names(turn["unexpected"]):
        parts.append("also calls " + ", ".join(unexpected))
    if mismatched := _names(turn["mismatches"]):
        parts.append("calls " + ", ".join(mismatched) + " with other arguments")
    return f"turn {turn['turn']} " + ("; ".join(parts) or "does not match")


def _tools(facts: Facts) -> str:
    return "; ".join(
        f"{f['tool']} {OUTCOME_WORDS.get(f['outcome'], f['outcome'])}"
        for f in facts["tool_failures"]
    )


def _undeciding(facts: Facts) -> list[dict[str, Any]]:
    """Failed predicate rows the contract lets decide no link: advisory or error rows."""
    return [
        p
        for p in facts["failed_predicates"]
        if p["role"] == "advisory" or p["status"] in ("error", "skipped")
    ]


def _predicate_words(rows: list[dict[str, Any]]) -> str:
    return "; ".join(f"{p['type']}: {p['reason'] or 'no reason given'}" for p in rows)


def _failing_scores(facts: Facts) -> list[dict[str, Any]]:
    """The SDK's score rows that fail its gate (6.x; none in 1.14.0)."""
    return [r for r in facts["scores"] or () if r["gate_failed"]]


def _score_words(rows: list[dict[str, Any]]) -> str:
    words = []
    for r in rows:
        reason = f" ({r['reason']})" if r["reason"] else ""
        if r["role"] is None:
            words.append(f"{r['scorer_id']} joins no definition of the evaluation config")
        elif r["status"] == "scored":
            words.append(
                f"{r['scorer_id']} scored {_num(r['value'])} < {_num(r['pass_threshold'])}{reason}"
            )
        else:
            words.append(f"{r['scorer_id']} {r['status']}{reason}")
    return "; ".join(words)


def _num(value: float | None) -> str:
    return "?" if value is None else f"{value:g}"


def _model_error(facts: Facts) -> str:
    message = facts["trial_error"] or next(iter(facts["model_errors"]), None)
    if not message:
        return ""
    return f" ({message[:60]}…)" if len(message) > 60 else f" ({message})"


def _turn_summaries(facts: Facts) -> str:
    # the reader's own matcher writes one row (turn 0); more rows are the SDK's `trace.prompts`
    if len(facts["matcher_turns"]) > 1:
        return " — the SDK's own turn summary, taken as sent (CONTRACT §2.2)"
    return ""


# ------------------------------------------------------------------------------ the rules
SDK_FAILED_CHAIN_DID_NOT: Final[tuple[Rule, ...]] = (
    Rule(
        lambda f: f["step_error_source"] == "model" or bool(f["model_errors"]),
        lambda f: (
            f"provider error: the model call failed{_model_error(f)}; the SDK fails the "
            "iteration, the chain measures no link (notMeasured: providerError)"
        ),
    ),
    Rule(
        lambda f: bool(_failing_scores(f)),
        lambda f: (
            f"gating score failed: {_score_words(_failing_scores(f))}; the SDK's passed is its "
            "gating scores, the chain found no failed link"
        ),
    ),
    Rule(
        lambda f: bool(_undeciding(f)),
        lambda f: (
            f"predicate failed: {_predicate_words(_undeciding(f))}; the SDK fails on any "
            "failing predicate, the contract lets an advisory or errored row decide no link"
        ),
    ),
    Rule(
        lambda f: bool(_extras_tolerated(f)) and f["extra_tool_calls"] != "bounded",
        lambda f: (
            "matcher disagreement: the SDK's test rejected the extra call(s) "
            f"{', '.join(_extras_tolerated(f))}; the matcher tolerates extras (maxExtraToolCalls "
            "unbounded), so Selection passed"
        ),
    ),
    Rule(
        lambda f: bool(f["tool_failures"]),
        lambda f: (
            f"tool error under failOnToolError (the SDK's default): {_tools(f)}; the chain "
            "files no failure for it"
        ),
    ),
    Rule(
        lambda f: bool(f["trial_error"]),
        lambda f: f"iteration error: {f['trial_error']}; the chain files no failure for it",
    ),
    Rule(
        lambda f: True,
        lambda f: (
            "the SDK's test failed on something its results do not show (its own test "
            "function); the chain found no failed link"
        ),
    ),
)

CHAIN_FAILED_SDK_DID_NOT: Final[tuple[Rule, ...]] = (
    Rule(
        lambda f: f["first_failed_stage"] in ("selection", "call") and bool(_failing_turn(f)),
        lambda f: (
            f"matcher disagreement: {_turn_words(_failing_turn(f) or {})}"
            f"{_turn_summaries(f)}; the chain fails {_stage(f)}, the SDK's result passed"
        ),
    ),
    Rule(
        lambda f: bool(f["tool_failures"]) and f["first_failed_stage"] in ("call", "response"),
        lambda f: (
            f"failOnToolError was off: the SDK passed although {_tools(f)}; the contract "
            f"files it at {_stage(f)}"
        ),
    ),
    Rule(
        lambda f: bool(f["is_negative"]) and f["first_failed_stage"] in ("selection", "call"),
        lambda f: (
            f"negative test: the model called a tool; the chain fails {_stage(f)}, the "
            "SDK's result passed"
        ),
    ),
    Rule(
        lambda f: True,
        lambda f: f"the chain fails {_stage(f)} where the SDK's result passed",
    ),
)

BOTH_FAILED: Final[tuple[Rule, ...]] = (
    Rule(
        lambda f: bool(f["tool_failures"]) and f["first_failed_stage"] in ("call", "response"),
        lambda f: (
            f"tool error under failOnToolError (the SDK's default): {_tools(f)}; the "
            f"contract files it at {_stage(f)}"
        ),
    ),
    Rule(
        lambda f: bool(_failing_turn(f)) and f["first_failed_stage"] in ("selection", "call"),
        lambda f: f"matcher: {_turn_words(_failing_turn(f) or {})}; the chain fails {_stage(f)}",
    ),
    Rule(
        lambda f: bool(f["failed_predicates"]),
        lambda f: (
            f"predicate failed: {_predicate_words(f['failed_predicates'])}; the chain "
            f"fails {_stage(f)}"
        ),
    ),
    Rule(lambda f: True, lambda f: f"both fail; the chain at {_stage(f)}"),
)


def derived_result(facts: Facts) -> str:
    """`failed`, `passed` or `notMeasured`, read off the derived chain (module docstring)."""
    if facts["first_failed_stage"] is not None:
        return "failed"
    if all(s["state"] in ("passed", "notApplicable") for s in facts["chain"]):
        return "passed"
    return "notMeasured"


def why(facts: Facts) -> str | None:
    """Why the SDK's claim and the chain differ, or where each puts a shared failure; None
    when neither fails."""
    sdk_failed = facts["producer_result"] == "failed"
    chain_failed = facts["first_failed_stage"] is not None
    if sdk_failed and chain_failed:
        rules = BOTH_FAILED
    elif sdk_failed:
        rules = SDK_FAILED_CHAIN_DID_NOT
    elif chain_failed:
        rules = CHAIN_FAILED_SDK_DID_NOT
    else:
        return None
    said = next(rule.say(facts) for rule in rules if rule.applies(facts))
    failing = _failing_scores(facts)
    if sdk_failed and failing and not said.startswith("gating score failed"):
        # the SDK's own reason beside the evidence's: the rows that failed its gate
        said += "; the SDK's failing gating scores: " + ", ".join(r["scorer_id"] for r in failing)
    return said


# ------------------------------------------------------------------------------ the read
@dataclass(frozen=True, slots=True)
class ProducerClaims:
    """One row per SDK trial: the SDK's verdict, the derived reading, agreement, and why."""

    rows: pl.DataFrame

    @property
    def trials(self) -> int:
        return self.rows.height

    @property
    def agree(self) -> int:
        return int(self.rows["agrees"].sum()) if self.rows.height else 0

    @property
    def disagree(self) -> int:
        return self.trials - self.agree

    def by_run(self) -> pl.DataFrame:
        """Per run: trials, agreeing, disagreeing."""
        return (
            self.rows.group_by("run_id", maintain_order=True)
            .agg(
                pl.len().alias("trials"),
                pl.col("agrees").sum().alias("agree"),
                (~pl.col("agrees")).sum().alias("disagree"),
            )
            .sort("run_id")
        )


CLAIM_COLUMNS: Final = (
    "run_id",
    "trial_id",
    "case_title",
    "provider",
    "model",
    "repetition",
    "producer_result",
    "derived_result",
    "first_failed_stage",
    "first_failed_reason",
    "agrees",
    "why",
    "scores",
)
# One SDK score row as `--claims` gives it (`mcp.app.claim.scores`, docs/spec/mcpjam-sdk.md §4):
# its column, the row's JSON key, and the JSON type it must have (else it reads as absent)
_TEXT, _FLAG, _NUMBER = (str,), (bool,), (int, float)
SCORE_FIELDS: Final[dict[str, tuple[str, pl.DataType, tuple[type, ...]]]] = {
    "scorer_id": ("scorerId", pl.String(), _TEXT),
    "label": ("label", pl.String(), _TEXT),
    "role": ("role", pl.String(), _TEXT),
    "status": ("status", pl.String(), _TEXT),
    "value": ("value", pl.Float64(), _NUMBER),
    "pass_threshold": ("passThreshold", pl.Float64(), _NUMBER),
    "passed": ("passed", pl.Boolean(), _FLAG),
    "gate_failed": ("gateFailed", pl.Boolean(), _FLAG),
    "reason": ("reason", pl.String(), _TEXT),
    "prompt_index": ("promptIndex", pl.Int64(), (int,)),
}
SCORE_ROW: Final = pl.Struct({name: dtype for name, (_, dtype, _) in SCORE_FIELDS.items()})


def score_rows(text: str | None) -> list[dict[str, Any]] | None:
    """The trial's score rows from the root's JSON text; None when the SDK sent none."""
    try:
        rows = orjson.loads(text) if text is not None else None
    except orjson.JSONDecodeError:
        return None
    if not isinstance(rows, list):
        return None
    return [
        {name: _typed(r.get(key), types) for name, (key, _, types) in SCORE_FIELDS.items()}
        for r in rows
        if isinstance(r, dict)
    ]


def _typed(value: Any, types: tuple[type, ...]) -> Any:
    if not isinstance(value, types) or (isinstance(value, bool) and bool not in types):
        return None
    number: Any = value  # an int or a float when float is among the types
    return float(number) if float in types else value


def producer_claims(
    con: duckdb.DuckDBPyConnection, run_id: str | None, analyzer: int
) -> ProducerClaims:
    """Every SDK trial of ``run_id`` (None: every run) with its claim and derived reading."""
    facts = query_frame(
        con, "query/producer_claims.sql", {"run": run_id, "analyzer": analyzer}
    ).to_dicts()
    rows = []
    for f in facts:
        f["scores"] = score_rows(f["score_claims"])
        stage = f["first_failed_stage"]
        derived = derived_result(f)
        rows.append(
            {
                **{k: f[k] for k in CLAIM_COLUMNS[:7]},
                "derived_result": derived,
                "first_failed_stage": stage,
                "first_failed_reason": _reason_at(f, stage) if stage else None,
                "agrees": (f["producer_result"] == "failed") == (derived == "failed"),
                "why": why(f),
                "scores": f["scores"],
            }
        )
    schema: dict[str, pl.DataType] = {c: pl.String() for c in CLAIM_COLUMNS} | {
        "repetition": pl.Int32(),
        "agrees": pl.Boolean(),
        "scores": pl.List(SCORE_ROW),
    }
    return ProducerClaims(pl.DataFrame(rows, schema=schema))
