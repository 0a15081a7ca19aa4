"""Run decision summaries: decided from the stored trials, written to core.decision_summaries.

Per run (CONTRACT §6): the inputs are read set-based (`verdict_inputs.py`), a v2 run is
aggregated per case × execution variant and decided in two phases (`aggregate_verdict`; a
refusal becomes `notEstablished` / `verdictSummaryUnavailable` with the refusal as detail),
and the summary's head is assembled (§6.6) once per run. One summary per run, chain source and
reader analyzer version — the verdict is the same in each, the chains under the diagnostics
differ (derived at that version, or the producer's).

The diagnostics (§6.7) — nearly all of a summary's size and cost — are built set-based in SQL
for every run and key at once (``sql/verdict/030``–``050``): the pages' trials, chains and
details into temporary tables, every item as JSON text, each summary's document as its head
followed by its page. `contract/verdict_diagnostics.py` states the same rules in Python and
is the reference the SQL is tested against, byte for byte.

Pages are keyset pages over (iteration number, trial id) of `PAGE_SIZE` trials; a cursor is
an opaque token naming the run and the last trial of its page. The first page of a run that
fits on it is `complete`; any page reached by a cursor is not (it is not the whole set).

Writing many runs (`write_decision_summaries`), the pages, their chains and details are read
from the store once for every run (030–043, into ``v_staged_*``: at most `PAGE_SIZE` + 1
trials a run), and the summaries are then built `BATCH_RUNS` runs at a time from those staged
rows (034–037): each batch costs what its runs cost, not a scan of the store.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import json
from collections.abc import Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Final

import duckdb
import pyarrow as pa
from pydantic import MISSING

from valuechain.contract.tables import DECISION_SUMMARIES
from valuechain.contract.verdict import VerdictDecision
from valuechain.contract.verdict_aggregate import VerdictAggregationError, aggregate_verdict
from valuechain.contract.verdict_diagnostics import Diagnostics
from valuechain.contract.verdict_policy import VerdictPolicyFile
from valuechain.contract.verdict_summary import (
    DecisionSummary,
    RunRecord,
    assemble_decision_summary,
)
from valuechain.contract.versions import (
    STAGE_ANALYZER_VERSION,
    STAGE_ANALYZER_VERSION_EVIDENCE_TRIGGERED_RESPONSE,
)
from valuechain.contract.vocab import FailureCategory, StageReason, StageState
from valuechain.contract.vocab_rules import (
    FALLBACK_NEXT_ACTION,
    NEXT_ACTIONS,
    STAGES,
    STALE_ANALYZER_NEXT_ACTION,
    VERDICT_CHAIN_DISAGREEMENT_NEXT_ACTION,
)
from valuechain.materialize.validation import check_summaries, summary_rows
from valuechain.materialize.verdict_inputs import RunInputs, read_run_inputs
from valuechain.store import sqlfiles

PAGE_SIZE: Final = 50
BATCH_RUNS: Final = 500  # runs per set-based build when writing (memory stays bounded)
_CURSOR_PREFIX: Final = "vc1."


class CursorError(ValueError):
    """A `--page` token that is not a cursor of this run."""


def encode_cursor(run_id: str, iteration_number: int, trial_id: str) -> str:
    raw = json.dumps([run_id, iteration_number, trial_id], separators=(",", ":")).encode()
    return _CURSOR_PREFIX + base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(run_id: str, cursor: str) -> tuple[int, str]:
    """The (iteration number, trial id) a cursor resumes after; it must name ``run_id``."""
    if not cursor.startswith(_CURSOR_PREFIX):
        raise CursorError("not a diagnostics cursor (they start with 'vc1.')")
    body = cursor[len(_CURSOR_PREFIX) :]
    try:
        value = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
    except (binascii.Error, ValueError):
        raise CursorError("the cursor is damaged") from None
    if (
        not isinstance(value, list)
        or len(value) != 3
        or type(value[1]) is not int
        or not all(isinstance(v, str) for v in (value[0], value[2]))
    ):
        raise CursorError("the cursor is damaged")
    if value[0] != run_id:
        raise CursorError(f"the cursor belongs to run {value[0]}")
    return value[1], value[2]


def decide(inputs: RunInputs) -> RunRecord:
    """The run record with its v2 decision (or the refusal that stops it) filled in."""
    record = inputs.record
    if record.verdict_policy_version != 2 or inputs.refusal is not None or inputs.policy is None:
        return record
    try:
        decision: VerdictDecision | None = aggregate_verdict(inputs.cases, inputs.policy)
        error = None
    except VerdictAggregationError as refused:
        decision, error = None, str(refused)
    return RunRecord(
        id=record.id,
        status=record.status,
        verdict_policy_version=2,
        verdict_summary=decision,
        verdict_policy_integrity_error=error,
    )


# The tables 030–043 build from the store; a write of several batches stages them once.
PAGE_TABLES: Final = ("v_keys", "v_pages", "v_page_chains", "v_page_details")
# The temporary tables the statements create (dropped after every call); v_heads is registered.
TEMP_TABLES: Final = (*PAGE_TABLES, "v_diagnostics", "v_summaries")
STAGED_TABLES: Final = tuple(name.replace("v_", "v_staged_", 1) for name in PAGE_TABLES)
# Per batch, its runs' share of each staged table (sql/verdict/034–037, in PAGE_TABLES order).
_BATCH_COPIES: Final = (
    "034_batch_keys.sql",
    "035_batch_pages.sql",
    "036_batch_page_chains.sql",
    "037_batch_page_details.sql",
)
# v_heads: the columns a summary's head fills, per run (sql/verdict/050 reads them).
HEADS: Final = pa.schema(
    [
        pa.field("run_id", pa.string(), nullable=False),
        pa.field("head", pa.string(), nullable=False),
        pa.field("next_cursor", pa.string()),
        *(
            DECISION_SUMMARIES.field(name)
            for name in DECISION_SUMMARIES.names
            if name
            in {
                "run_status",
                "verdict",
                "verdict_source",
                "undecided_reason",
                "measurement_unit",
                "counted_total",
                "counted_passed",
                "counted_failed",
                "counted_inconclusive",
                "reasons",
            }
        ),
    ]
)
# A page stands in while the head is assembled: the model needs one; the SQL writes the real.
_NO_PAGE: Final = Diagnostics(items=[], complete=False, scanned_iterations=0)


def diagnostics_parameters(limit: int = PAGE_SIZE) -> dict[str, Any]:
    """The vocabulary and constants sql/verdict/046 reads (§2.1, §1.4, §6.7)."""
    return {
        "limit": limit,
        "reader_version": STAGE_ANALYZER_VERSION,
        "stages": [s.value for s in STAGES],
        "states": [s.value for s in StageState],
        "reasons": [r.value for r in StageReason],
        "categories": [c.value for c in FailureCategory],
        "next_actions": [NEXT_ACTIONS[c] for c in FailureCategory],
        "fallback_action": FALLBACK_NEXT_ACTION,
        "stale_action": STALE_ANALYZER_NEXT_ACTION,
        "disagreement_action": VERDICT_CHAIN_DISAGREEMENT_NEXT_ACTION,
        "evidence_triggered_version": STAGE_ANALYZER_VERSION_EVIDENCE_TRIGGERED_RESPONSE,
    }


def _execute(con: duckdb.DuckDBPyConnection, name: str, params: dict[str, Any]) -> None:
    sql = sqlfiles.statement(f"verdict/{name}")
    con.execute(sql.text, sql.bind(params))


def _head(run_id: str, summary: DecisionSummary, next_cursor: str | None) -> dict[str, Any]:
    """A summary's columns and its JSON up to (not including) its diagnostics."""
    counts = {} if summary.counts is MISSING else summary.counts.model_dump()
    decision = None if summary.decision is MISSING else summary.decision
    undecided = None if summary.undecided is MISSING else summary.undecided
    return {
        "run_id": run_id,
        "head": summary.model_dump_json(by_alias=True, exclude={"diagnostics"}),
        "next_cursor": next_cursor,
        "run_status": summary.run_status,
        "verdict": summary.verdict.value,
        "verdict_source": summary.verdict_source.value,
        "undecided_reason": None if undecided is None else undecided.reason.value,
        "measurement_unit": counts.get("measurementUnit"),
        "counted_total": counts.get("total"),
        "counted_passed": counts.get("passed"),
        "counted_failed": counts.get("failed"),
        "counted_inconclusive": counts.get("inconclusive"),
        "reasons": None if decision is None else [r.value for r in decision.reasons],
    }


@contextlib.contextmanager
def _summaries(
    con: duckdb.DuckDBPyConnection,
    run_ids: Sequence[str] | None,
    *,
    keys: Sequence[tuple[str, int]] | None = None,
    policy_file: VerdictPolicyFile | None = None,
    cursor: str | None = None,
    limit: int = PAGE_SIZE,
    staged: bool = False,
) -> Iterator[None]:
    """Hold the summaries of ``run_ids`` (None = all) in v_summaries while the block runs.

    ``keys`` names the (chain source, version) pairs wanted for every run; by default each
    run gets one per pair it has chains for, plus (`derived`, current analyzer) always.
    ``cursor`` asks for the page after it instead of the first (one run: the cursor's).
    ``staged``: the first pages of ``run_ids`` (a list) are copied from `STAGED_TABLES`
    (`_staged_pages`) instead of read from the store.
    """
    inputs = read_run_inputs(con, run_ids, policy_file)
    params = {
        **diagnostics_parameters(limit),
        "all_runs": run_ids is None,
        "run_ids": list(run_ids or ()),
        "default_keys": keys is None,
        "key_sources": [k[0] for k in keys or ()],
        "key_versions": [k[1] for k in keys or ()],
        "first": cursor is None,
    }
    try:
        if staged:
            for name in _BATCH_COPIES:
                _execute(con, name, params)
        elif cursor is None:
            _execute(con, "030_summary_keys.sql", params)
            _first_pages(con, params)
        else:
            _execute(con, "030_summary_keys.sql", params)
            runs = [run_id for run_id in inputs if run_id]
            if len(runs) != 1:
                raise CursorError("a cursor continues the pages of one run")
            after = decode_cursor(runs[0], cursor)
            page = {"run_id": runs[0], "after_number": after[0], "after_id": after[1]}
            _execute(con, "020_page_trials.sql", {**params, **page})
            _page_rows(con, params)
        _execute(con, "046_diagnostics.sql", params)
        tails = {
            run_id: encode_cursor(run_id, number, trial_id)
            for run_id, number, trial_id in con.execute(
                sqlfiles.statement("verdict/048_page_tails.sql").text
            ).fetchall()
        }
        heads = [
            _head(
                run_id,
                assemble_decision_summary(decide(run), _NO_PAGE),
                tails.get(run_id),
            )
            for run_id, run in inputs.items()
            if run_id  # `runId` is a non-empty id (§6.6): such trials carry no run to decide
        ]
        con.register("v_heads", pa.Table.from_pylist(heads, schema=HEADS))
        try:
            _execute(con, "050_summaries.sql", params)
        finally:
            con.unregister("v_heads")
        yield
    finally:
        drop_temp_tables(con, TEMP_TABLES)


def _first_pages(con: duckdb.DuckDBPyConnection, params: dict[str, Any]) -> None:
    """v_pages (the first page of every run of v_keys) and its chains and details."""
    _execute(con, "040_first_pages.sql", params)
    _page_rows(con, params)


def _page_rows(con: duckdb.DuckDBPyConnection, params: dict[str, Any]) -> None:
    for name in ("042_page_chains.sql", "043_page_details.sql"):
        _execute(con, name, params)


@contextlib.contextmanager
def _staged_pages(con: duckdb.DuckDBPyConnection, run_ids: Sequence[str] | None) -> Iterator[None]:
    """Hold the keys and first pages of ``run_ids`` (None = all) in `STAGED_TABLES` while the
    block runs: one read of the store for every batch of a write."""
    params = {
        **diagnostics_parameters(),
        "all_runs": run_ids is None,
        "run_ids": list(run_ids or ()),
        "default_keys": True,
        "key_sources": [],
        "key_versions": [],
    }
    try:
        _execute(con, "030_summary_keys.sql", params)
        _first_pages(con, params)
        for name, staged in zip(PAGE_TABLES, STAGED_TABLES, strict=True):
            con.execute(f"ALTER TABLE temp.{name} RENAME TO {staged}")
        yield
    finally:
        drop_temp_tables(con)


def drop_temp_tables(
    con: duckdb.DuckDBPyConnection, names: Sequence[str] = (*TEMP_TABLES, *STAGED_TABLES)
) -> None:
    """Release the ``v_*`` temporary tables of a decision-summary build (by default all)."""
    for name in names:
        with contextlib.suppress(duckdb.Error):
            con.execute(f"DROP TABLE IF EXISTS temp.{name}")


def decision_summaries(
    con: duckdb.DuckDBPyConnection,
    run_ids: Sequence[str] | None,
    *,
    keys: Sequence[tuple[str, int]] | None = None,
    policy_file: VerdictPolicyFile | None = None,
    cursor: str | None = None,
    limit: int = PAGE_SIZE,
) -> dict[tuple[str, str, int], DecisionSummary]:
    """The summaries of ``run_ids`` (None = all) per (run, chain source, analyzer version),
    each parsed (and so validated) by the model; see `_summaries` for ``keys`` and
    ``cursor``."""
    with _summaries(con, run_ids, keys=keys, policy_file=policy_file, cursor=cursor, limit=limit):
        rows = con.execute(sqlfiles.statement("verdict/060_read_summaries.sql").text).fetchall()
    return {
        (run_id, source, version): DecisionSummary.from_json(document)
        for run_id, source, version, document in rows
    }


def read_page(
    con: duckdb.DuckDBPyConnection,
    run_id: str,
    *,
    source: str = "derived",
    analyzer: int = STAGE_ANALYZER_VERSION,
    cursor: str | None = None,
    limit: int = PAGE_SIZE,
) -> Diagnostics:
    """One page of a run's diagnostics under the chains of ``source`` at ``analyzer``."""
    summaries = decision_summaries(
        con, [run_id], keys=[(source, analyzer)], cursor=cursor, limit=limit
    )
    return summaries[(run_id, source, analyzer)].diagnostics


def write_decision_summaries(
    con: duckdb.DuckDBPyConnection, run_ids: Sequence[str] | None, *, validate: bool = True
) -> int:
    """Replace the decision summaries of ``run_ids`` (None = all) inside the caller's open
    transaction; a listed run without trials loses its rows. ``validate`` checks every
    document against the generated JSON Schema in bulk (`check_summaries`) and raises for the
    first it refuses before returning, so the caller rolls back what was written. Returns the
    rows written.

    Built `BATCH_RUNS` runs at a time — each batch set-based, all its runs together — so the
    pages' JSON of a large store stays within the store's memory limit; with more than one
    batch, the pages are read from the store once for all of them (`_staged_pages`)."""
    params = {"all_runs": run_ids is None, "run_ids": list(run_ids or ())}
    if run_ids is None:
        sql = sqlfiles.statement("verdict/005_runs.sql")
        runs = [str(r[0]) for r in con.execute(sql.text).fetchall()]
    else:
        runs = list(dict.fromkeys(run_ids))
    _execute(con, "200_delete_decision_summaries.sql", params)
    staged = len(runs) > BATCH_RUNS
    written = 0
    # A batch's summaries are checked on a thread while the next batch is built (DuckDB lets
    # go of the interpreter); at most one batch waits, and a refusal is raised before the
    # caller commits, so nothing it refused is kept.
    checked: Future[int] | None = None
    with (
        _staged_pages(con, run_ids) if staged else contextlib.nullcontext(),
        ThreadPoolExecutor(1, thread_name_prefix="valuechain-summaries") as checker,
    ):
        for start in range(0, len(runs), BATCH_RUNS):
            with _summaries(con, runs[start : start + BATCH_RUNS], staged=staged):
                rows = summary_rows(con) if validate else []
                _execute(con, "210_insert_decision_summaries.sql", params)
                written += int(con.execute("SELECT count(*) FROM v_summaries").fetchall()[0][0])
            if checked is not None:
                checked.result()
            checked = checker.submit(check_summaries, rows) if rows else None
        if checked is not None:
            checked.result()
    return written
