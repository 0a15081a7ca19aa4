"""Version constants (CONTRACT §7.1) and the analyzer versions valuechain can derive at (§7.2)."""

from __future__ import annotations

from typing import Final

# Current stage analyzer; stamped on every chain we derive (docs/seed still say 11, Q15).
STAGE_ANALYZER_VERSION: Final = 12

# Chains derived below this version predate evidence-triggered `response` (§7.2 v7, §6.7).
STAGE_ANALYZER_VERSION_EVIDENCE_TRIGGERED_RESPONSE: Final = 7

# `StageMeasurementsV1.schemaVersion`; moves independently of the analyzer (§4).
STAGE_MEASUREMENTS_SCHEMA_VERSION: Final = 1

# `EvalStageAnalyticsV1.schemaVersion` (§5.1).
EVAL_STAGE_ANALYTICS_SCHEMA_VERSION: Final = 1

# A stored run is v2 only if its `verdictPolicyVersion` is literally 2 (§6.1).
EVAL_VERDICT_POLICY_VERSION: Final = 2

# `EvalRunDecisionSummary.schemaVersion` (§6.6).
EVAL_RUN_DECISION_SUMMARY_SCHEMA_VERSION: Final = 1

# Goal-completion judge prompt template version (§7.1).
GOAL_JUDGE_TEMPLATE_VERSION: Final = 4

# Analyzers valuechain can derive at: 11 (the selectable legacy rules) and 12 (§7.2).
SELECTABLE_ANALYZER_VERSIONS: Final[tuple[int, ...]] = (11, 12)
