"""The integrity pass: trial-level checks of TRACE-FORMAT §5.2 over the roots frame.

Which trials are excluded and by which codes (class `version` or `integrity`: multiple roots,
duplicate conflicts, parent cycles, missing required keys, trial id conflicts, versions
ahead). Each check reports its issue once, with a trace/span pointer. The checks that need
the producer's chain (`producer`) or every trial of a run (`runs`) are passes of their own.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

import polars as pl

from valuechain.contract.issues import Code
from valuechain.contract.versions import STAGE_ANALYZER_VERSION, STAGE_MEASUREMENTS_SCHEMA_VERSION
from valuechain.evidence import contract_keys as ck
from valuechain.evidence.evidence_frame import EvidenceFrame, need
from valuechain.evidence.issues import EvidenceIssue, TrialLog


def integrity_pass(frame: EvidenceFrame) -> EvidenceFrame:
    """Adds the codes that exclude trials (class `version` or `integrity`) and their issues."""
    log = TrialLog()
    codes = integrity_codes(need(frame.roots, "roots"), log)
    return replace(frame, codes=frame.codes + tuple(codes), issues=frame.logged(log))


def integrity_codes(roots: pl.DataFrame, log: TrialLog) -> list[tuple[int, str]]:
    """(trial_index, §5.2 code) of each check that excludes a trial, in the checks' order."""
    codes: list[tuple[int, str]] = []
    flagged = {
        Code.W_MULTIPLE_TRIAL_ROOTS: roots["multiple_trial_roots"],
        Code.W_DUPLICATE_CONFLICT: roots["duplicate_conflict"].fill_null(False),
        Code.E_PARENT_CYCLE: roots["cycle"],
    }
    for code, mask in flagged.items():
        for i in mask.arg_true().to_list():
            codes.append((i, code.value))
    for i, _ in required_key_gaps(roots, log):
        codes.append((i, Code.W_CONTRACT_TYPE.value))
    for i in _trial_id_conflicts(roots, log):
        codes.append((i, Code.W_TRIAL_ID_CONFLICT.value))
    for i in _versions_ahead(roots, log):
        codes.append((i, Code.W_VERSION_AHEAD.value))
    return codes


def _trial_id_conflicts(roots: pl.DataFrame, log: TrialLog) -> list[int]:
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


def _versions_ahead(roots: pl.DataFrame, log: TrialLog) -> list[int]:
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


def required_key_gaps(roots: pl.DataFrame, log: TrialLog) -> Iterator[tuple[int, list[str]]]:
    """(trial_index, keys) of contract trials whose root lacks a required key (§3.5 "yes")."""
    contract = roots.filter(pl.col("contract"))
    if contract.is_empty():
        return
    gaps = contract.select(
        "trial_index",
        "trace",
        "root_span",
        "trial_id",
        "run_id",
        pl.concat_list(
            [pl.when(pl.col(k).is_null()).then(pl.lit(k)) for k in ck.REQUIRED_ROOT_KEYS]
        )
        .list.drop_nulls()
        .alias("missing"),
    ).filter(pl.col("missing").list.len() > 0)
    if gaps.is_empty():
        return
    per_key = (
        gaps.explode("missing")
        .group_by("missing", maintain_order=True)
        .agg(pl.len(), pl.col("trace", "root_span", "trial_id", "run_id").first())
    )
    for name, n, trace, span, trial_id, run_id in per_key.iter_rows():
        log.add(
            EvidenceIssue(
                Code.W_CONTRACT_TYPE,
                f"required trial-root key {name!r} is absent or unreadable "
                f"({n} trial{'s' * (n != 1)}); the trial is integrity-excluded",
                trace_id=trace,
                span_id=span,
                trial_id=trial_id,
                run_id=run_id,
                key=name,
                occurrences=n,
            )
        )
    yield from gaps.select("trial_index", "missing").iter_rows()
