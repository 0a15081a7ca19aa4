"""Which producer setting would supply an identity a run lacks (docs/spec/mcpjam-sdk.md §3).

An MCPJam SDK run's run group comes from the `ci` block of the SDK's reporting config; without
`ci.pipelineId` it stays absent and blocks every comparison (`missingRunGroup`, CONTRACT §5.11).
The SDK reads no CI environment variable into `ci` itself, in either generation: `ci` is only
what the caller passes (`MCPJamReportingConfig.ci`, 6d550c0 sdk/src/eval-reporting-types.ts:9
and :171, forwarded as `ci: config?.ci` by EvalSuite.ts:233 and EvalTest.ts:838, and by the
streaming reporter — `createEvalRunReporter({ci})`, eval-run-reporter.ts:37 — without
`ci.provider`, :314 and :486; 1.14.0
index-Cx7pzIKR.d.ts:847 and :975, src/EvalSuite.ts:206). The SDK's own docs fill it from GitHub
Actions (docs/sdk/concepts/saving-results.mdx:171–186: `pipelineId: process.env.GITHUB_WORKFLOW`).
Config revision and case set are always derived from the payload, so they never lack.

Only runs read from SDK results get a hint; OTLP runs keep their blockers' words.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

import duckdb

from valuechain.contract.vocab import ParityBlocker
from valuechain.query.statements import query_rows

SDK_IDENTITY_HINTS: Final[dict[ParityBlocker, str]] = {
    ParityBlocker.MISSING_RUN_GROUP: (
        "MCPJam SDK: set ci.pipelineId in the reporting config (EvalSuite/EvalTest "
        "{mcpjam: {ci}}, reportEvalResults({ci}), createEvalRunReporter({ci})), e.g. "
        "pipelineId: process.env.GITHUB_WORKFLOW — the SDK reads no CI variable itself"
    ),
}


def sdk_runs(con: duckdb.DuckDBPyConnection, run_ids: Iterable[str]) -> set[str]:
    """The runs among ``run_ids`` whose trials come from MCPJam SDK results."""
    runs = sorted(set(run_ids))
    if not runs:
        return set()
    return {row["run_id"] for row in query_rows(con, "query/sdk_runs.sql", {"runs": runs})}


def identity_hint(blockers: Iterable[str]) -> str | None:
    """The SDK option that would lift the first missing-identity blocker, if any."""
    return next(
        (SDK_IDENTITY_HINTS[b] for b in map(ParityBlocker, blockers) if b in SDK_IDENTITY_HINTS),
        None,
    )
