"""Contract key checks (TRACE-FORMAT §5.2): wrong types and unknown keys.

Only where the contract is in force (the resource carries `mcp.app.export.schema_version`).
A key of the wrong type keeps its raw row and reads as absent; an unknown `mcp.app.*` key is
kept and reported once (a required trial-root key that is absent: `integrity`). Per-key
reports carry an occurrence count and the first place seen.
"""

from __future__ import annotations

from dataclasses import replace

import polars as pl

from valuechain.contract.issues import Code
from valuechain.evidence import contract_keys as ck
from valuechain.evidence.classify import KINDS, classify_key
from valuechain.evidence.evidence_frame import EvidenceFrame, need
from valuechain.evidence.issues import EvidenceIssue, TrialLog


def contract_types_pass(frame: EvidenceFrame) -> EvidenceFrame:
    """Adds the issues of contract keys of a wrong type or unknown (required keys: integrity)."""
    attrs, log = need(frame.attrs, "attrs"), TrialLog()
    check_contract_types(attrs.type_clashes, attrs.unknown_keys, need(frame.spans, "spans"), log)
    return replace(frame, issues=frame.logged(log))


def _in_contract(rows: pl.DataFrame, spans: pl.DataFrame) -> pl.DataFrame:
    """The rows whose owner is under the contract, with a trace/span pointer."""
    span_owners = spans.filter(pl.col("contract")).select(
        pl.col("span_row").alias("owner_row"), "trace", "span"
    )
    resource_owners = (
        spans.filter(pl.col("contract"))
        .group_by("resource_row", maintain_order=True)
        .agg(pl.col("trace").first())
        .select(
            pl.col("resource_row").alias("owner_row"),
            "trace",
            pl.lit(None, dtype=pl.String).alias("span"),
        )
    )
    on_spans = rows.filter(~pl.col("is_resource")).join(span_owners, on="owner_row")
    on_resources = rows.filter(pl.col("is_resource")).join(resource_owners, on="owner_row")
    return pl.concat([on_spans, on_resources])


def check_contract_types(
    clashes: pl.DataFrame, unknown: pl.DataFrame, spans: pl.DataFrame, log: TrialLog
) -> None:
    """Report `W_UNKNOWN_CONTRACT_KEY` (once per key) and `W_CONTRACT_TYPE` (per key and type).

    Args:
        clashes / unknown: raw rows (owner_row, is_resource, key, value_type) of contract keys
            with a value type their kind does not accept / of `mcp.app.*` keys in no table.
        spans: normalised spans with `contract`, `trace`, `span`, `resource_row`.
    """
    if not unknown.is_empty():
        per_key = (
            _in_contract(unknown, spans)
            .group_by("key", maintain_order=True)
            .agg(pl.len(), pl.col("trace").first(), pl.col("span").first())
            .sort("key")
        )
        for name, n, trace, span in per_key.iter_rows():
            log.add(
                EvidenceIssue(
                    Code.W_UNKNOWN_CONTRACT_KEY,
                    f"{name!r} is not a key of contract version {ck.SUPPORTED_CONTRACT_VERSION}",
                    trace_id=trace,
                    span_id=span,
                    key=name,
                    occurrences=n,
                )
            )
    if clashes.is_empty():
        return
    per_type = (
        _in_contract(clashes, spans)
        .group_by("key", "value_type", maintain_order=True)
        .agg(pl.len(), pl.col("trace").first(), pl.col("span").first())
        .sort("key", "value_type")
    )
    for name, value_type, n, trace, span in per_type.iter_rows():
        kind = KINDS[classify_key(name).contract_kind].value
        log.add(
            EvidenceIssue(
                Code.W_CONTRACT_TYPE,
                f"{name!r} carries a {value_type} value where the contract says {kind}; "
                "the raw value is kept and the typed value reads as absent",
                trace_id=trace,
                span_id=span,
                key=name,
                occurrences=n,
            )
        )
