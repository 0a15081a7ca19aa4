"""The compact chain notation of CONTRACT §0.2 / §8, parsed into wire rows, plus §8 fixtures.

Grammar (one chain = six comma-separated rows, `N×` repeats a row):

    row      := [N "×"] STATE [":" reason] [evidence]
    STATE    := P | F | NM | NR | NA            (NR ⇒ earlierStageFailed, NA ⇒ notAuthored)
    evidence := "{" [key ":"] "[" items "]" {"," key ":" "[" items "]"} "}"
    key      := spanIds | promptIndexes | predicateReasons    ({[s1]} is spanIds, as in §8.1)
    items    := item {"," item};  item := bare-word | "quoted string" | integer

`implied…` abbreviates `impliedByLaterEvidence`, as the spec writes it.
"""

from __future__ import annotations

import json
import re
from typing import Any

from valuechain.contract.chain import StageDerivation
from valuechain.contract.derivation import (
    PredicateRef,
    PredicateResult,
    PromptSummary,
    StageAuthoredCase,
    StageSpan,
)
from valuechain.contract.vocab_rules import STAGES

STATES = {
    "P": "passed",
    "F": "failed",
    "NM": "notMeasured",
    "NR": "notReached",
    "NA": "notApplicable",
}
DEFAULT_REASONS = {"NR": "earlierStageFailed", "NA": "notAuthored"}
ROW = re.compile(r"\s*(?:(\d+)\s*×\s*)?(P|F|NM|NR|NA)(?::([A-Za-z…]+))?\s*(\{.*\})?\s*$", re.S)


def _split_top(text: str, sep: str = ",") -> list[str]:
    """Split on `sep` outside brackets, braces and double quotes."""
    parts: list[str] = []
    depth, quoted, start, i = 0, False, 0, 0
    while i < len(text):
        ch = text[i]
        if quoted:
            if ch == "\\":
                i += 1
            elif ch == '"':
                quoted = False
        elif ch == '"':
            quoted = True
        elif ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
        elif ch == sep and depth == 0:
            parts.append(text[start:i])
            start = i + 1
        i += 1
    parts.append(text[start:])
    return [p.strip() for p in parts if p.strip()]


def _item(text: str, key: str) -> Any:
    if text.startswith('"'):
        return json.loads(text)
    if key == "promptIndexes":
        return int(text)
    return text


def _evidence(text: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for part in _split_top(text[1:-1]):
        key, _, value = part.partition(":") if not part.startswith("[") else ("", "", part)
        key = key.strip() or "spanIds"
        value = value.strip()
        assert value.startswith("[") and value.endswith("]"), part
        out[key] = [_item(item, key) for item in _split_top(value[1:-1])]
    return out


def parse_chain(text: str) -> list[dict[str, Any]]:
    """Six wire rows (`{stage, state, reason, evidence?}`) from the compact notation."""
    rows: list[dict[str, Any]] = []
    for token in _split_top(text):
        match = ROW.match(token)
        assert match is not None, f"bad chain token {token!r}"
        count, state, reason, evidence = match.groups()
        reason = reason or DEFAULT_REASONS.get(state)
        assert reason is not None, f"{token!r}: a reason is required"
        reason = reason.replace("implied…", "impliedByLaterEvidence")
        for _ in range(int(count or 1)):
            row: dict[str, Any] = {"state": STATES[state], "reason": reason}
            if evidence:
                row["evidence"] = _evidence(evidence)
            rows.append(row)
    assert len(rows) == 6, f"{text!r} has {len(rows)} rows, expected 6"
    return [{"stage": stage.value, **row} for stage, row in zip(STAGES, rows, strict=True)]


def render_chain(derivation: StageDerivation) -> str:
    """A derivation in the compact notation (for failure messages)."""
    short = {v: k for k, v in STATES.items()}
    out = []
    for row in derivation.to_wire()["stageResults"]:  # type: ignore[union-attr]
        text = f"{short[row['state']]}:{row.get('reason')}"
        if "evidence" in row:
            text += json.dumps(row["evidence"], ensure_ascii=True).replace('"', "")
        out.append(text)
    return ", ".join(out)


# --- §8 fixtures ------------------------------------------------------------------------

CASE = StageAuthoredCase("model_driven", expects_tool_call=True, assertion_count=1)
SPAN = StageSpan(id="s1", category="tool", status="ok", tool_name="list_files", prompt_index=0)
TURN = PromptSummary(0, missing=(), unexpected=(), argument_mismatches=(), passed=True)
OK = PredicateResult(passed=True, reason="ok")


def pred(kind: str, passed: bool) -> PredicateResult:
    """`pred(k, b)` of CONTRACT §8."""
    return PredicateResult(
        passed=passed,
        reason=f"{kind} says so",
        predicate=PredicateRef(kind, tool_name="get_project"),
    )
