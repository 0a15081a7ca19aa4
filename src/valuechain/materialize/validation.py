"""Every stage analytics document of a materialization validated in bulk (CONTRACT §5).

None is sampled, and none becomes one pydantic object per row: the strict model
(`StageAnalyticsV1`) costs ~10 ms a document, most of it in building ~3,000 frozen objects and
running their cross-field validators one at a time. Instead, two passes over all of
``a_documents``:

1. **shape** — each document parsed (orjson) and checked against the JSON Schema generated
   from the model (`stage_analytics_json_schema`, compiled once, validated natively by
   jsonschema-rs): keys, types, vocabularies, bounds, closed objects. JSON Schema's `integer`
   admits `2.0`, which the model's strict ints refuse, so a number token with a fraction or an
   exponent is allowed only as a millisecond value (`_FRACTIONAL`).
2. **invariants** — the cross-field rules of the model's validators (tally arithmetic, latency
   bounds, vocabulary order, one overall slice, exclusions adding up, …) as one set-based
   statement over every document (``sql/check/030_document_invariants.sql``), a slice of
   `CHECK_DOCUMENTS` at a time.

The passes take the documents a slice at a time and overlap: the shape pass runs on a thread
(Python) while DuckDB checks the slice's invariants (native threads, interpreter let go). At
1M trials this took validation from 4.4 s to 3.0 s wall.

A document that either pass does not clear is validated again by the model itself, so the
error raised is the model's own `pydantic.ValidationError`, message for message. Should the
model accept a document a pass refused, the two disagree: that is a bug, raised as such.

The decision summaries (CONTRACT §6.6, `check_summaries`) get the shape pass against their
own generated schema: their heads are built by the model (its cross-field rules ran), their
diagnostics pages by SQL, whose every integer comes from an integer column. It reads no store,
so a batch's summaries are checked on a thread while the next batch is built.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import cache
from typing import Any, Final

import duckdb
import jsonschema_rs
import orjson

from valuechain.contract.documents import StageAnalyticsV1, stage_analytics_json_schema
from valuechain.contract.verdict_summary import DecisionSummary, decision_summary_json_schema
from valuechain.store import sqlfiles

_INVARIANTS: Final = "check/030_document_invariants.sql"
_SLICE: Final = "check/025_document_slice.sql"
_SUMMARIES: Final = "verdict/060_read_summaries.sql"
# Documents per invariants statement: parsed into nested values that DuckDB cannot spill, all
# ~6,000 documents of a 1M-trial store at once ran out of a 512MB engine limit; a slice of
# 1,000 holds ~100 MB, in the same CPU time.
CHECK_DOCUMENTS: Final = 1_000

# A key followed by a number with a fraction or an exponent. Sound on compact JSON: inside a
# string every quote is escaped, so `"name":` can only match a real key. Searched as the
# literal `":` and a number, the key then read back to its opening quote: a sixth of the cost
# of matching `"(\w+)":…` at every quote of the document.
_FRACTIONAL: Final = re.compile(r'":-?[0-9]+[.eE]')
_KEY: Final = re.compile(r"\w+")
_MILLIS_KEYS: Final = frozenset({"totalMs", "minMs", "maxMs"})


def _fraction_outside_millis(document: str) -> bool:
    """Whether a key other than a millisecond one holds a number with a fraction or exponent."""
    for match in _FRACTIONAL.finditer(document):
        end = match.start()
        start = document.rfind('"', 0, end) + 1
        if (
            start
            and _KEY.fullmatch(document, start, end)
            and document[start:end] not in _MILLIS_KEYS
        ):
            return True
    return False


@cache
def _schema_validator() -> Any:
    return jsonschema_rs.validator_for(stage_analytics_json_schema())


@cache
def _summary_validator() -> Any:
    return jsonschema_rs.validator_for(decision_summary_json_schema())


def _schema_problem(validator: Any, value: object) -> str | None:
    if validator.is_valid(value):  # a tenth of iter_errors' cost; most documents are valid
        return None
    for error in validator.iter_errors(value):
        return f"{error.message} at {'/'.join(map(str, error.instance_path)) or 'the root'}"
    return None


def shape_problem(document: str) -> str | None:
    """Why ``document`` fails the generated JSON Schema (or strict numbers), else None."""
    if _fraction_outside_millis(document):
        return "an integer field holds a number with a fraction or an exponent"
    try:
        value = orjson.loads(document)
    except orjson.JSONDecodeError as refused:  # e.g. a lone surrogate: the model decides
        return f"not parsed by the fast path ({refused})"
    return _schema_problem(_schema_validator(), value)


def validate_documents(con: duckdb.DuckDBPyConnection, params: Mapping[str, Any]) -> int:
    """Validate every document of ``a_documents``; returns how many were validated.

    ``params`` are the materialization's parameters (`analytics.parameters`): the vocabulary
    orders and slice caps the invariants read. A slice of `CHECK_DOCUMENTS` documents at a
    time, the shape pass runs on a thread while DuckDB checks the invariants (it lets go of
    the interpreter meanwhile), so the two passes overlap on two cores.

    Raises:
        pydantic.ValidationError: a document broke the contract (the model's own error).
        RuntimeError: a pass refused a document the model accepts (a bug in the passes).
    """
    first, last = con.execute("SELECT min(doc_id), max(doc_id) FROM a_documents").fetchall()[0]
    if first is None:  # no documents
        return 0
    invariants, documents_of = sqlfiles.statement(_INVARIANTS), sqlfiles.statement(_SLICE)
    seen = 0
    with ThreadPoolExecutor(1, thread_name_prefix="valuechain-shape") as shape_pass:
        for start in range(first, last + 1, CHECK_DOCUMENTS):
            bounds = {"first_doc": start, "last_doc": start + CHECK_DOCUMENTS - 1}
            documents = con.execute(documents_of.text, documents_of.bind(bounds)).fetchall()
            seen += len(documents)
            shapes = shape_pass.submit(_shape_problems, documents)
            try:
                refused = dict(
                    con.execute(invariants.text, invariants.bind({**params, **bounds})).fetchall()
                )
            except duckdb.Error:
                if not shapes.result():  # the rules read documents of the schema's shape
                    raise
                refused = {}
            refused.update(shapes.result())  # the shape's word first: the rules assume it
            if refused:
                _raise_for(con, refused)
    return seen


def _shape_problems(documents: Sequence[tuple[int, str]]) -> dict[int, str]:
    """The first document of ``documents`` (doc_id, text) the shape pass refuses, and why."""
    for doc_id, document in documents:
        problem = shape_problem(document)
        if problem is not None:
            return {doc_id: problem}
    return {}


def _raise_for(con: duckdb.DuckDBPyConnection, refused: dict[int, str]) -> None:
    """Raise the model's error for the first refused document (or the disagreement)."""
    doc_id = min(refused)
    run_id, source, version, document = con.execute(
        "SELECT run_id, chain_source, analyzer_version, document FROM a_documents "
        "WHERE doc_id = $doc_id",
        {"doc_id": doc_id},
    ).fetchall()[0]
    StageAnalyticsV1.model_validate_json(document)  # raises the contract's own error
    raise RuntimeError(
        f"run {run_id} ({source} chains, analyzer {version}): the bulk check refused its "
        f"stage analytics document ({refused[doc_id]}) but the model accepts it; "
        "the check and contract/documents.py disagree"
    )


SummaryRow = tuple[str, str, int, str]  # run_id, chain_source, analyzer_version, document


def summary_rows(con: duckdb.DuckDBPyConnection) -> list[SummaryRow]:
    """The decision summaries of ``v_summaries`` (sql/verdict/050), for `check_summaries`:
    read while the connection is free, checked while it writes."""
    return con.execute(sqlfiles.statement(_SUMMARIES).text).fetchall()


def check_summaries(rows: Sequence[SummaryRow]) -> int:
    """Validate decision summaries against the JSON Schema generated from `DecisionSummary`;
    returns how many were validated. Reads no store: it may run on a thread.

    Raises:
        pydantic.ValidationError: a summary broke the contract (the model's own error).
        RuntimeError: the schema refused a summary the model accepts (a bug in the check).
    """
    for run_id, source, version, document in rows:
        try:
            problem = _schema_problem(_summary_validator(), orjson.loads(document))
        except orjson.JSONDecodeError as error:
            problem = f"not parsed by the fast path ({error})"
        if problem is None:
            continue
        DecisionSummary.model_validate_json(document)  # raises the contract's own error
        raise RuntimeError(
            f"run {run_id} ({source} chains, analyzer {version}): the bulk check refused its "
            f"decision summary ({problem}) but the model accepts it; the check and "
            "contract/verdict_summary.py disagree"
        )
    return len(rows)
