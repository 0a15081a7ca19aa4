"""Analyzer 11 vs 12 on a dedicated export: they differ exactly where CONTRACT §7.2 says.

The 11 → 12 bump changed (a) the discovery table — a failed gating catalog check fails
`discovery` with `predicateFailed`, and a failed tools/list signal outranks tool spans — and
(b) predicate routing: the kinds added after analyzer 11 (the discovery catalog kinds,
`toolInputMatches`, `toolResultMatches`) fell through to userValue. A `synth --failures` export
exercises both; every other trial must derive identically at both versions.
"""

from __future__ import annotations

from pathlib import Path

import valuechain
from valuechain.synth import SynthConfig, write_export

# Scenarios whose evidence touches a §7.2 difference (see valuechain.synth.CATALOGUE).
AFFECTED = {"predicate_failed_discovery"}


def test_analyzer_11_and_12_differ_only_where_section_7_2_says(tmp_path: Path) -> None:
    export = tmp_path / "failures.jsonl"
    write_export(
        export,
        SynthConfig(runs=1, cases=12, models=2, reps=10, seed=11, failures=True),
        ndjson=True,
    )
    store = valuechain.open(":memory:")
    store.import_paths([export])
    store.derive(analyzer=11)
    differing = store.sql(
        """
        SELECT a.key AS scenario_key, a.string_value AS scenario, c12.trial_id, c12.stage,
               c11.state AS state_11, c11.reason AS reason_11,
               c12.state AS state_12, c12.reason AS reason_12
        FROM stage_chain c12
        JOIN stage_chain c11
          ON c11.trial_id = c12.trial_id AND c11.stage_index = c12.stage_index
         AND c11.source = 'derived' AND c11.analyzer_version = 11
        JOIN trials t ON t.trial_id = c12.trial_id
        JOIN spans s ON s.trace_id = t.trace_id AND s.mcp_app_role = 'trial'
        JOIN attributes a ON a.owner_type = 'span' AND a.owner_row = s.span_row
         AND a.key = 'valuechain.synth.scenario'
        WHERE c12.source = 'derived' AND c12.analyzer_version = 12
          AND (c11.state IS DISTINCT FROM c12.state OR c11.reason IS DISTINCT FROM c12.reason)
        """
    )
    assert differing.height > 0, "the export must exercise a §7.2 difference"
    assert set(differing["scenario"].to_list()) <= AFFECTED
    # (a): at 12 the failed catalog check fails discovery; at 11 it reached userValue instead
    discovery = differing.filter(differing["stage"] == "discovery")
    assert set(discovery["reason_12"].to_list()) == {"predicateFailed"}
    assert set(discovery["state_11"].to_list()) == {"passed"}
    stamped = store.sql(
        "SELECT DISTINCT analyzer_version FROM trial_outcome WHERE source = 'derived' ORDER BY 1"
    )["analyzer_version"].to_list()
    assert stamped == [11, 12]
