"""The producer chain a trial root persists: `mcp.app.stages.*` and its measurements (§3.5).

`scenario_chain` codes the CONTRACT §2.7–§2.11 rows the ordinary trials reach; failure
scenarios persist what analyzer 12 derives instead (`synth.failures.trial`). Both are
written by `chain_attributes`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from valuechain.synth.attributes import AttrValue

_REACH = {
    "passed": "reached",
    "failed": "reached",
    "notReached": "notReached",
    "notMeasured": "unknown",
    "notApplicable": "notApplicable",
}  # CONTRACT §4


@dataclass(slots=True)
class Row:
    """One producer chain row (CONTRACT §2.1) as it travels in `mcp.app.stages.<i>.*` (§3.5)."""

    stage: str
    state: str
    reason: str
    evidence: dict[str, list[str] | list[int]] = field(default_factory=dict)


def scenario_chain(
    negative: bool,
    outcome: str,
    setup: tuple[str, str],
    calls: list[tuple[str, bool, bool]],
    reasons: dict[str, str],
) -> tuple[list[Row], str | None]:
    """The chain CONTRACT §2.7–§2.11 derives for the scenarios this generator draws.

    `calls` holds (span id, ok, unexpected) per executed call; `outcome` is `passed`,
    `wrongTool` or `toolError`. Only the decision-table rows those scenarios reach are coded.
    """
    ids = [sid for sid, _, _ in calls][:5]
    ok_ids, bad_ids = [s for s, ok, _ in calls if ok][:5], [s for s, ok, _ in calls if not ok][:5]
    rows = [
        Row("connection", "passed", "observed", {"span_ids": [setup[0]]}),  # §2.8.1 row 1
        Row("discovery", "passed", "observed", {"span_ids": [setup[1]]}),
    ]  # §2.8.2 row 5
    if outcome == "wrongTool" and not negative:  # §2.8.3 row 1: the expected call is missing
        rows.append(Row("selection", "failed", "missingToolCall", {"prompt_indexes": [0]}))
    elif outcome == "wrongTool":  # row 2: the gating toolNeverCalled row failed
        rows.append(
            Row(
                "selection",
                "failed",
                "unexpectedToolCall",
                {"predicate_reasons": [reasons["selection"]]},
            )
        )
    elif any(unexpected for _, _, unexpected in calls):  # row 3c: extras tolerated (no cap)
        rows.append(Row("selection", "passed", "observed", {"prompt_indexes": [0]}))
    else:  # row 4
        rows.append(Row("selection", "passed", "observed"))
    rows.append(
        Row("call", "passed", "observed", {"span_ids": ids} if ids else {"prompt_indexes": [0]})
    )  # §2.8.4 row 4, or row 5 (negative)
    if bad_ids:  # §2.8.5 row 1: a failed span without a code is a domain error
        rows.append(Row("response", "failed", "toolError", {"span_ids": bad_ids}))
    elif ok_ids:  # row 4
        rows.append(Row("response", "passed", "observed", {"span_ids": ok_ids}))
    else:  # row 6: a negative case that held has nothing to grade a response by
        rows.append(Row("response", "notMeasured", "noEvidenceCaptured"))
    if outcome != "passed" and not negative:  # §2.8.6 row 2: responseContains failed
        rows.append(
            Row(
                "userValue",
                "failed",
                "predicateFailed",
                {"predicate_reasons": [reasons["userValue"]]},
            )
        )
    else:  # row 3
        rows.append(Row("userValue", "passed", "observed"))
    first = next((i for i, row in enumerate(rows) if row.state == "failed"), len(rows))
    for row in rows[first + 1 :]:  # §2.7 step 8: the positional cascade
        if row.state == "notMeasured":
            row.state, row.reason, row.evidence = "notReached", "earlierStageFailed", {}
    category = {"selection": "selection", "response": "serverData", "userValue": "userValue"}
    return rows, category.get(rows[first].stage) if first < len(rows) else None  # §2.11


def chain_attributes(
    rows: list[Row], category: str | None, intervals: dict[str, tuple[int, int]]
) -> list[tuple[str, AttrValue]]:
    """The persisted chain and its `StageMeasurementsV1` (§3.5, CONTRACT §2.1 and §4)."""
    pairs: list[tuple[str, AttrValue]] = [("mcp.app.analyzer.version", 12)]
    for i, row in enumerate(rows):
        p = f"mcp.app.stages.{i}."
        pairs += [(p + "name", row.stage), (p + "state", row.state), (p + "reason", row.reason)]
        pairs += [(p + "evidence." + key, refs) for key, refs in row.evidence.items()]
    failed = next((row.stage for row in rows if row.state == "failed"), None)
    if failed:
        pairs.append(("mcp.app.stages.first_failed", failed))
    if category:
        pairs.append(("mcp.app.trial.failure_category", category))
    pairs += [("mcp.app.chain.verified", True), ("mcp.app.measurements.schema_version", 1)]
    for i, row in enumerate(rows):
        reach = _REACH[row.state]
        cited = [intervals[s] for s in row.evidence.get("span_ids", []) if s in intervals]
        if reach == "unknown" and cited:  # CONTRACT §4: own span evidence upgrades the reach
            reach = "reached"
        pairs.append((f"mcp.app.measurements.{i}.reach", reach))
        if reach == "reached" and cited and row.stage in ("selection", "call", "response"):
            pairs.append((f"mcp.app.measurements.{i}.latency_ms", float(_union_ms(cited))))
    pairs.append(("mcp.app.measurements.verified", True))
    return pairs


def _union_ms(intervals: list[tuple[int, int]]) -> int:
    """Length of the union of [start, end] intervals: CONTRACT §4 `evidence_span_union`."""
    total, reach = 0, None
    for start, end in sorted(intervals):
        if reach is None or start > reach:
            total, reach = total + end - start, end
        elif end > reach:
            total, reach = total + end - reach, end
    return total
