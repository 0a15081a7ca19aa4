"""Absent identity is absent, never equal (CONTRACT §5.11; TRACE-FORMAT §3.5, §3.8)."""

from __future__ import annotations

import gzip
from pathlib import Path

import duckdb
import polars as pl
from evidence_builders import contract, drop_attr, retrace, root, set_attr, trial_spans

from valuechain.evidence.trials import TrialEvidence, build_trials
from valuechain.ingest.decode import decode_export

PARITY = ["run_group_id", "config_revision", "case_set_fingerprint"]


def _frame(ev: TrialEvidence) -> pl.DataFrame:
    frame = pl.from_arrow(ev.trials)
    assert isinstance(frame, pl.DataFrame)
    return frame


def _equal_pairs(frame: pl.DataFrame) -> int:
    """Pairs of distinct trials whose parity identity compares equal (SQL semantics)."""
    con = duckdb.connect()
    con.register("t", frame.select("trial_index", *PARITY).to_arrow())
    (n,) = con.execute(
        "SELECT count(*) FROM t a JOIN t b ON a.trial_index < b.trial_index "
        "AND a.run_group_id = b.run_group_id AND a.config_revision = b.config_revision "
        "AND a.case_set_fingerprint = b.case_set_fingerprint"
    ).fetchone() or (0,)
    return int(n)


def test_foreign_trials_never_compare_equal(shared: Path) -> None:
    raw = shared / "conformance/otlp/07_otel-tui_fileexporter_mixed_signals.ndjson.gz"
    decoded = decode_export(gzip.decompress(raw.read_bytes()), "07.ndjson")
    ev = build_trials(
        decoded.tables["spans"], decoded.tables["attributes"], source_runs={0: decoded.sha256}
    )
    frame = _frame(ev)
    assert frame.height > 100
    assert frame.select(pl.col(PARITY).is_null().all()).row(0) == (True, True, True)
    assert _equal_pairs(frame) == 0
    assert frame.join(frame, on=PARITY, how="inner").height == 0  # polars: nulls never join


def test_contract_trials_compare_equal_only_on_present_identity(shared: Path) -> None:
    one = trial_spans(shared)
    two = retrace(trial_spans(shared), "0123456789abcdef0123456789abcdef")
    set_attr(root(two), "mcp.app.trial.id", "it_second")
    assert _equal_pairs(_frame(contract(shared, [*one, *two]))) == 1
    for spans in (one, two):
        drop_attr(root(spans), "mcp.app.run.group_id")  # optional: absent = no group
    frame = _frame(contract(shared, [*one, *two]))
    assert frame["run_group_id"].to_list() == [None, None]  # not "", not a sentinel
    assert frame["integrity_codes"].to_list() == [[], []]  # absence is not an integrity fault
    assert _equal_pairs(frame) == 0
