"""The diagnostics pages of sql/verdict/046–050 equal the Python reference byte for byte.

`contract.verdict_diagnostics` states CONTRACT §6.7 in Python; the SQL path builds the same
JSON for every run and key at once. Both read the same temporary tables (the pages' trials,
their stored chains and details), here drawn by Hypothesis with what the reference must
handle: chains that fail the §2.1 check one way or another (a missing or misplaced row, an
unknown state, reason or category, a first failed stage that is not the first failed row,
evidence that is no object or whose references are of the wrong type), versions ahead of
the reader and below 7, evidence references with duplicates, empty strings, negative and
fractional prompt indexes, expected calls that are not JSON, and ids that need escaping in
JSON or percent-encoding in the trace path.

Out of scope (the reference raises or Python and DuckDB parse JSON differently): evidence
that is not JSON at all, `NaN`/`Infinity` literals, integers beyond 2^53, duplicate keys.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from verdict_reference import reference_pages

from valuechain.contract.vocab import FailureCategory, StageReason, StageState
from valuechain.contract.vocab_rules import STAGES
from valuechain.materialize.verdict import (
    HEADS,
    diagnostics_parameters,
    drop_temp_tables,
    encode_cursor,
)
from valuechain.store import Database, sqlfiles

SETTINGS = settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
STAGE_NAMES = [s.value for s in STAGES]
STATES = [s.value for s in StageState]
LIKELY_STATES = ["passed"] * 6 + ["notApplicable"] * 2 + STATES  # all-passed chains too
REASONS = [r.value for r in StageReason]
CATEGORIES = [c.value for c in FailureCategory]
KEYS = [
    ("derived", 12),
    ("derived", 6),
    ("derived", 7),
    ("derived", 13),
    ("derived", -1),
    ("producer", 12),
    ("producer", 11),
]
# derived chains at the keys' versions (below, at and above 7, ahead, negative) and one no key
# reads; the producer's at several versions (the newest is read)
CHAINS = [
    ("derived", 12),
    ("derived", 12),
    ("derived", 6),
    ("derived", 7),
    ("derived", 13),
    ("derived", -1),
    ("derived", 5),
] + [("producer", v) for v in (5, 11, 12, 13)]
# ids and texts: plain, JSON-escaped (quotes, backslashes, control characters, U+2028),
# non-ASCII and percent-encoded in a trace path
TEXT = st.text(
    alphabet=st.sampled_from(list("aZ09_-.!~*'()%/ +\"\\é€😀\n\t\x01\x1f\x7f\u2028")),
    max_size=6,
)

PAGES = pa.schema(
    [
        ("run_id", pa.string()),
        ("trial_id", pa.string()),
        ("iteration_number", pa.int32()),
        ("case_id", pa.string()),
        ("case_key", pa.string()),
        ("case_title", pa.string()),
        ("status", pa.string()),
        ("trial_result", pa.string()),
        ("project_id", pa.string()),
        ("position", pa.int64()),
    ]
)
STAGE_ROW = pa.struct(
    [
        ("stage", pa.string()),
        ("state", pa.string()),
        ("reason", pa.string()),
        ("evidence", pa.string()),
    ]
)
CHAIN_ROWS = pa.schema(
    [
        ("run_id", pa.string()),
        ("trial_id", pa.string()),
        ("source", pa.string()),
        ("analyzer_version", pa.int32()),
        ("stage_rows", pa.list_(STAGE_ROW)),
        ("first_failed_stage", pa.string()),
        ("failure_category", pa.string()),
    ]
)
DETAILS = pa.schema(
    [
        ("run_id", pa.string()),
        ("trial_id", pa.string()),
        ("expect_tool_calls", pa.string()),
        ("error", pa.string()),
        ("tool_names", pa.list_(pa.string())),
    ]
)
KEY_ROWS = pa.schema(
    [
        ("run_id", pa.string()),
        ("chain_source", pa.string()),
        ("analyzer_version", pa.int32()),
        ("project_id", pa.string()),
    ]
)


@pytest.fixture(scope="module")
def db() -> Iterator[Database]:
    database = Database(":memory:")
    try:
        yield database
    finally:
        database.close()


def _maybe(strategy: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.one_of(st.none(), st.just(""), strategy)


ELEMENT = st.one_of(
    TEXT,
    st.just(""),
    st.integers(-3, 1000),
    st.sampled_from([2.0, 2.5, -0.0, 0.0, 1e3, -1.5]),
    st.booleans(),
    st.none(),
)


@st.composite
def evidence(draw: st.DrawFn, damaged: bool = False) -> str | None:
    """A row's evidence: well-typed references (duplicates, empty strings, negative and
    fractional prompt indexes included), or — ``damaged`` — something §2.1 refuses."""
    if not damaged and draw(st.integers(0, 5)) == 0:
        return None
    if damaged and draw(st.booleans()):
        return draw(st.sampled_from(["null", "[]", '"spanIds"', "3", "[{}]"]))
    refs: dict[str, object] = {}
    for key, element in (
        ("spanIds", st.one_of(TEXT, st.sampled_from(["s1", "s2", ""]))),
        ("promptIndexes", st.one_of(st.integers(-2, 4), st.sampled_from([1.0, 2.5, -0.0]))),
        ("predicateReasons", st.sampled_from(["r1", "r2", ""])),
    ):
        shape = draw(st.integers(0, 5))
        if shape == 0:
            continue
        refs[key] = None if shape == 1 else draw(st.lists(element, max_size=5))
    if damaged:
        key = draw(st.sampled_from(["spanIds", "promptIndexes", "predicateReasons"]))
        refs[key] = draw(
            st.one_of(
                TEXT,
                st.integers(0, 3),  # not a list
                st.lists(ELEMENT, min_size=1, max_size=4).filter(  # a wrongly typed element
                    lambda xs, key=key: any(
                        isinstance(x, bool)
                        or x is None
                        or isinstance(x, str) == (key == "promptIndexes")
                        for x in xs
                    )
                ),
            )
        )
    if draw(st.booleans()):
        refs["other"] = draw(st.sampled_from([1, "x", [1, 2]]))
    return json.dumps(refs, ensure_ascii=draw(st.booleans()))


@st.composite
def chain(draw: st.DrawFn) -> tuple[list[dict[str, Any]], str | None, str | None]:
    """Six rows in stage order, mostly valid; at most one thing §2.1 refuses."""
    damage = draw(st.integers(0, 14))
    broken = draw(st.integers(0, 5))
    rows = []
    for i, stage in enumerate(STAGE_NAMES):
        rows.append(
            {
                "stage": stage,
                "state": draw(st.sampled_from(LIKELY_STATES)),
                "reason": draw(st.one_of(st.none(), st.sampled_from(REASONS))),
                "evidence": draw(evidence(damaged=damage == 6 and i == broken)),
            }
        )
    if damage == 1:
        rows.pop(broken)
    elif damage == 2:
        rows[1]["stage"], rows[2]["stage"] = rows[2]["stage"], rows[1]["stage"]
    elif damage == 3:
        rows[broken]["state"] = "pass"
    elif damage == 4:
        rows[broken]["reason"] = "because"
    elif damage == 5:
        rows.append(dict(rows[-1]))
    failed = next((r["stage"] for r in rows if r["state"] == "failed"), None)
    first = failed if damage != 7 else draw(st.sampled_from([None, *STAGE_NAMES]))
    category = draw(st.one_of(st.none(), st.none(), st.sampled_from(CATEGORIES)))
    if damage == 8:
        category = "bogus"
    return rows, first, category


CALL = st.one_of(
    st.fixed_dictionaries(
        {},
        optional={
            "toolName": st.one_of(TEXT, st.sampled_from(["t1", "t2", ""]), st.integers(0, 2)),
            "tool": st.one_of(st.sampled_from(["t1", "t2", ""]), st.none()),
            "name": st.one_of(st.sampled_from(["n1", "t1", ""]), st.integers(0, 1)),
        },
    ),
    st.sampled_from(["t1", 3, None, ["t1"]]),
)
EXPECTED = st.one_of(
    st.none(),
    st.sampled_from(["", "not json", "{}", '"t1"', "[1, 2]"]),
    st.lists(CALL, max_size=4).map(json.dumps),
)


@st.composite
def run(draw: st.DrawFn, run_id: str, limit: int) -> dict[str, list[dict[str, Any]]]:
    project = draw(st.one_of(st.just("p_1"), TEXT))
    out: dict[str, list[dict[str, Any]]] = {"pages": [], "chains": [], "details": [], "keys": []}
    for source, version in draw(
        st.lists(st.sampled_from(KEYS), min_size=1, max_size=4, unique=True)
    ):
        out["keys"].append(
            {
                "run_id": run_id,
                "chain_source": source,
                "analyzer_version": version,
                "project_id": project,
            }
        )
    for position in range(1, draw(st.integers(1, limit + 1)) + 1):
        trial_id = f"{position}{draw(TEXT)}"
        result = draw(st.sampled_from(["passed", "failed", "failed", None, "error", ""]))
        out["pages"].append(
            {
                "run_id": run_id,
                "trial_id": trial_id,
                "iteration_number": draw(st.integers(-1, 99)),
                "case_id": draw(
                    st.one_of(
                        st.none(),
                        st.sampled_from(["c_1", "case-2", "c 3", "c_4\n", "", "x" * 129]),
                        TEXT,
                    )
                ),
                "case_key": draw(_maybe(TEXT)),
                "case_title": draw(_maybe(TEXT)),
                "status": draw(_maybe(st.sampled_from(["completed", "failed", 'odd"\n']))),
                "trial_result": result,
                "project_id": project,
                "position": position,
            }
        )
        if result == "passed":
            continue  # 042 and 043 read non-passing trials only
        for source, version in draw(st.lists(st.sampled_from(CHAINS), max_size=3, unique=True)):
            rows, first, category = draw(chain())
            out["chains"].append(
                {
                    "run_id": run_id,
                    "trial_id": trial_id,
                    "source": source,
                    "analyzer_version": version,
                    "stage_rows": rows,
                    "first_failed_stage": first,
                    "failure_category": category,
                }
            )
        if draw(st.integers(0, 4)):
            out["details"].append(
                {
                    "run_id": run_id,
                    "trial_id": trial_id,
                    "expect_tool_calls": draw(EXPECTED),
                    "error": draw(_maybe(TEXT)),
                    "tool_names": draw(
                        st.lists(st.one_of(st.none(), st.sampled_from(["t1", "t2", ""]), TEXT))
                    ),
                }
            )
    return out


@st.composite
def pages(draw: st.DrawFn) -> tuple[int, bool, dict[str, list[dict[str, Any]]]]:
    limit = draw(st.integers(1, 6))
    tables: dict[str, list[dict[str, Any]]] = {"pages": [], "chains": [], "details": [], "keys": []}
    for run_id in draw(st.sampled_from([["run_a"], ["run_a", "run 'b'/é"]])):
        for name, rows in draw(run(run_id, limit)).items():
            tables[name] += rows
    return limit, draw(st.booleans()), tables


def _load(db: Database, tables: dict[str, list[dict[str, Any]]]) -> None:
    for name, table, schema in (
        ("pages", "v_pages", PAGES),
        ("chains", "v_page_chains", CHAIN_ROWS),
        ("details", "v_page_details", DETAILS),
        ("keys", "v_keys", KEY_ROWS),
    ):
        db.con.register("v_input", pa.Table.from_pylist(tables[name], schema=schema))
        db.con.execute(f"CREATE OR REPLACE TEMP TABLE {table} AS SELECT * FROM v_input")
        db.con.unregister("v_input")


def _sql_pages(db: Database, limit: int, first: bool) -> dict[tuple[str, str, int], str]:
    """Each key's diagnostics JSON as sql/verdict/046–050 write it into the document."""
    params = {**diagnostics_parameters(limit), "first": first}
    sql = sqlfiles.statement("verdict/046_diagnostics.sql")
    db.con.execute(sql.text, sql.bind(params))
    tails = db.con.execute(sqlfiles.statement("verdict/048_page_tails.sql").text).fetchall()
    cursors = {run_id: encode_cursor(run_id, n, t) for run_id, n, t in tails}
    heads = [
        {"run_id": r, "head": "{}", "next_cursor": cursors.get(r), "run_status": "x"}
        for (r,) in db.con.execute("SELECT DISTINCT run_id FROM v_keys").fetchall()
    ]
    db.con.register("v_heads", pa.Table.from_pylist(heads, schema=HEADS))
    try:
        sql = sqlfiles.statement("verdict/050_summaries.sql")
        db.con.execute(sql.text, sql.bind(params))
    finally:
        db.con.unregister("v_heads")
    prefix = len('{,"diagnostics":')
    return {
        (r, s, v): document[prefix:-1]
        for r, s, v, document in db.con.execute(
            sqlfiles.statement("verdict/060_read_summaries.sql").text
        ).fetchall()
    }


@SETTINGS
@given(pages())
def test_the_sql_pages_equal_the_reference(
    db: Database, drawn: tuple[int, bool, dict[str, list[dict[str, Any]]]]
) -> None:
    limit, first, tables = drawn
    try:
        _load(db, tables)
        expected = {
            key: page.model_dump_json(by_alias=True)
            for key, page in reference_pages(db.con, first=first, limit=limit).items()
        }
        assert _sql_pages(db, limit, first) == expected
    finally:
        drop_temp_tables(db.con)
