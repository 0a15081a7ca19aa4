"""Stage analytics per run: `EvalStageAnalyticsV1` documents and their flattened tables.

`materialize_runs` runs the statements of ``sql/analytics/`` in order (STYLE.md habit 6):
``0xx``–``1xx`` compute into temporary ``a_*`` tables — trial classification (CONTRACT §5.4),
counting (§5.5) pre-aggregated by slice attributes, the slices with their caps and retention
(§5.2), setup tallies (§5.6), latency (§5.7), version stamping (§5.9) and the JSON documents —
then ``2xx`` replace the target runs' rows in one transaction. Everything is set-based SQL:
each included trial's chain and agreeing measurements are packed into a 48-bit signature
(one byte per stage: the class it counts as and its reason), trials are grouped by slice
attributes and signature, and every tally is a sum over those groups. With the ``run_id``
indexes of ``sql/schema/048``–``058``, re-materializing one run does not grow with the store.

Which documents a run gets (DESIGN.md, CONTRACT Q1): one per (run, chain source, reader
analyzer version) — derived chains at every version they were derived at (each read by a
reader at that version), the producer's persisted chains once, read by the current analyzer
(`STAGE_ANALYZER_VERSION`, so a version-ahead producer chain is excluded as `version`), and a
derived document at the current analyzer for a run with no derived chain yet. A run without a
non-empty run id and a single suite id gets none (both are required, §5.1);
`runs.document_blocker` says which.

`materializationState` (§5.10): the exported ``mcp.app.run.materialization_state`` when any
trial carries it (a `provisional` copy wins); otherwise `final` when the run is terminal (its
exported run status is one of `RUN_TERMINAL_STATUSES`, or, with none exported, every trial is
terminal) and no included chain of the document owes a judge verdict (an applicable
`judgePending` row), else `provisional`.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any, Final

import duckdb

from valuechain.contract.documents import (
    MAX_HOST_SLICES,
    MAX_INTENT_SLICES,
    MAX_MODEL_SLICES,
)
from valuechain.contract.versions import (
    STAGE_ANALYZER_VERSION,
    STAGE_MEASUREMENTS_SCHEMA_VERSION,
)
from valuechain.contract.vocab import (
    JS_WHITESPACE,
    ExcludedTrialDetail,
    FailureCategory,
    SetupPhase,
    SliceDimension,
    StageReason,
)
from valuechain.contract.vocab_rules import EXCLUDED_TRIAL_DETAIL_CLASSES, STAGES
from valuechain.materialize.validation import validate_documents
from valuechain.materialize.verdict import write_decision_summaries
from valuechain.store import sqlfiles

Clock = Callable[[], datetime]

# Statements below this prefix compute into temporary tables; from it on they write.
_FIRST_WRITE: Final = "analytics/200_"

# The temporary tables the compute statements create (dropped after every call).
TEMP_TABLES: Final = (
    "a_target_runs",
    "a_trial_keys",
    "a_trials",
    "a_run_facts",
    "a_chain_sigs",
    "a_versions",
    "a_docs",
    "a_records",
    "a_cells",
    "a_slices",
    "a_slice_sigs",
    "a_slice_stage_reasons",
    "a_slice_stages",
    "a_setup",
    "a_doc_facts",
    "a_documents",
)


def utc_now() -> datetime:
    """The default clock."""
    return datetime.now(UTC)


def epoch_ms(moment: datetime) -> int:
    """Epoch milliseconds of an aware datetime (naive means UTC)."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    delta = moment - datetime(1970, 1, 1, tzinfo=UTC)
    return (delta.days * 86_400 + delta.seconds) * 1000 + delta.microseconds // 1000


def parameters(
    run_ids: Sequence[str] | None,
    now_ms: int,
    *,
    reader_version: int = STAGE_ANALYZER_VERSION,
    versions: Sequence[int] | None = None,
) -> dict[str, Any]:
    """Every value the ``sql/analytics`` statements name; each takes the subset it uses."""
    return {
        "all_runs": run_ids is None,
        "run_ids": list(run_ids or ()),
        "all_versions": versions is None,
        "versions": list(versions or ()),
        "js_whitespace": JS_WHITESPACE,
        "reader_version": reader_version,
        "reader_measurements_version": STAGE_MEASUREMENTS_SCHEMA_VERSION,
        "now_ms": now_ms,
        "stages": [s.value for s in STAGES],
        "reasons": [r.value for r in StageReason],
        "categories": [c.value for c in FailureCategory],
        "details": [d.value for d in ExcludedTrialDetail],
        "detail_classes": [EXCLUDED_TRIAL_DETAIL_CLASSES[d].value for d in ExcludedTrialDetail],
        "dimensions": [d.value for d in SliceDimension],
        "phases": [p.value for p in SetupPhase],
        "max_intent_slices": MAX_INTENT_SLICES,
        "max_model_slices": MAX_MODEL_SLICES,
        "max_host_slices": MAX_HOST_SLICES,
    }


def materialize_runs(
    con: duckdb.DuckDBPyConnection,
    run_ids: Sequence[str] | None = None,
    *,
    clock: Clock = utc_now,
    validate: bool = True,
) -> int:
    """(Re)build the analytics of ``run_ids`` (None = every run), replacing their rows.

    Writes ``core.run_summary``, ``core.analytics_runs``, ``core.analytics_documents``,
    ``core.analytics_slices`` and ``core.stage_funnel`` for exactly
    those runs, in one transaction (call it outside an open transaction). A listed run that
    has no trials loses its rows. ``clock`` stamps ``updatedAt`` (and ``createdAt`` of a new
    document; a rebuilt one keeps its own). ``validate`` checks every document against the
    strict `StageAnalyticsV1` contract, in bulk (`validation.validate_documents`), before
    anything is written.

    Returns:
        The number of documents written.

    Raises:
        pydantic.ValidationError: a document broke the contract (a bug; nothing is written).
    """
    con.begin()
    try:
        written = materialize_in_transaction(con, run_ids, clock=clock, validate=validate)
        con.commit()
    except BaseException:
        _abandon(con)
        raise
    return written


def materialize_in_transaction(
    con: duckdb.DuckDBPyConnection,
    run_ids: Sequence[str] | None = None,
    *,
    clock: Clock = utc_now,
    validate: bool = True,
    versions: Sequence[int] | None = None,
) -> int:
    """`materialize_runs` inside the caller's open transaction (it commits or rolls back), so
    a batch of re-derived chains and their runs' documents are written together. With
    ``versions``, only the runs' documents at those analyzer versions are rebuilt (and their
    run summaries); their documents at other versions are left as they are."""
    if isinstance(run_ids, str):
        raise TypeError("run_ids must be a sequence of run ids, not one string")
    params = parameters(run_ids, epoch_ms(clock()), versions=versions)
    statements = sqlfiles.folder("analytics")
    try:
        for sql in statements:
            if sql.name >= _FIRST_WRITE:
                break
            con.execute(sql.text, sql.bind(params))
        if validate:
            validate_documents(con, params)
        for sql in statements:
            if sql.name >= _FIRST_WRITE:
                con.execute(sql.text, sql.bind(params))
        write_decision_summaries(
            con, run_ids, validate=validate
        )  # CONTRACT §6: the runs' verdicts, same transaction
        return int(con.execute("SELECT count(*) FROM a_documents").fetchall()[0][0])
    finally:
        with contextlib.suppress(duckdb.Error):
            drop_temp_tables(con)


def _abandon(con: duckdb.DuckDBPyConnection) -> None:
    """Roll back after a failure, first releasing any result left unfinished."""
    with contextlib.suppress(duckdb.Error):
        con.abort()
    con.rollback()


def drop_temp_tables(con: duckdb.DuckDBPyConnection) -> None:
    """Release the ``a_*`` temporary tables of a materialization."""
    for name in TEMP_TABLES:
        con.execute(f"DROP TABLE IF EXISTS temp.{name}")
