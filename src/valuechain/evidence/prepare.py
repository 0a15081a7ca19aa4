"""The root-objects pass: each trial's shared objects read from its root (TRACE-FORMAT §3.7).

Values that depend only on the root (its authored case, lifecycle, policy, set-up signals, …)
are computed here, once per distinct value (`objects.interned`), so that the assembler's
per-trial walk (`inputs`) only puts objects together.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import polars as pl

from valuechain.contract.derivation import IterationInfo, StageAuthoredCase
from valuechain.evidence import contract_keys as ck
from valuechain.evidence.authored import authored_as_sent
from valuechain.evidence.evidence_frame import EvidenceFrame, need
from valuechain.evidence.groups import RootObjects
from valuechain.evidence.objects import (
    interned,
    make_policy,
    make_signal,
    make_step_error,
    make_tool_signals,
)


def root_objects_pass(frame: EvidenceFrame) -> EvidenceFrame:
    """Fills `root_objects` from `roots`."""
    return replace(frame, root_objects=root_objects(need(frame.roots, "roots")))


_AUTHORED = (
    "mcp.app.authored.mode",
    "mcp.app.authored.is_negative_test",
    "mcp.app.authored.expects_tool_call",
    "mcp.app.authored.expects_widget_render",
    "mcp.app.authored.assertion_count",
    "mcp.app.authored.has_user_ask",
    "mcp.app.authored.tool_expectation",
)
_FACTS = (
    "mcp.app.case.is_negative",
    "mcp.app.case.type",
    "mcp.app.expect.tool_calls",
    "mcp.app.expect.output_defined",
    "mcp.app.expect.output",
    "needs_model",
    "has_user_ask",
    "content_redacted",
)


def _per_trial(roots: pl.DataFrame, mask: pl.Expr, columns: Sequence[str], make: Any) -> list[Any]:
    """`make(*columns)` for the trials where `mask` holds (shared per distinct value), else None."""
    out: list[Any] = [None] * roots.height
    rows = roots.with_row_index("_i").filter(mask)
    for i, obj in zip(rows["_i"].to_list(), interned(rows, columns, make), strict=True):
        out[i] = obj
    return out


def root_objects(roots: pl.DataFrame) -> RootObjects:
    """The per-trial objects read from trial roots (contract) or implied (foreign)."""
    contract = pl.col("contract")
    valid_mode = contract & pl.col("mcp.app.authored.mode").is_in(ck.AUTHORED_MODES)
    iteration: list[Any] = _per_trial(
        roots.with_columns(pl.col("mcp.app.trial.status").fill_null("")),
        contract,
        ("mcp.app.trial.status", "mcp.app.trial.error"),
        IterationInfo,
    )
    for i, status in enumerate(roots["foreign_status"].to_list()):
        if iteration[i] is None:
            iteration[i] = _foreign_iteration(status)

    def signal(phase: str) -> list[Any]:
        p = f"mcp.app.setup.{phase}."
        fields = ("outcome", "attribution", "egress_verified", "span_ids", "duration_ms")
        values = roots.select(
            pl.when(contract).then(pl.col(p + f)).alias(f) for f in fields
        ).to_dict(as_series=False)
        return [make_signal(*row) for row in zip(*values.values(), strict=True)]

    def flag(key: str) -> list[bool | None]:
        return roots.select(pl.when(contract).then(pl.col(key)))[key].to_list()

    authored: list[StageAuthoredCase | None] = _per_trial(
        roots, valid_mode, _AUTHORED, authored_as_sent
    )
    return RootObjects(
        contract=roots["contract"].to_list(),
        trace=roots["trace"].to_list(),
        root_span=roots["root_span"].to_list(),
        trial_id=roots["trial_id"].to_list(),
        run_id=roots["run_id"].to_list(),
        authored=authored,
        mode=roots["mcp.app.authored.mode"].to_list(),
        iteration=iteration,
        policy=_per_trial(
            roots, contract, ("mcp.app.policy.blocked", "mcp.app.policy.reason"), make_policy
        ),
        step_error=_per_trial(
            roots,
            contract,
            (
                "mcp.app.trial.step_error.source",
                "mcp.app.trial.step_error.code",
                "mcp.app.trial.step_error.http_status",
            ),
            make_step_error,
        ),
        tool_signals=_per_trial(
            roots,
            contract,
            ("mcp.app.tools.total_before", "mcp.app.tools.exposed"),
            make_tool_signals,
        ),
        connection=signal("connection"),
        discovery=signal("discovery"),
        trace_absent=flag("mcp.app.evidence.trace_absent"),
        lacks_channel=flag("mcp.app.evidence.trace_lacks_span_channel"),
        evaluator_errored=flag("mcp.app.evidence.evaluator_errored"),
        facts=roots.select(_FACTS).to_dict(as_series=False),
    )


_FOREIGN_ITERATIONS: dict[str, IterationInfo] = {}


def _foreign_iteration(status: str) -> IterationInfo:
    found = _FOREIGN_ITERATIONS.get(status)
    if found is None:
        found = _FOREIGN_ITERATIONS[status] = IterationInfo(status)
    return found
