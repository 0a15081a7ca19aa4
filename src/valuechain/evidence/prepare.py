"""Vectorised preparation of each trial's parts, for `inputs.Assembler` (TRACE-FORMAT §3.7).

Every frame prepared for the assembler is sorted by (trial_index, start time, span_row) with
`by_trial` and cut into per-trial ranges with `offsets`: that order is stated here, once.
Values that depend only on one row (a grader row's object, a root's lifecycle) are computed
here, once, so that the per-trial walk only assembles objects. Tool spans and calls:
`prepare_tools`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import polars as pl

from valuechain.contract.derivation import IterationInfo, StageAuthoredCase
from valuechain.evidence import contract_keys as ck
from valuechain.evidence import conventions as cv
from valuechain.evidence import mcp_spans
from valuechain.evidence.attributes import Attributes
from valuechain.evidence.authored import authored_as_sent
from valuechain.evidence.contract_keys import OwnerClass
from valuechain.evidence.inputs import (
    GRADER_ATTRIBUTION,
    GRADER_JUDGE,
    GRADER_PREDICATE,
    GRADER_PROMPT,
    RootObjects,
    TrialGroups,
)
from valuechain.evidence.objects import (
    JUDGE_COLUMNS,
    PREDICATE_COLUMNS,
    PROMPT_COLUMNS,
    interned,
    make_attribution,
    make_judge,
    make_policy,
    make_predicate,
    make_prompt,
    make_signal,
    make_step_error,
    make_tool_signals,
)


def offsets(frame: pl.DataFrame, n: int) -> list[int]:
    """Row where each trial's range starts in `frame` (sorted by trial_index), plus the end."""
    if frame.is_empty():
        return [0] * (n + 1)
    found = frame["trial_index"].search_sorted(pl.Series(range(n + 1), dtype=pl.Int64), side="left")
    return found.to_list()


def groups(frame: pl.DataFrame, columns: Sequence[str], n: int) -> TrialGroups:
    """Column lists of `frame` (sorted by trial_index) and each trial's row range."""
    return TrialGroups(frame.select(columns).to_dict(as_series=False), offsets(frame, n))


def by_trial(frame: pl.DataFrame) -> pl.DataFrame:
    return frame.sort(["trial_index", "start_ns", "span_row"], nulls_last=True)


def gather_class(
    attrs: Attributes, cls: OwnerClass, frame: pl.DataFrame, when: pl.Expr
) -> pl.DataFrame:
    """The class-wide columns of `cls` for the rows of `frame` (null where `when` is false)."""
    wide = attrs.wide[cls]
    index = frame.select(pl.when(when).then(pl.col("class_pos")).alias("i"))["i"]
    if wide.width == 0:
        return pl.DataFrame(height=frame.height)
    return wide.select(pl.all().gather(index))


# --------------------------------------------------------------------------- root objects


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


# --------------------------------------------------------------------------- graders, renders


def grader_groups(st: pl.DataFrame, attrs: Attributes, n: int) -> TrialGroups:
    """Per grader row: what it feeds (prompt, predicate, judge) and its shared object."""
    part = by_trial(st.filter(pl.col("t_contract") & (pl.col("role") == ck.Role.GRADER)))
    wide = gather_class(attrs, OwnerClass.GRADER, part, pl.lit(True))
    kind, scorer = pl.col("mcp.app.grader.kind"), pl.col("mcp.app.grader.scorer_id")
    judge_name = pl.coalesce(
        pl.col("mcp.app.judge.name"),
        pl.when(scorer.str.starts_with(ck.JUDGE_SCORER_PREFIX)).then(
            scorer.str.strip_prefix(ck.JUDGE_SCORER_PREFIX)
        ),
    )
    judge = ~kind.is_in((ck.GRADER_MATCHER, ck.GRADER_PREDICATE)).fill_null(False)
    category = (
        pl.when((kind == ck.GRADER_MATCHER) & (pl.col("mcp.app.grader.scope") == ck.SCOPE_TURN))
        .then(GRADER_PROMPT)
        .when(kind == ck.GRADER_PREDICATE)
        .then(GRADER_PREDICATE)
        .when(judge & (judge_name == ck.JUDGE_GOAL))
        .then(GRADER_JUDGE)
        .when(judge & (judge_name == ck.JUDGE_ATTRIBUTION))
        .then(GRADER_ATTRIBUTION)
    )
    wide = wide.with_columns(
        part["trial_index"],
        category.alias("category"),
        pl.coalesce(
            pl.col("mcp.app.judge.status"),
            pl.col("mcp.app.grader.status"),
            pl.lit(ck.DEFAULT_JUDGE_STATUS),
        ).alias("judge_status"),
    ).with_row_index("_i")
    objects: list[Any] = [None] * wide.height
    for code, columns, make in (
        (GRADER_PROMPT, PROMPT_COLUMNS, make_prompt),
        (GRADER_PREDICATE, PREDICATE_COLUMNS, make_predicate),
        (GRADER_JUDGE, JUDGE_COLUMNS, make_judge),
        (GRADER_ATTRIBUTION, JUDGE_COLUMNS, make_attribution),
    ):
        rows = wide.filter(pl.col("category") == code)
        for i, obj in zip(rows["_i"].to_list(), interned(rows, columns, make), strict=True):
            objects[i] = obj
    return TrialGroups(
        {"category": wide["category"].to_list(), "object": objects}, offsets(wide, n)
    )


def render_groups(st: pl.DataFrame, attrs: Attributes, n: int) -> TrialGroups:
    """`mcp.app.widget.status` per `widget_render` span (§3.7 `renderObservations`)."""
    part = by_trial(st.filter(pl.col("t_contract") & (pl.col("role") == ck.Role.WIDGET_RENDER)))
    wide = gather_class(attrs, OwnerClass.WIDGET, part, pl.lit(True))
    return groups(wide.with_columns(part["trial_index"]), ["mcp.app.widget.status"], n)


def setup_groups(st: pl.DataFrame, n: int) -> TrialGroups:
    """Set-up request spans of foreign traces (§3.8): `initialize` and MCP 2026-07-28's
    `server/discover` (connection), `tools/list` (discovery), by `mcp.method.name` or a
    traceloop `{method}.mcp` name (`evidence.mcp_spans`)."""
    phase = mcp_spans.setup_phase()
    setup = by_trial(st.filter(~pl.col("t_contract") & phase.is_not_null()))
    setup = setup.with_columns(
        phase.alias("phase"),
        ((pl.col("status_code") == 2) | pl.col(cv.ERROR_TYPE).is_not_null()).alias("failed"),
    )
    return groups(setup, ["phase", "failed", "span"], n)
