"""The graders pass: per grader row the object it stands for; per widget render its status.

A trial's grader rows feed its prompts, predicates, goal judge and attribution judge
(TRACE-FORMAT §3.7 `prompts`, `predicates`, `judge`, `attribution`); each row's frozen object
is built once per distinct value (`objects.interned`), and `renders` are the
`mcp.app.widget.status` of its `widget_render` spans (`renderObservations`).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import polars as pl

from valuechain.evidence import contract_keys as ck
from valuechain.evidence.attributes import Attributes
from valuechain.evidence.contract_keys import OwnerClass
from valuechain.evidence.evidence_frame import EvidenceFrame, need
from valuechain.evidence.groups import (
    GRADER_ATTRIBUTION,
    GRADER_JUDGE,
    GRADER_PREDICATE,
    GRADER_PROMPT,
    TrialGroups,
    by_trial,
    gather_class,
    groups,
    offsets,
)
from valuechain.evidence.objects import (
    JUDGE_COLUMNS,
    PREDICATE_COLUMNS,
    PROMPT_COLUMNS,
    interned,
    make_attribution,
    make_judge,
    make_predicate,
    make_prompt,
)


def graders_pass(frame: EvidenceFrame) -> EvidenceFrame:
    """Fills `graders` and `renders` from the trials' spans."""
    st, attrs = need(frame.st, "st"), need(frame.attrs, "attrs")
    n = need(frame.roots, "roots").height
    return replace(frame, graders=grader_groups(st, attrs, n), renders=render_groups(st, attrs, n))


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
