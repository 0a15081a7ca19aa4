"""Whether two stage analytics documents measured comparable things (CONTRACT §5.11).

`stage_analytics_parity_blockers` returns the blockers in the function's own order — not the
vocabulary order of §1.9 (`mixedSourceVersions` comes before `differentAnalyzerVersion`); an
empty list means "these measured comparable things". An absent identity blocks: two runs that
both lack a run group do not share one.

Its SQL twin is the macro `parity_blockers(run_a, run_b)` (sql/views/109–110 over two documents,
129 over two run ids); one table of cases drives both (tests/query/test_parity.py).
"""

from __future__ import annotations

from pydantic import MISSING

from valuechain.contract.documents import StageAnalyticsV1
from valuechain.contract.vocab import MaterializationState, ParityBlocker

_IDENTITIES = (
    ("run_group_id", ParityBlocker.MISSING_RUN_GROUP, ParityBlocker.DIFFERENT_RUN_GROUP),
    (
        "config_revision",
        ParityBlocker.MISSING_CONFIG_IDENTITY,
        ParityBlocker.DIFFERENT_CONFIG_IDENTITY,
    ),
    (
        "case_set_fingerprint",
        ParityBlocker.MISSING_CASE_SET_IDENTITY,
        ParityBlocker.DIFFERENT_CASE_SET_IDENTITY,
    ),
)

# each identity's document field and the blocker its absence raises
IDENTITY_FIELDS: tuple[tuple[str, ParityBlocker], ...] = tuple(
    (field, missing) for field, missing, _ in _IDENTITIES
)


def stage_analytics_parity_blockers(
    a: StageAnalyticsV1, b: StageAnalyticsV1
) -> list[ParityBlocker]:
    """`stageAnalyticsParityBlockers(a, b)`, in its emission order (never re-sort it)."""
    blockers: list[ParityBlocker] = []
    for field, missing, different in _IDENTITIES:
        left, right = getattr(a, field), getattr(b, field)
        if left is MISSING or right is MISSING:
            blockers.append(missing)
        elif left != right:
            blockers.append(different)
    if any(
        row.source_stage_analyzer_versions is not MISSING
        or row.source_measurements_schema_versions is not MISSING
        for row in (a, b)
    ):
        blockers.append(ParityBlocker.MIXED_SOURCE_VERSIONS)
    if a.stage_analyzer_version != b.stage_analyzer_version:
        blockers.append(ParityBlocker.DIFFERENT_ANALYZER_VERSION)
    if a.measurements_schema_version != b.measurements_schema_version:
        blockers.append(ParityBlocker.DIFFERENT_MEASUREMENTS_VERSION)
    if a.measurement_unit != b.measurement_unit:
        blockers.append(ParityBlocker.DIFFERENT_MEASUREMENT_UNIT)
    if MaterializationState.PROVISIONAL in (a.materialization_state, b.materialization_state):
        blockers.append(ParityBlocker.PROVISIONAL)
    return blockers
