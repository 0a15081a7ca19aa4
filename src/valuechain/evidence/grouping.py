"""Spans → trials (TRACE-FORMAT §3.3, §3.8, §5.2).

Contract traces (a span's resource carries `mcp.app.export.schema_version`): one trial per
span with `mcp.app.span.role = trial`; a trace with several such roots keeps them all
(`W_MULTIPLE_TRIAL_ROOTS`, once per trace, all integrity-excluded) and gives each span to its
nearest trial-root ancestor; a root span stored twice with different content (a conflicting
duplicate) is one root, not two; a trace with `mcp.app.trial.*` keys but no trial root forms
no trial (`W_TRIAL_ROOT_MISSING`); other contract traces (project-export `session` roots) are
not trials. Foreign traces: one trial per trace, rooted at the earliest parentless span, else
the earliest orphan (`W_MULTIPLE_ROOTS` when there are several parentless spans); a trace whose
every span has a parent in the trace has a cycle (`E_PARENT_CYCLE`). Each of these issues is
reported once per trace.

A session joins foreign traces (issue 39; the project's docs/spec/trace-format-3.8.md): traces of
one import source that carry the same MCP transport session (`mcp.session.id`) — else the
same conversation (`gen_ai.conversation.id`), else the same application session
(`session.id`), each trace read by the first of these any of its spans carries (the
readers' columns, `TRIAL_SESSION`) — are one trial, rooted at the earliest of their roots,
every trace kept as its evidence. Only within one source: a source is one run (§3.8), and
the derive step rebuilds whole runs, so every trace of a session is rebuilt together.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import polars as pl

from valuechain.contract.issues import Code
from valuechain.evidence.contract_keys import Role
from valuechain.evidence.evidence_frame import EvidenceFrame, need
from valuechain.evidence.issues import EvidenceIssue, TrialLog
from valuechain.evidence.readers import columns as c

# The columns that join several traces into one trial, in preference order (the readers'
# columns: `evidence.readers`).
TRIAL_SESSION: tuple[str, ...] = (c.MCP_SESSION, c.CONVERSATION, c.APP_SESSION)


@dataclass(frozen=True, slots=True)
class Grouping:
    """`trials`: one row per trial (trial_index, trace, root_row, contract, flags);
    `assigned`: span_row → trial_index for every span that belongs to a trial."""

    trials: pl.DataFrame
    assigned: pl.DataFrame


def grouping_pass(frame: EvidenceFrame) -> EvidenceFrame:
    """Fills `trials` and `st` (the spans of trials, with trial_index and t_contract)."""
    s, attrs, log = need(frame.spans, "spans"), need(frame.attrs, "attrs"), TrialLog()
    grouping = group_spans(s, attrs.trial_key_owners, log)
    trial_contract = grouping.trials.select("trial_index", pl.col("contract").alias("t_contract"))
    st = s.join(grouping.assigned, on="span_row", how="inner").join(
        trial_contract, on="trial_index", how="left"
    )
    return replace(frame, trials=grouping.trials, st=st, issues=frame.logged(log))


def group_spans(spans: pl.DataFrame, trial_key_owners: pl.Series, log: TrialLog) -> Grouping:
    """Form trials from normalised spans (with a `contract` column).

    Args:
        spans: normalised spans with `contract`.
        trial_key_owners: span rows that carry an `mcp.app.trial.*` key.
    """
    contract_traces = spans.filter(pl.col("contract")).select("trace").unique()
    # A root span stored more than once (conflicting duplicates, §5.2) is one root: its
    # first row roots the trial, the duplicate conflict excludes it.
    roots = spans.filter(pl.col("contract") & (pl.col("role") == Role.TRIAL)).unique(
        ["trace", "span"], keep="first", maintain_order=True
    )
    contract_roots = roots.select(
        "trace", pl.col("span_row").alias("root_row"), pl.lit(True).alias("contract")
    )
    _report_missing_roots(spans, trial_key_owners, contract_traces, roots, log)
    foreign = spans.join(contract_traces, on="trace", how="anti")
    foreign_roots, trace_map = _join_sessions(foreign, _foreign_roots(foreign, log))
    trials = (
        pl.concat(
            [
                contract_roots.with_columns(
                    pl.lit(False).alias("cycle"), pl.lit(None, dtype=pl.String).alias("session")
                ),
                foreign_roots.select("trace", "root_row", "contract", "cycle", "session"),
            ]
        )
        .sort("root_row")
        .with_row_index("trial_index")
        .with_columns(pl.col("trial_index").cast(pl.Int64))
    )
    counts = trials.group_by("trace").agg(pl.len().alias("roots_in_trace"))
    trials = trials.join(counts, on="trace", how="left", maintain_order="left").with_columns(
        (pl.col("contract") & (pl.col("roots_in_trace") > 1)).alias("multiple_trial_roots")
    )
    single = trials.filter(pl.col("roots_in_trace") == 1).select(
        pl.col("trace").alias("trial_trace"), "trial_index"
    )
    assigned = (
        spans.select("span_row", "trace")
        .join(trace_map, on="trace", how="left")
        .with_columns(pl.col("trial_trace").fill_null(pl.col("trace")))
        .join(single, on="trial_trace", how="inner")
        .select("span_row", "trial_index")
    )
    multi = trials.filter(pl.col("multiple_trial_roots"))
    if not multi.is_empty():
        assigned = pl.concat([assigned, _nearest_root(spans, multi, log)])
    return Grouping(trials.drop("roots_in_trace"), assigned.select("span_row", "trial_index"))


def _report_missing_roots(
    spans: pl.DataFrame,
    trial_key_owners: pl.Series,
    contract_traces: pl.DataFrame,
    roots: pl.DataFrame,
    log: TrialLog,
) -> None:
    rootless = contract_traces.join(roots.select("trace"), on="trace", how="anti")
    if rootless.is_empty():
        return
    carriers = (
        spans.join(rootless, on="trace", how="semi")
        .filter(pl.col("span_row").is_in(trial_key_owners.implode()))
        .sort("span_row")
        .group_by("trace", maintain_order=True)
        .agg(pl.col("span").first())
    )
    for trace, span in carriers.iter_rows():
        log.add(
            EvidenceIssue(
                Code.W_TRIAL_ROOT_MISSING,
                "mcp.app.trial.* keys without a span whose mcp.app.span.role is 'trial'",
                trace_id=trace,
                span_id=span,
            )
        )


def named(span_ids: list[str], limit: int = 5) -> str:
    """Span ids for a message: the first few, and how many more."""
    shown = ", ".join(span_ids[:limit])
    return shown if len(span_ids) <= limit else f"{shown} and {len(span_ids) - limit} more"


def _foreign_roots(foreign: pl.DataFrame, log: TrialLog) -> pl.DataFrame:
    """The root of each foreign trace: earliest parentless span, else earliest orphan."""
    if foreign.is_empty():
        return pl.DataFrame(
            schema={
                "trace": pl.String,
                "root_row": pl.Int64,
                "contract": pl.Boolean,
                "cycle": pl.Boolean,
            }
        )
    ids = foreign.select("trace", pl.col("span").alias("parent"))
    orphans = foreign.filter(pl.col("parent").is_not_null()).join(
        ids, on=["trace", "parent"], how="anti"
    )
    candidates = pl.concat(
        [
            foreign.filter(pl.col("parent").is_null()).with_columns(pl.lit(0).alias("rank")),
            orphans.with_columns(pl.lit(1).alias("rank")),
            foreign.with_columns(pl.lit(2).alias("rank")),  # a cycle: no root at all
        ]
    )
    roots = (
        candidates.sort(["trace", "rank", "start_ns", "span_row"], nulls_last=True)
        .group_by("trace", maintain_order=True)
        .agg(
            pl.col("span_row").first().alias("root_row"),
            pl.col("span").first().alias("root_span"),
            pl.col("rank").first().alias("rank"),
            pl.col("span").filter(pl.col("rank") == 0).unique(maintain_order=True).alias("tops"),
        )
    )
    for trace, span, tops in (
        roots.filter(pl.col("tops").list.len() > 1).select("trace", "root_span", "tops").iter_rows()
    ):
        log.add(  # one issue per trace; a span stored twice (a conflict) is one span
            EvidenceIssue(
                Code.W_MULTIPLE_ROOTS,
                f"{len(tops)} parentless spans ({named(tops)}); the trial is rooted at the "
                "earliest",
                trace_id=trace,
                span_id=span,
            )
        )
    for trace, span in roots.filter(pl.col("rank") == 2).select("trace", "root_span").iter_rows():
        log.add(
            EvidenceIssue(
                Code.E_PARENT_CYCLE,
                "every span has a parent in the trace; rooted at the earliest span",
                trace_id=trace,
                span_id=span,
            )
        )
    return roots.select(
        "trace",
        "root_row",
        pl.lit(False).alias("contract"),
        (pl.col("rank") == 2).alias("cycle"),
    )


def _join_sessions(foreign: pl.DataFrame, roots: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Foreign roots with traces joined by session: one root per session (its earliest), a
    `session` column (the joining value, null for a lone trace), and trace → trial_trace for
    every trace a session moved into another trace's trial."""
    empty_map = pl.DataFrame(schema={"trace": pl.String, "trial_trace": pl.String})
    lone = roots.with_columns(pl.lit(None, dtype=pl.String).alias("session"))
    keys = _session_keys(foreign)
    if keys.is_empty():
        return lone, empty_map
    # label propagation: each trace takes the least trace id among the traces it shares a
    # session with, until nothing changes (a chain of shared keys settles in a few rounds)
    labels = keys.select("trace", pl.col("trace").alias("label")).unique()
    for _ in range(64):
        by_key = keys.join(labels, on="trace").group_by("node").agg(pl.col("label").min())
        moved = (
            keys.join(by_key, on="node")
            .group_by("trace")
            .agg(pl.col("label").min())
            .join(labels.rename({"label": "old"}), on="trace")
        )
        labels = moved.select("trace", "label")
        if (moved["label"] == moved["old"]).all():
            break
    sizes = labels.group_by("label").agg(pl.len().alias("n"))
    joined = labels.join(sizes.filter(pl.col("n") > 1), on="label", how="semi")
    if joined.is_empty():
        return lone, empty_map
    starts = foreign.select(pl.col("span_row").alias("root_row"), "start_ns")
    ranked = (
        roots.join(joined, on="trace")
        .join(starts, on="root_row", how="left")
        .sort(["label", "start_ns", "root_row"], nulls_last=True)
    )
    first = ranked.group_by("label", maintain_order=True).agg(
        pl.col("trace").first().alias("trial_trace"), pl.col("cycle").any().alias("any_cycle")
    )
    values = keys.join(joined, on="trace").group_by("label").agg(pl.col("value").min())
    trace_map = joined.join(first, on="label").select("trace", "trial_trace")
    kept = (
        lone.join(trace_map, on="trace", how="left")
        .filter(pl.col("trial_trace").is_null() | (pl.col("trial_trace") == pl.col("trace")))
        .join(joined, on="trace", how="left")
        .join(first.select("label", "any_cycle"), on="label", how="left")
        .join(values, on="label", how="left")
        .with_columns(
            (pl.col("cycle") | pl.col("any_cycle").fill_null(False)).alias("cycle"),
            pl.col("value").alias("session"),
        )
    )
    return kept.select(lone.columns), trace_map


def _session_keys(foreign: pl.DataFrame) -> pl.DataFrame:
    """Per foreign trace: its session node — (source, key, value) of the first key of
    `TRIAL_SESSION` that any of its spans carries — and the value; traces without one are
    absent."""
    parts = [
        foreign.filter(pl.col(key).is_not_null()).select(
            "trace", pl.lit(rank).alias("rank"), pl.col(key).cast(pl.String).alias("value")
        )
        for rank, key in enumerate(TRIAL_SESSION)
        if key in foreign.columns
    ]
    if not parts:
        return pl.DataFrame(schema={"trace": pl.String, "node": pl.String, "value": pl.String})
    source = foreign.group_by("trace").agg(pl.col("source_id").min())
    found = pl.concat(parts).unique()
    best = found.group_by("trace").agg(pl.col("rank").min())
    return (
        found.join(best, on=["trace", "rank"], how="semi")
        .join(source, on="trace")
        .select(
            "trace",
            pl.concat_str(
                [pl.col("source_id").cast(pl.String), pl.col("rank").cast(pl.String), "value"],
                separator="\x1f",
            ).alias("node"),
            "value",
        )
    )


def _nearest_root(spans: pl.DataFrame, multi: pl.DataFrame, log: TrialLog) -> pl.DataFrame:
    """span_row → trial_index by the nearest trial-root ancestor (rare: a few traces)."""
    members = spans.join(multi.select("trace").unique(), on="trace", how="semi")
    root_of = dict(zip(multi["root_row"].to_list(), multi["trial_index"].to_list(), strict=True))
    rows: list[tuple[int, int]] = []
    by_trace: dict[str, dict[str, tuple[int, str | None]]] = {}
    for trace, span, parent, row in members.select(
        "trace", "span", "parent", "span_row"
    ).iter_rows():
        by_trace.setdefault(trace, {}).setdefault(span, (row, parent))
    for tree in by_trace.values():
        for span_row, parent in tree.values():
            node_row, node_parent, seen = span_row, parent, set()
            while node_row not in root_of and node_parent is not None and node_row not in seen:
                seen.add(node_row)
                up = tree.get(node_parent)
                if up is None:
                    break
                node_row, node_parent = up
            if node_row in root_of:
                rows.append((span_row, root_of[node_row]))
    per_trace = (
        spans.join(multi.select("trace", "root_row"), left_on="span_row", right_on="root_row")
        .sort("span_row")
        .group_by("trace", maintain_order=True)
        .agg(pl.col("span"))
    )
    for trace, root_spans in per_trace.iter_rows():  # one issue per trace, naming its roots
        log.add(
            EvidenceIssue(
                Code.W_MULTIPLE_TRIAL_ROOTS,
                f"{len(root_spans)} spans with mcp.app.span.role = 'trial' in one trace "
                f"({named(root_spans)}); each of its trials is integrity-excluded",
                trace_id=trace,
                span_id=root_spans[0],
            )
        )
    return pl.DataFrame(rows, schema={"span_row": pl.Int64, "trial_index": pl.Int64}, orient="row")
