"""The SDK's score rows (`metadata.scores[]`, 6.x), kept as its claim beside `passed`.

Inspector 6d550c0 (SDK 6.x): a result's `passed` is "derived exclusively from the gating
scores" (sdk/src/EvalTest.ts:694–700, `scoresPassed`, sdk/src/scorers/run.ts:151–193). The rows
(`ScoreResult`, sdk/src/contract/types.ts:173–200) do not repeat their role or error policies:
those live on the definitions of `metadata.evaluationConfig` (types.ts:91–163; both ride in
`metadata`, eval-result-mapping.ts:728–738), joined on `definitionHash` (run.ts:144–161), the
SHA-256 of the canonical JSON of the definition's hashed fields (sdk/src/contract/derive.ts:67–88,
canonical.ts). This module makes that join and reads each row as `scoresPassed` does, so the
claim says which row made the SDK fail. The rows are the producer's claim only: the derivation
never reads them (`mcp.app.claim.scores`, docs/spec/mcpjam-sdk.md §4).
"""

from __future__ import annotations

import functools
import hashlib
from typing import Any

import orjson

from valuechain.ingest.mcpjam.otlp import Attr, json_attr

CLAIM_KEY = "mcp.app.claim.scores"

# derive.ts:67–83 `definitionHashPayload`: the fields a definition hashes over (not `label`)
_HASHED = (
    "scorerId",
    "idSource",
    "scorerVersion",
    "implementationHash",
    "deterministic",
    "passThreshold",
    "role",
    "onError",
    "onSkipped",
    "model",
    "scope",
)
# a claim is for reading beside a chain, not an archive: the SDK's own cap is 2000 (types.ts:189)
REASON_CHARS = 300


def score_reading(result: dict[str, Any]) -> tuple[Attr | None, bool]:
    """The trial root's `mcp.app.claim.scores` (`score_claims` as JSON text; None without
    score rows) and whether the scores say the evaluator errored (`evaluator_error`), both
    remembered by the rows and definitions they are read from: a case's repetitions mostly
    repeat them (the deterministic scorers' verdicts, one config), and reading them again
    would cost as much as the rest of a trial's translation. Bounded; an `Attr` is
    immutable."""
    rows, definitions = _parts(result)
    invalid = _integrity_invalid(result)
    if rows is None and not definitions:
        return None, invalid
    try:
        key = orjson.dumps([rows, definitions])
    except TypeError:  # not plain JSON (a parsed payload never holds one): read each time
        return _reading(rows, _join(definitions), invalid)
    attr, errored = _remembered_reading(key)
    return attr, errored or invalid


@functools.lru_cache(maxsize=1024)
def _remembered_reading(key: bytes) -> tuple[Attr | None, bool]:
    rows, definitions = orjson.loads(key)
    return _reading(rows, _by_hash(orjson.dumps(definitions)), False)


def _reading(
    rows: list[Any] | None, definitions: dict[str | None, dict[str, Any]], invalid: bool
) -> tuple[Attr | None, bool]:
    claims = None if rows is None else json_attr(CLAIM_KEY, _claims(rows, definitions))
    return claims, invalid or _errored(rows or [], definitions)


def score_claims(result: dict[str, Any]) -> list[dict[str, Any]] | None:
    """One compact row per `metadata.scores[]` row, in the SDK's order; None when the result
    carries no score rows (1.14.0; the streaming reporter's results)."""
    rows, definitions = _parts(result)
    return None if rows is None else _claims(rows, _join(definitions))


def evaluator_error(result: dict[str, Any]) -> bool:
    """CONTRACT §6.2 `evalV2IterationHasEvaluatorError(metadata)` (`score_reading` reads it
    with the claim, remembered)."""
    rows, definitions = _parts(result)
    return _integrity_invalid(result) or _errored(rows or [], _join(definitions))


def _integrity_invalid(result: dict[str, Any]) -> bool:
    metadata = result.get("metadata")
    return isinstance(metadata, dict) and metadata.get("scoreIntegrity") == (
        "score_integrity_invalid"
    )


def _errored(rows: list[Any], definitions: dict[str | None, dict[str, Any]]) -> bool:
    """CONTRACT §6.2: over the gating definitions (a role is gating unless it says advisory),
    a joined row errored under `onError: fail` or was skipped under `onSkipped: fail` (the
    policies' resolved default is `fail`, derive.ts:43–53), or the definition has no row at
    all and its `onSkipped` is not `ignore`. No definitions: false; rows of no definition
    are ignored. (Or the score integrity is invalid: `_integrity_invalid`.)"""
    joined: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        if isinstance(row, dict) and isinstance(row.get("definitionHash"), str):
            joined.setdefault(row["definitionHash"], []).append(row)
    for named, definition in definitions.items():
        if definition.get("role") == "advisory":
            continue
        found = joined.get(named, []) if named is not None else []
        if not found and definition.get("onSkipped", "fail") != "ignore":
            return True
        for row in found:
            if row.get("status") == "error" and definition.get("onError", "fail") == "fail":
                return True
            if row.get("status") == "skipped" and definition.get("onSkipped", "fail") == "fail":
                return True
    return False


def _parts(result: dict[str, Any]) -> tuple[list[Any] | None, list[Any]]:
    """The result's score rows (None: none sent) and its config's definitions."""
    metadata = result.get("metadata")
    if not isinstance(metadata, dict):
        return None, []
    rows = metadata.get("scores")
    config = metadata.get("evaluationConfig")
    found = config.get("definitions") if isinstance(config, dict) else None
    definitions = found if isinstance(found, list) else []
    return (rows if isinstance(rows, list) and rows else None), definitions


def _claims(rows: list[Any], definitions: dict[str | None, dict[str, Any]]) -> list[dict[str, Any]]:
    return [_claim(row, definitions) for row in rows if isinstance(row, dict)]


@functools.lru_cache(maxsize=256)
def _by_hash(text: bytes) -> dict[str | None, dict[str, Any]]:
    """The definitions by their hash, remembered by their text: a run's results repeat a
    case's config, and hashing it again would cost as much as the rest of a trial's
    translation. Bounded; callers only read the mapping."""
    return _join(orjson.loads(text))


def _join(definitions: list[Any]) -> dict[str | None, dict[str, Any]]:
    return {definition_hash(d): d for d in definitions if isinstance(d, dict)}


def _claim(row: dict[str, Any], definitions: dict[str | None, dict[str, Any]]) -> dict[str, Any]:
    named = row.get("definitionHash")
    definition = definitions.get(named) if isinstance(named, str) else None
    role = definition.get("role") if definition is not None else None
    claim: dict[str, Any] = {
        "scorerId": row.get("scorerId"),
        "role": role if isinstance(role, str) else None,
        "status": row.get("status"),
        "gateFailed": _gate_failed(row, definition),
    }
    label = definition.get("label") if definition is not None else None
    if isinstance(label, str):
        claim["label"] = label
    for key in ("value", "passThreshold"):
        if _is_number(row.get(key)):
            claim[key] = row[key]
    if isinstance(row.get("passed"), bool):
        claim["passed"] = row["passed"]
    # `error` is present iff status is error (types.ts:197); else the rationale (types.ts:189)
    reason = row.get("error") if isinstance(row.get("error"), str) else row.get("rationale")
    if isinstance(reason, str):
        claim["reason"] = (
            reason if len(reason) <= REASON_CHARS else reason[: REASON_CHARS - 1] + "…"
        )
    scope = row.get("scope")
    if isinstance(scope, dict) and isinstance(scope.get("promptIndex"), int):
        claim["promptIndex"] = scope["promptIndex"]
    return claim


def _gate_failed(row: dict[str, Any], definition: dict[str, Any] | None) -> bool:
    """Whether this row alone fails the SDK's gate, as `scoresPassed` reads it (run.ts:159–181):
    an unjoinable row fails; an advisory one never does; a gating row fails when scored and not
    passed, errored / skipped under a `fail` policy (resolved defaults, derive.ts:43–53), or of
    a status the SDK does not know. (`scoresPassed` also fails a gating definition with no row
    at all, run.ts:184–191: there is no row to keep for that.)"""
    if definition is None:
        return True
    if definition.get("role") != "gating":
        return False
    status = row.get("status")
    if status == "scored":
        return row.get("passed") is not True
    if status == "error":
        return bool(definition.get("onError", "fail") == "fail")
    if status == "skipped":
        return bool(definition.get("onSkipped", "fail") == "fail")
    return status != "not_applicable"


def definition_hash(definition: dict[str, Any]) -> str | None:
    """`definitionHash` (derive.ts:86–88) of one resolved definition: SHA-256 of the RFC
    8785-style canonical JSON (canonical.ts: sorted keys, absent fields dropped, shortest
    numbers) of its hashed fields; None when it is not plain JSON."""
    payload = {k: _js_number(definition[k]) for k in _HASHED if k in definition}
    try:
        text = orjson.dumps(payload, option=orjson.OPT_SORT_KEYS)
    except TypeError:
        return None
    return hashlib.sha256(text).hexdigest()


def _js_number(value: Any) -> Any:
    # JavaScript writes an integral number without a fraction (1, not 1.0)
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {k: _js_number(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_js_number(v) for v in value]
    return value


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)
