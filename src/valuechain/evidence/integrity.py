"""Trial- and run-level checks of TRACE-FORMAT §5.2 over the roots frame (`roots.trial_roots`).

Which trials are excluded and by which codes (class `version` or `integrity`: multiple roots,
duplicate conflicts, parent cycles, missing required keys, trial id conflicts, versions
ahead, a persisted chain without an analyzer version), and runs with fewer trials in the
export than they expect. Each check reports its issue once, with a trace/span pointer.
"""

from __future__ import annotations

import polars as pl

from valuechain.contract.issues import Code
from valuechain.contract.versions import STAGE_ANALYZER_VERSION, STAGE_MEASUREMENTS_SCHEMA_VERSION
from valuechain.evidence import contract_keys as ck
from valuechain.evidence.checks import required_key_gaps
from valuechain.evidence.issues import EvidenceIssue, IssueLog
from valuechain.evidence.table import Codes


def integrity_codes(roots: pl.DataFrame, log: IssueLog) -> Codes:
    """Per excluded trial, the §5.2 codes that exclude it (class `version` or `integrity`)."""
    codes = Codes()
    flagged = {
        Code.W_MULTIPLE_TRIAL_ROOTS: roots["multiple_trial_roots"],
        Code.W_DUPLICATE_CONFLICT: roots["duplicate_conflict"].fill_null(False),
        Code.E_PARENT_CYCLE: roots["cycle"],
    }
    for code, mask in flagged.items():
        for i in mask.arg_true().to_list():
            codes.add(i, code.value)
    for i, _ in required_key_gaps(roots, log):
        codes.add(i, Code.W_CONTRACT_TYPE.value)
    for i in _trial_id_conflicts(roots, log):
        codes.add(i, Code.W_TRIAL_ID_CONFLICT.value)
    for i in _versions_ahead(roots, log):
        codes.add(i, Code.W_VERSION_AHEAD.value)
    return codes


def check_chain_versions(
    outcome: pl.DataFrame, codes: Codes, roots: pl.DataFrame, log: IssueLog
) -> None:
    """`mcp.app.analyzer.version` is required whenever a persisted chain is present (§3.5)."""
    unversioned = outcome.filter(pl.col("analyzer_version").is_null())
    if unversioned.is_empty():
        return
    indexes = unversioned["trial_index"].to_list()
    for i in indexes:
        codes.add(i, Code.W_CONTRACT_TYPE.value)
    first = roots.row(indexes[0], named=True)
    log.add(
        EvidenceIssue(
            Code.W_CONTRACT_TYPE,
            f"a persisted chain without mcp.app.analyzer.version ({len(indexes)} trial"
            f"{'s' * (len(indexes) != 1)}); the trial is integrity-excluded",
            trace_id=first["trace"],
            span_id=first["root_span"],
            trial_id=first["trial_id"],
            run_id=first["run_id"],
            key="mcp.app.analyzer.version",
            occurrences=len(indexes),
        )
    )


def _trial_id_conflicts(roots: pl.DataFrame, log: IssueLog) -> list[int]:
    ids = roots.filter(pl.col("contract") & pl.col("trial_id").is_not_null())
    clash = (
        ids.sort("trial_index")
        .group_by("trial_id", maintain_order=True)
        .agg(
            pl.col("trace").n_unique().alias("traces"),
            pl.col("trace"),
            pl.col("root_span"),
            pl.col("trial_index"),
            pl.col("run_id").first(),
        )
        .filter(pl.col("traces") > 1)
        .sort("trial_id")
    )
    out: list[int] = []
    for trial_id, n, traces, root_spans, indexes, run_id in clash.iter_rows():
        out.extend(indexes)
        named = ", ".join(dict.fromkeys(traces))
        log.add(  # one issue per trial id, naming its traces (§5.2: one issue per problem)
            EvidenceIssue(
                Code.W_TRIAL_ID_CONFLICT,
                f"trial id {trial_id!r} is the trial root of {n} traces ({named}); "
                "each is integrity-excluded",
                trace_id=traces[0],
                span_id=root_spans[0],
                trial_id=trial_id,
                run_id=run_id,
                key="mcp.app.trial.id",
            )
        )
    return out


def _versions_ahead(roots: pl.DataFrame, log: IssueLog) -> list[int]:
    """Contract, producer-analyzer or measurement versions newer than ours (§5.2, §7.3)."""
    checks = (
        ("schema_version", ck.SUPPORTED_CONTRACT_VERSION, "mcp.app.export.schema_version"),
        ("mcp.app.analyzer.version", STAGE_ANALYZER_VERSION, "mcp.app.analyzer.version"),
        (
            "mcp.app.measurements.schema_version",
            STAGE_MEASUREMENTS_SCHEMA_VERSION,
            "mcp.app.measurements.schema_version",
        ),
    )
    out: set[int] = set()
    for column, supported, key in checks:
        ahead = roots.filter(pl.col("contract") & (pl.col(column) > supported))
        if ahead.is_empty():
            continue
        out.update(ahead["trial_index"].to_list())
        per_version = ahead.group_by(column, maintain_order=True).agg(
            pl.len(),
            pl.col("trace").first(),
            pl.col("root_span").first(),
            pl.col("trial_id").first(),
            pl.col("run_id").first(),
        )
        for version, n, trace, span, trial_id, run_id in per_version.iter_rows():
            log.add(
                EvidenceIssue(
                    Code.W_VERSION_AHEAD,
                    f"{key} = {version} is newer than this reader's {supported} "
                    f"({n} trial{'s' * (n != 1)})",
                    trace_id=trace,
                    span_id=span,
                    trial_id=trial_id,
                    run_id=run_id,
                    key=key,
                    occurrences=n,
                )
            )
    return sorted(out)


def report_runs(roots: pl.DataFrame, log: IssueLog) -> None:
    """`W_RUN_INCOMPLETE_IN_EXPORT`: fewer trials than `mcp.app.run.trials_expected` (§5.2)."""
    runs = (
        roots.filter(pl.col("contract") & pl.col("mcp.app.run.id").is_not_null())
        .group_by("run_id", maintain_order=True)
        .agg(
            pl.col("trial_id").n_unique().alias("found"),
            pl.col("mcp.app.run.trials_expected").max().alias("expected"),
            pl.col("mcp.app.trial.status")
            .is_in(("pending", "skipped"))
            .sum()
            .alias("not_attempted"),
            pl.col("trace").first(),
            pl.col("root_span").first(),
        )
        .filter(pl.col("expected").is_not_null() & (pl.col("found") < pl.col("expected")))
    )
    for run_id, found, expected, not_attempted, trace, span in runs.iter_rows():
        log.add(
            EvidenceIssue(
                Code.W_RUN_INCOMPLETE_IN_EXPORT,
                f"{found} of {expected} trials are in this export ({expected - found} missing); "
                f"{not_attempted} of those found were marked pending or skipped by the producer",
                trace_id=trace,
                span_id=span,
                run_id=run_id,
                key="mcp.app.run.trials_expected",
                occurrences=expected - found,
            )
        )
