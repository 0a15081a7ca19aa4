"""The set-up pass: the set-up request spans of each foreign trial (TRACE-FORMAT §3.8)."""

from __future__ import annotations

from dataclasses import replace

import polars as pl

from valuechain.evidence import mcp_spans
from valuechain.evidence.evidence_frame import EvidenceFrame, need
from valuechain.evidence.groups import TrialGroups, by_trial, groups
from valuechain.evidence.readers import columns as c


def setup_pass(frame: EvidenceFrame) -> EvidenceFrame:
    """Fills `setup`: per trial its phase, failure and span of each set-up request."""
    n = need(frame.roots, "roots").height
    return replace(frame, setup=setup_groups(need(frame.st, "st"), n))


def setup_groups(st: pl.DataFrame, n: int) -> TrialGroups:
    """Set-up request spans of foreign traces (§3.8): `initialize` and MCP 2026-07-28's
    `server/discover` (connection), `tools/list` (discovery), by their MCP method
    (`evidence.mcp_spans`); a span whose status is ERROR or that names an error failed."""
    phase = mcp_spans.setup_phase()
    setup = by_trial(st.filter(~pl.col("t_contract") & phase.is_not_null()))
    setup = setup.with_columns(
        phase.alias("phase"),
        ((pl.col("status_code") == 2) | pl.col(c.ERROR_TYPE).is_not_null()).alias("failed"),
    )
    return groups(setup, ["phase", "failed", "span"], n)
