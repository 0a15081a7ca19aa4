"""SQL unit tests: each ``sql/analytics`` statement (and macro) on tiny inline tables.

Every test builds exactly the tables the statement's header says it reads, runs that one
statement, and compares its output rows with the expected rows (STYLE.md habit 7).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator, Sequence
from typing import Any

import duckdb
import pytest
from analytics_store import NOW_MS, SetupCopy, TrialSpec, insert_setup, insert_trials
from pydantic import TypeAdapter

from valuechain.contract.documents import StageAnalyticsV1
from valuechain.contract.versions import STAGE_ANALYZER_VERSION
from valuechain.contract.vocab import StageReason
from valuechain.derive.jssem import js_json, utf16_sort_key
from valuechain.materialize import analytics
from valuechain.store import Database, sqlfiles

PARAMS = analytics.parameters(None, NOW_MS)
R = {r.value: i + 1 for i, r in enumerate(StageReason)}  # reason → vocabulary position


@pytest.fixture
def con() -> Iterator[duckdb.DuckDBPyConnection]:
    db = Database(":memory:")
    try:
        yield db.con
    finally:
        db.close()


def run(con: duckdb.DuckDBPyConnection, prefix: str, **overrides: Any) -> None:
    """Execute the one ``sql/analytics`` statement whose name starts with ``prefix``."""
    (sql,) = [s for s in sqlfiles.folder("analytics") if s.name.startswith(f"analytics/{prefix}")]
    con.execute(sql.text, sql.bind({**PARAMS, **overrides}))


def temp(
    con: duckdb.DuckDBPyConnection, name: str, columns: str, rows: Sequence[Sequence[Any]]
) -> None:
    """An inline input table ``name (columns)`` holding ``rows``."""
    con.execute(f"CREATE OR REPLACE TEMP TABLE {name} ({columns})")
    if rows:
        marks = ", ".join("?" for _ in rows[0])
        con.executemany(f"INSERT INTO {name} VALUES ({marks})", [list(r) for r in rows])


def rows(con: duckdb.DuckDBPyConnection, query: str) -> list[tuple[Any, ...]]:
    return con.execute(query).fetchall()


def byte(state: int, reason: str | None = None) -> int:
    """A chain byte (macro 104): state code above the reason position."""
    return (state << 5) | (R[reason] if reason else 0)


def sig(*codes: int, width: int = 8) -> int:
    return sum(code << (width * i) for i, code in enumerate(codes))


TRIALS = "run_id VARCHAR, tkey INTEGER, trial_id VARCHAR, trace_id BLOB, iteration_number INTEGER, \
status VARCHAR, evaluator_errored BOOLEAN, trial_exclusion VARCHAR, intent VARCHAR, \
provider VARCHAR, model VARCHAR, host_key VARCHAR, host_name VARCHAR, execution_engine VARCHAR, \
suite_id VARCHAR, run_group_id VARCHAR, config_revision VARCHAR, case_set_fingerprint VARCHAR, \
run_status VARCHAR, materialization_state VARCHAR, run_completed_at TIMESTAMPTZ, \
trials_expected INTEGER, started_at TIMESTAMPTZ, ended_at TIMESTAMPTZ, input_tokens BIGINT, \
output_tokens BIGINT, duration_ms DOUBLE"


def trial_row(run_id: str = "r", tkey: int = 1, **values: Any) -> list[Any]:
    names = [c.split()[0] for c in TRIALS.split(", ")]
    row: dict[str, Any] = dict.fromkeys(names)
    row.update(
        run_id=run_id,
        tkey=tkey,
        trial_id=f"t{tkey}",
        trace_id=bytes([tkey]),
        status="completed",
        evaluator_errored=False,
        suite_id="s",
    )
    row.update(values)
    return [row[n] for n in names]


# --- macros --------------------------------------------------------------------------------


def test_current_analyzer_macro_is_the_contract_constant(con: duckdb.DuckDBPyConnection) -> None:
    assert rows(con, "SELECT core.current_stage_analyzer_version()") == [(STAGE_ANALYZER_VERSION,)]


@pytest.mark.parametrize(
    "value",
    [
        0.0,
        -0.0,
        1.0,
        400.0,
        0.5,
        0.1 + 0.2,
        123456789.125,
        1e-7,
        1.5e-7,
        1e21,
        1.5e300,
        5e-324,
        1e16,
        2.0**53 + 2,
        12.75,
        1e-6,
        0.000123,
    ],
)
def test_js_number_prints_like_the_canonical_serialiser(
    con: duckdb.DuckDBPyConnection, value: float
) -> None:
    expected = (
        "0"
        if value == 0
        else (
            str(int(value))
            if value.is_integer() and abs(value) < 1e21
            else TypeAdapter(float).dump_json(value).decode()
        )
    )
    assert rows(con, f"SELECT core.js_number({value!r}::DOUBLE)") == [(expected,)]


@pytest.mark.parametrize(
    "text",
    [
        "plain",
        'quo"te\\',
        "tab\tnew\nline",
        "\x01\x0b\x1b\x1f\x7f",
        "é€😀\u2028",
        "/",
        "\\u000B literally",
        "both \\u000B and \x0b",
    ],
)
def test_js_json_string_is_json_stringify(con: duckdb.DuckDBPyConnection, text: str) -> None:
    assert con.execute("SELECT core.js_json_string($t)", {"t": text}).fetchall() == [
        (js_json(text),)
    ]


@pytest.mark.parametrize("text", ["abc", "é", "😀", "\uffff", "a😀b\ue000"])
def test_utf16_units_order_like_javascript(con: duckdb.DuckDBPyConnection, text: str) -> None:
    (units,) = con.execute("SELECT core.utf16_units($t)", {"t": text}).fetchall()[0]
    assert bytes(b for u in units for b in u.to_bytes(2, "big")) == utf16_sort_key(text)


def test_utf16_order_puts_astral_characters_before_private_use(
    con: duckdb.DuckDBPyConnection,
) -> None:
    """UTF-8 byte order would put U+1F600 after U+E000; JavaScript puts it before."""
    got = rows(con, "SELECT core.utf16_units('😀') < core.utf16_units('\ue000')")
    assert got == [(True,)]


@pytest.mark.parametrize(
    ("state", "measured", "expected"),
    [
        (0, 0, 0),
        (5, 0, 1),
        (5, 1, 1),
        (3, 0, 2),
        (3, 1, 2),
        (1, 0, 4),
        (1, 1, 4),
        (2, 0, 5),
        (2, 1, 5),
        (4, 0, 3),
        (4, 1, 6),
        (6, 0, 3),
        (6, 1, 3),
    ],
)
def test_stage_class_truth_table(
    con: duckdb.DuckDBPyConnection, state: int, measured: int, expected: int
) -> None:
    """§5.5 for one row: state (macro 104) × an agreeing `reached` measurement (macro 105)."""
    b = byte(state, "observed") if state else 0
    assert rows(con, f"SELECT core.stage_class({b}, {measured})") == [(expected,)]


def test_stage_byte_and_latency_sample(con: duckdb.DuckDBPyConnection) -> None:
    cs = sig(byte(1, "observed"), 0, byte(4, "judgePending"), byte(2, "toolError"))
    rs = sig(1, 1, 1, 0, width=1)
    got = rows(
        con,
        f"""SELECT core.stage_byte({cs}, {rs}, 0), core.stage_byte({cs}, {rs}, 1),
        core.stage_byte({cs}, {rs}, 2), core.stage_byte({cs}, {rs}, 3),
        core.latency_sample({cs}, {rs}, 0, 5.0), core.latency_sample({cs}, {rs}, 2, 5.0),
        core.latency_sample({cs}, {rs}, 3, 5.0), core.latency_sample({cs}, {rs}, 0, -1.0),
        core.latency_sample({cs}, {rs}, 0, 'inf'::DOUBLE)""",
    )
    assert got == [
        (
            (4 << 5) | R["observed"],
            0,
            (6 << 5) | R["judgePending"],
            (5 << 5) | R["toolError"],
            5.0,
            5.0,
            None,
            None,
            None,
        )
    ]


# --- 000–020: target runs, trial keys, trials, run facts -----------------------------------


def test_000_target_runs(con: duckdb.DuckDBPyConnection) -> None:
    insert_trials(con, [TrialSpec("a", run_id="r1"), TrialSpec("b", run_id="r2")])
    run(con, "000")
    assert rows(con, "SELECT run_id FROM a_target_runs ORDER BY ALL") == [("r1",), ("r2",)]
    run(con, "000", all_runs=False, run_ids=["r2", "gone", "r2"])
    assert rows(con, "SELECT run_id FROM a_target_runs ORDER BY ALL") == [("gone",), ("r2",)]


def test_010_trial_keys_count_copies(con: duckdb.DuckDBPyConnection) -> None:
    insert_trials(
        con,
        [
            TrialSpec("a", trace="x"),
            TrialSpec("a", trace="y"),
            TrialSpec("b"),
            TrialSpec("c", run_id="other"),
        ],
    )
    temp(con, "a_target_runs", "run_id VARCHAR", [("run-1",)])
    run(con, "010")
    got = rows(con, "SELECT trial_id, copies FROM a_trial_keys ORDER BY ALL")
    assert got == [("a", 2), ("b", 1)]
    assert rows(con, "SELECT count(DISTINCT tkey) FROM a_trial_keys") == [(2,)]


def test_011_trials_normalise_slice_attributes(con: duckdb.DuckDBPyConnection) -> None:
    insert_trials(
        con,
        [
            TrialSpec(
                "a",
                intent="\u00a0 search\ufeff",
                provider="p",
                model="m",
                host_key="",
                host_name="",
                execution_engine="",
            ),
            TrialSpec("b", intent="\x1c", provider="p", model=None, host_key="h"),
            TrialSpec("c", intent="  ", provider="", model="m", exclusion_class="integrity"),
            TrialSpec("d", exclusion_class="version", evaluator_errored=True),
            TrialSpec("e", evaluator_errored=False),
        ],
    )
    temp(con, "a_target_runs", "run_id VARCHAR", [("run-1",)])
    run(con, "010")
    run(con, "011")
    got = rows(
        con,
        """SELECT trial_id, intent, provider, model, host_key, host_name,
        execution_engine, trial_exclusion, evaluator_errored FROM a_trials ORDER BY trial_id""",
    )
    assert got == [
        ("a", "search", "p", "m", None, None, None, None, False),
        ("b", "\x1c", None, None, "h", None, None, None, False),  # U+001C is not JS whitespace
        ("c", None, None, None, None, None, None, "integrity", False),
        ("d", None, None, None, None, None, None, "version", True),
        ("e", None, None, None, None, None, None, None, False),
    ]


def test_011_duplicate_trial_ids_are_integrity(con: duckdb.DuckDBPyConnection) -> None:
    insert_trials(con, [TrialSpec("a", trace="x"), TrialSpec("a", trace="y")])
    temp(con, "a_target_runs", "run_id VARCHAR", [("run-1",)])
    run(con, "010")
    run(con, "011")
    assert rows(con, "SELECT trial_exclusion, count(*) FROM a_trials GROUP BY ALL") == [
        ("integrity", 2)
    ]


def test_020_run_facts(con: duckdb.DuckDBPyConnection) -> None:
    t0 = "2026-01-01 00:00:00+00"
    temp(
        con,
        "a_trials",
        TRIALS,
        [
            trial_row(
                "agree",
                1,
                run_group_id="g",
                config_revision="c",
                case_set_fingerprint="f",
                run_status="completed",
                started_at=t0,
                ended_at="2026-01-01 00:00:05+00",
                input_tokens=3,
                output_tokens=1,
                duration_ms=10.0,
            ),
            trial_row(
                "agree",
                2,
                run_group_id="g",
                run_status="completed",
                started_at=t0,
                ended_at="2026-01-01 00:00:09+00",
                input_tokens=4,
                output_tokens=2,
                materialization_state="final",
                duration_ms=20.0,
            ),
            trial_row("split", 3, run_group_id="g1", suite_id="s1", run_status="running"),
            trial_row(
                "split",
                4,
                run_group_id="g2",
                suite_id="s2",
                run_status="running",
                materialization_state="provisional",
            ),
            trial_row(
                "nostatus",
                5,
                suite_id=None,
                status="completed",
                run_completed_at="2026-01-02 00:00:00+00",
            ),
            trial_row("nostatus", 6, suite_id=None, status="pending"),
            trial_row("alldone", 7, status="failed"),
        ],
    )
    run(con, "020")
    got = {
        r[0]: r[1:]
        for r in rows(
            con,
            """SELECT run_id, suite_id, run_group_id,
        config_revision, run_status, run_terminal, exported_materialization_state,
        epoch_ms(document_completed_at), input_tokens, output_tokens, duration_ms,
        trials_duration_ms, conflicting_identity, document_blocker FROM a_run_facts""",
        )
    }
    assert got["agree"] == (
        "s",
        "g",
        "c",
        "completed",
        True,
        "final",
        1767225609000,
        7,
        3,
        9000.0,
        30.0,
        [],
        None,
    )
    assert got["split"][:6] == (None, None, None, "running", False, "provisional")
    assert got["split"][-2:] == (["suite_id", "run_group_id"], "suiteIdConflict")
    assert got["nostatus"][4:6] == (False, None)  # a pending trial: not terminal
    assert got["nostatus"][-1] == "suiteIdMissing"
    assert got["alldone"][4] is True  # no run status: every trial terminal


# --- 030–060: chains, versions, documents, classification ---------------------------------


def _keys(con: duckdb.DuckDBPyConnection, *trial_ids: str) -> None:
    temp(con, "a_target_runs", "run_id VARCHAR", [("run-1",)])
    temp(
        con,
        "a_trial_keys",
        "run_id VARCHAR, trial_id VARCHAR, copies BIGINT, tkey INTEGER",
        [("run-1", t, 1, i + 1) for i, t in enumerate(trial_ids)],
    )


def test_030_chain_sigs_pack_rows(con: duckdb.DuckDBPyConnection) -> None:
    insert_trials(
        con,
        [
            TrialSpec("a", chain="P,F:argumentMismatch,NR", latency={2: 7.5}, reach={0: "unknown"}),
            TrialSpec(
                "b", chain="NM:judgePending", reach={0: "reached"}, measurement_stage={0: "call"}
            ),
        ],
    )
    con.execute(
        "INSERT INTO core.stage_chain VALUES ('a', 'run-1', 'derived', 12, 1, "
        "'discovery', 'passed', 'observed', NULL)"
    )  # a duplicate position
    con.execute(
        "INSERT INTO core.stage_chain VALUES ('b', 'run-1', 'derived', 12, 1, "
        "'selection', 'passed', NULL, NULL)"
    )  # the wrong stage at index 1
    con.execute(
        "INSERT INTO core.stage_chain VALUES ('b', 'run-1', 'derived', 12, 7, "
        "'call', 'passed', NULL, NULL)"
    )  # beyond the six positions
    _keys(con, "a", "b")
    run(con, "030")
    got = rows(
        con,
        """SELECT tkey, counts & 1048575, (counts >> 20) & 1048575, counts >> 40,
        positions, bits, latencies FROM a_chain_sigs ORDER BY tkey""",
    )
    chain_a = sig(
        byte(1, "observed"),
        byte(2, "argumentMismatch") | byte(1, "observed"),
        byte(3, "earlierStageFailed"),
    )
    # a: only the measurement at 1 is `reached` (0 says unknown, 2 notReached): one bit at 49
    assert got[0] == (1, 4, 4, 1, 0b111 | (1 << 7), chain_a | (1 << 49), None)
    # b: the measurement at 0 names another stage, so it packs no agreeing-reached bit
    assert got[1] == (2, 3, 2, 1, 0b11 | (1 << 6), sig(byte(4, "judgePending"), 0), None)


def test_030_latency_only_from_reached_rows(con: duckdb.DuckDBPyConnection) -> None:
    insert_trials(con, [TrialSpec("a", chain="P,P,P,P,NM,P", latency={2: 12.5, 3: 4.0, 4: 9.0})])
    _keys(con, "a")
    run(con, "030")
    assert rows(con, "SELECT latencies FROM a_chain_sigs") == [
        ([{"i": 2, "ms": 12.5}, {"i": 3, "ms": 4.0}],)  # response is notMeasured, unknown
    ]


CHAIN_SIGS = "tkey INTEGER, source VARCHAR, analyzer_version INTEGER, counts HUGEINT, \
positions BIGINT, bits BIGINT, latencies STRUCT(i TINYINT, ms DOUBLE)[]"


def packed(chain_rows: int, chain_positions: int, measured_positions: int) -> int:
    return chain_rows | (chain_positions << 20) | (measured_positions << 40)


def test_040_versions_join_outcomes_and_pick_the_newest_producer_chain(
    con: duckdb.DuckDBPyConnection,
) -> None:
    _keys(con, "a", "b")
    temp(
        con,
        "a_chain_sigs",
        CHAIN_SIGS,
        [
            (
                1,
                "derived",
                11,
                packed(6, 6, 6),
                63 | (63 << 6),
                1 | (5 << 48),
                [{"i": 3, "ms": 2.0}],
            ),
            (1, "derived", 12, packed(7, 7, 0), 63, 2, []),
            (1, "producer", 11, packed(6, 6, 0), 63, 3, []),
            (1, "producer", 13, packed(6, 6, 2), 63 | (1 << 6), 4, []),
        ],
    )
    for tid, source, version, verified in (("a", "derived", 12, True), ("b", "derived", 12, None)):
        con.execute(
            "INSERT INTO core.trial_outcome VALUES ($1, 'run-1', $2, $3, NULL, 'setup', "
            "$4, true, true, 1, $3, true)",
            [tid, source, version, verified],
        )
    run(con, "040")
    got = rows(
        con,
        """SELECT tkey, source, analyzer_version, doc_version, chain_rows,
        chain_duplicates, chain_sig, measurement_duplicates, reach_sig, latency_3,
        failure_category, chain_verified, measurements_present FROM a_versions ORDER BY ALL""",
    )
    assert got == [
        (1, "derived", 11, 11, 6, False, 1, False, 5, 2.0, None, None, False),
        (1, "derived", 12, 12, 7, True, 2, False, 0, None, "setup", True, True),
        (1, "producer", 13, 12, 6, False, 4, True, 0, None, None, None, False),
        (2, "derived", 12, 12, 0, False, 0, False, 0, None, "setup", None, True),
    ]


VERSIONS = "tkey INTEGER, source VARCHAR, analyzer_version INTEGER, chain_rows BIGINT, \
chain_duplicates BOOLEAN, chain_sig BIGINT, measurement_duplicates BOOLEAN, reach_sig BIGINT, \
latency_2 DOUBLE, latency_3 DOUBLE, latency_4 DOUBLE, failure_category VARCHAR, \
chain_verified BOOLEAN, measurements_present BOOLEAN, measurements_verified BOOLEAN, \
measurements_schema_version INTEGER, measurements_analyzer_version INTEGER, doc_version INTEGER"

RUN_FACTS = "run_id VARCHAR, suite_id VARCHAR, run_group_id VARCHAR, config_revision VARCHAR, \
case_set_fingerprint VARCHAR, run_status VARCHAR, run_terminal BOOLEAN, \
exported_materialization_state VARCHAR, document_completed_at TIMESTAMPTZ, \
document_blocker VARCHAR"


def version_row(tkey: int, source: str = "derived", version: int = 12, **values: Any) -> list[Any]:
    names = [c.split()[0] for c in VERSIONS.split(", ")]
    row: dict[str, Any] = dict.fromkeys(names)
    row.update(
        tkey=tkey,
        source=source,
        analyzer_version=version,
        chain_rows=6,
        chain_duplicates=False,
        chain_sig=0,
        measurement_duplicates=False,
        reach_sig=0,
        chain_verified=True,
        measurements_present=True,
        measurements_verified=True,
        measurements_schema_version=1,
        measurements_analyzer_version=version,
        doc_version=version if source == "derived" else 12,
    )
    row.update(values)
    return [row[n] for n in names]


def test_050_documents(con: duckdb.DuckDBPyConnection) -> None:
    temp(
        con,
        "a_trial_keys",
        "run_id VARCHAR, trial_id VARCHAR, copies BIGINT, tkey INTEGER",
        [("old", "a", 1, 1), ("both", "b", 1, 2), ("none", "c", 1, 3), ("blocked", "d", 1, 4)],
    )
    temp(
        con,
        "a_versions",
        VERSIONS,
        [
            version_row(1, version=11),
            version_row(2),
            version_row(2, "producer", 11),
            version_row(4),
        ],
    )
    temp(
        con,
        "a_run_facts",
        RUN_FACTS,
        [(r, "s", None, None, None, None, True, None, None, None) for r in ("old", "both", "none")]
        + [("blocked", None, None, None, None, None, True, None, None, "suiteIdMissing")],
    )
    run(con, "050")
    assert rows(con, "SELECT * FROM a_docs ORDER BY doc_id") == [
        (1, "both", "derived", 12),
        (2, "both", "producer", 12),
        (3, "none", "derived", 12),
        (4, "old", "derived", 11),
    ]


def _records(
    con: duckdb.DuckDBPyConnection,
    trials: list[list[Any]],
    versions: list[list[Any]],
    reader: int = 12,
) -> list[tuple[Any, ...]]:
    temp(
        con,
        "a_docs",
        "doc_id INTEGER, run_id VARCHAR, chain_source VARCHAR, analyzer_version INTEGER",
        [(1, "r", "derived", reader)],
    )
    temp(con, "a_trials", TRIALS, trials)
    temp(con, "a_versions", VERSIONS, versions)
    run(con, "060")
    return rows(con, "SELECT exclusion_detail, exclusion_class, signature FROM a_records")


@pytest.mark.parametrize(
    ("trial", "version", "expected"),
    [
        ({"evaluator_errored": True, "status": "running"}, {}, "evaluatorError"),
        ({"status": "running"}, {}, "notTerminal"),
        ({"status": "setup_failed"}, {}, "setupFailed"),
        ({"status": "exploded"}, {}, "executionFailed"),
        ({"trial_exclusion": "version"}, {"chain_verified": False}, "chainVersionAhead"),
        ({}, {"analyzer_version": 13, "doc_version": 12}, "chainVersionAhead"),
        ({}, {"measurements_schema_version": 2, "chain_rows": 0}, "measurementsVersionAhead"),
        ({}, {"chain_rows": 0, "chain_verified": False}, "chainMissing"),
        ({}, {"chain_verified": None}, "chainUnverified"),
        ({}, {"chain_duplicates": True}, "chainUnverified"),
        ({"trial_exclusion": "integrity"}, {}, "chainUnverified"),
        (
            {},
            {"measurements_present": False, "measurements_verified": False},
            "measurementsMissing",
        ),
        ({}, {"measurements_verified": None}, "measurementsInvalid"),
        ({}, {"measurement_duplicates": True}, "measurementsInvalid"),
        ({}, {"measurements_analyzer_version": None}, "analyzerMismatch"),
        ({}, {}, None),
    ],
)
def test_060_classification_order(
    con: duckdb.DuckDBPyConnection,
    trial: dict[str, Any],
    version: dict[str, Any],
    expected: str | None,
) -> None:
    got = _records(con, [trial_row(**trial)], [version_row(1, **version)])
    assert [g[0] for g in got] == [expected]


def test_060_no_chain_at_all_is_chain_missing(con: duckdb.DuckDBPyConnection) -> None:
    assert _records(con, [trial_row()], []) == [("chainMissing", "integrity", None)]


def test_060_signature_of_an_included_trial(con: duckdb.DuckDBPyConnection) -> None:
    cs = sig(
        byte(1, "observed"),
        byte(2, "connectFailed"),
        byte(3, "earlierStageFailed"),
        byte(4, "judgePending"),
        byte(5, "notAuthored"),
        byte(4, "noEvidenceCaptured"),
    )
    rs = sig(1, 1, 1, 1, 1, 0, width=1)
    ((detail, cls, signature),) = _records(
        con, [trial_row()], [version_row(1, chain_sig=cs, reach_sig=rs)]
    )
    assert (detail, cls) == (None, None)
    assert signature == sig(
        (4 << 5) | R["observed"],
        (5 << 5) | R["connectFailed"],
        (2 << 5) | R["earlierStageFailed"],
        (6 << 5) | R["judgePending"],
        (1 << 5) | R["notAuthored"],
        (3 << 5) | R["noEvidenceCaptured"],
    )


# --- 070–110: cells, slices, tallies -------------------------------------------------------

RECORDS = "doc_id INTEGER, intent VARCHAR, provider VARCHAR, model VARCHAR, host_key VARCHAR, \
exclusion_detail VARCHAR, exclusion_class VARCHAR, failure_category VARCHAR, \
chain_version INTEGER, measurements_schema_version INTEGER, signature BIGINT, \
latency_2 DOUBLE, latency_3 DOUBLE, latency_4 DOUBLE"


def test_070_cells_sum_latency_exactly(con: duckdb.DuckDBPyConnection) -> None:
    temp(
        con,
        "a_records",
        RECORDS,
        [
            (1, "i", None, None, None, None, None, "setup", 12, 1, 7, 0.1, None, None),
            (1, "i", None, None, None, None, None, "setup", 12, 1, 7, 0.2, None, None),
            (
                1,
                "i",
                None,
                None,
                None,
                "cancelled",
                "lifecycle",
                None,
                None,
                None,
                None,
                None,
                None,
                None,
            ),
        ],
    )
    run(con, "070")
    got = rows(
        con,
        """SELECT exclusion_class, failure_category, signature, trials,
        latency_2_count, CAST(latency_2_total AS DOUBLE), latency_2_min, latency_2_max
        FROM a_cells ORDER BY ALL""",
    )
    assert got == [
        ("lifecycle", None, None, 1, 0, None, None, None),
        (None, "setup", 7, 2, 2, 0.3, 0.1, 0.2),
    ]  # 0.1 + 0.2 summed exactly


CELLS = "doc_id INTEGER, intent VARCHAR, provider VARCHAR, model VARCHAR, host_key VARCHAR, \
exclusion_class VARCHAR, failure_category VARCHAR, signature BIGINT, trials BIGINT, \
latency_2_count BIGINT, latency_2_total DECIMAL(38, 9), latency_2_min DOUBLE, \
latency_2_max DOUBLE, latency_3_count BIGINT, latency_3_total DECIMAL(38, 9), \
latency_3_min DOUBLE, latency_3_max DOUBLE, latency_4_count BIGINT, \
latency_4_total DECIMAL(38, 9), latency_4_min DOUBLE, latency_4_max DOUBLE"


def cell(
    intent: str | None,
    provider: str | None,
    model: str | None,
    host: str | None,
    cls: str | None,
    category: str | None,
    signature: int | None,
    trials: int,
    latency_3: float | None = None,
) -> list[Any]:
    lat: list[Any] = [0, None, None, None] * 3
    if latency_3 is not None:
        lat[4:8] = [trials, latency_3 * trials, latency_3, latency_3]
    return [1, intent, provider, model, host, cls, category, signature, trials, *lat]


def _slices(con: duckdb.DuckDBPyConnection, cells: list[list[Any]], **caps: int) -> None:
    temp(
        con,
        "a_docs",
        "doc_id INTEGER, run_id VARCHAR, chain_source VARCHAR, analyzer_version INTEGER",
        [(1, "r", "derived", 12)],
    )
    temp(con, "a_cells", CELLS, cells)
    temp(
        con,
        "a_trials",
        TRIALS,
        [
            trial_row("r", 1, trial_id="z", iteration_number=None, host_key="h", host_name="late"),
            trial_row(
                "r",
                2,
                trial_id="b",
                iteration_number=2,
                host_key="h",
                host_name="second",
                execution_engine="emulated",
            ),
            trial_row("r", 3, trial_id="a", iteration_number=2, host_key="h", host_name="first"),
        ],
    )
    run(con, "080", **caps)


def test_080_slices_marginals_ranks_and_host_metadata(con: duckdb.DuckDBPyConnection) -> None:
    _slices(
        con,
        [
            cell("b", "p", "m", "h", None, "setup", 1, 2),
            cell(None, "p", "m", None, None, "selection", 1, 1),
            cell("a", None, None, None, "lifecycle", None, None, 1),
            cell("a", None, None, None, None, "bogus", 1, 1),
        ],
    )
    got = rows(
        con,
        """SELECT slice_index, slice_dimension, intent, provider, host_key,
        host_name, execution_engine, included_trials, excluded_lifecycle, failure_categories,
        retained FROM a_slices ORDER BY slice_index""",
    )
    assert got == [
        (
            0,
            "overall",
            None,
            None,
            None,
            None,
            None,
            4,
            1,
            [{"category": "setup", "count": 2}, {"category": "selection", "count": 1}],
            True,
        ),
        (1, "intent", "a", None, None, None, None, 1, 1, [], True),
        (2, "intent", "b", None, None, None, None, 2, 0, [{"category": "setup", "count": 2}], True),
        (
            3,
            "intent",
            None,
            None,
            None,
            None,
            None,
            1,
            0,
            [{"category": "selection", "count": 1}],
            True,
        ),
        (
            4,
            "model",
            None,
            "p",
            None,
            None,
            None,
            3,
            0,
            [{"category": "setup", "count": 2}, {"category": "selection", "count": 1}],
            True,
        ),
        (
            5,
            "host",
            None,
            None,
            "h",
            "first",
            None,
            2,
            0,
            [{"category": "setup", "count": 2}],
            True,
        ),
    ]


def test_080_cap_keeps_largest_then_records_distinct_values(
    con: duckdb.DuckDBPyConnection,
) -> None:
    _slices(
        con,
        [
            cell(i, None, None, None, None, None, 1, n)
            for i, n in (("x", 1), ("y", 3), ("z", 2), (None, 2))
        ],
        max_intent_slices=2,
    )
    got = rows(
        con,
        """SELECT intent, retained, slice_index, distinct_values FROM a_slices
        WHERE slice_dimension = 'intent' ORDER BY slice_index""",
    )
    # y (3) first; z and unlabelled tie at 2: the sort key decides (unlabelled sorts last)
    assert got == [("y", True, 1, 4), ("z", True, 2, 4), ("x", False, 3, 4), (None, False, 4, 4)]


def test_080_overall_exists_without_trials(con: duckdb.DuckDBPyConnection) -> None:
    _slices(con, [])
    assert rows(con, "SELECT slice_dimension, included_trials, retained FROM a_slices") == [
        ("overall", 0, True)
    ]


def test_090_to_110_tallies_from_signatures(con: duckdb.DuckDBPyConnection) -> None:
    passed = sig(*[(4 << 5) | R["observed"]] * 6)
    dropped = sig(
        (4 << 5) | R["observed"],
        (5 << 5) | R["toolsListFailed"],
        *[(2 << 5) | R["earlierStageFailed"]] * 3,
        (1 << 5) | R["notAuthored"],
    )
    undecided = sig(*[(4 << 5) | R["observed"]] * 5, (6 << 5) | R["judgePending"])
    _slices(
        con,
        [
            cell("i", None, None, None, None, None, passed, 2, latency_3=100.0),
            cell("j", None, None, None, None, None, dropped, 1),
            cell("j", None, None, None, None, None, undecided, 1, latency_3=300.0),
            cell("j", None, None, None, "lifecycle", None, None, 5),
        ],
    )
    run(con, "090")
    run(con, "100")
    run(con, "110")
    overall = rows(
        con,
        """SELECT stage, applicable, reached, not_reached, reach_unknown,
        measured, passed, failed, not_measured, not_applicable, reasons, latency_count,
        latency_total_ms, latency_min_ms, latency_max_ms FROM a_slice_stages
        WHERE slice_index = 0 ORDER BY stage_index""",
    )
    o = R["observed"] - 1
    assert overall[0] == (
        "connection",
        4,
        4,
        0,
        0,
        4,
        4,
        0,
        0,
        0,
        [{"reason_index": o, "count": 4}],
        0,
        None,
        None,
        None,
    )
    assert overall[1][:10] == ("discovery", 4, 4, 0, 0, 4, 3, 1, 0, 0)
    assert overall[3] == (
        "call",
        4,
        3,
        1,
        0,
        3,
        3,
        0,
        0,
        0,
        [
            {"reason_index": R["earlierStageFailed"] - 1, "count": 1},
            {"reason_index": o, "count": 3},
        ],
        3,
        500.0,
        100.0,
        300.0,
    )
    assert overall[5][:10] == ("userValue", 3, 3, 0, 0, 2, 2, 0, 1, 1)
    intent_j = rows(
        con,
        """SELECT count(*), sum(applicable) FROM a_slice_stages
        WHERE slice_dimension = 'intent' AND intent = 'j'""",
    )
    assert intent_j == [(6, 11)]


def test_110_latency_total_stays_within_its_bounds(con: duckdb.DuckDBPyConnection) -> None:
    """A total rounded to a double may fall an ulp outside [min·n, max·n]; it is kept in."""
    third = 1 / 3
    _slices(con, [cell("i", None, None, None, None, None, 4 << 5, 3, latency_3=third)])
    run(con, "090")
    run(con, "100")
    run(con, "110")
    ((n, total, lo, hi),) = rows(
        con,
        """SELECT latency_count, latency_total_ms, latency_min_ms,
        latency_max_ms FROM a_slice_stages WHERE slice_index = 0 AND stage_index = 3""",
    )
    assert lo * n <= total <= hi * n


# --- 120–140: setup, document facts, JSON --------------------------------------------------


def test_120_setup_tallies(con: duckdb.DuckDBPyConnection) -> None:
    insert_setup(
        con,
        [
            SetupCopy(
                "a", outcome="failed", attribution="theirs", egress_verified=True, duration_ms=50.0
            ),
            SetupCopy(
                "a", outcome="failed", attribution="theirs", egress_verified=True, duration_ms=50.0
            ),
            SetupCopy("b", outcome="ok", duration_ms=math.nan),
            SetupCopy("a", phase="discovery", outcome="failed", attribution="theirs"),
            SetupCopy("b", phase="discovery", outcome="ok", duration_ms=-1.0),
            SetupCopy("a", phase="resources", outcome="failed"),
            SetupCopy("z", run_id="other", outcome="failed"),
        ],
    )
    temp(con, "a_target_runs", "run_id VARCHAR", [("run-1",)])
    run(con, "120")
    assert rows(
        con,
        """SELECT phase, phase_index, unique_attempts, failed_attempts,
        server_attributed_failures, impacted_trials, latency_ms FROM a_setup ORDER BY ALL""",
    ) == [
        ("connection", 1, 1, 1, 1, 1, 50.0),
        ("discovery", 2, 1, 1, 0, 1, None),  # egress not verified; no usable duration
    ]


def test_130_doc_facts(con: duckdb.DuckDBPyConnection) -> None:
    temp(con, "a_target_runs", "run_id VARCHAR", [("r",)])
    temp(
        con,
        "a_docs",
        "doc_id INTEGER, run_id VARCHAR, chain_source VARCHAR, analyzer_version INTEGER",
        [(1, "r", "derived", 12), (2, "r", "producer", 12)],
    )
    temp(
        con,
        "a_run_facts",
        RUN_FACTS,
        [("r", "s", "g", None, None, "completed", True, None, None, None)],
    )
    temp(
        con,
        "a_records",
        RECORDS,
        [
            (1, None, None, None, None, None, None, None, 12, 1, 0, None, None, None),
            (
                1,
                None,
                None,
                None,
                None,
                "timedOut",
                "lifecycle",
                None,
                None,
                None,
                None,
                None,
                None,
                None,
            ),
            (
                1,
                None,
                None,
                None,
                None,
                "skipped",
                "lifecycle",
                None,
                None,
                None,
                None,
                None,
                None,
                None,
            ),
            (2, None, None, None, None, None, None, None, 11, 1, 0, None, None, None),
            (2, None, None, None, None, None, None, None, 12, 1, 0, None, None, None),
        ],
    )
    temp(
        con,
        "a_slice_stage_reasons",
        "doc_id INTEGER, slice_index INTEGER, stage_index TINYINT, reason TINYINT, "
        "not_applicable BIGINT, not_reached BIGINT, reach_unknown BIGINT, passed BIGINT, "
        "failed BIGINT, not_measured BIGINT",
        [
            (2, 0, 5, R["judgePending"], 0, 0, 0, 0, 0, 1),
            (1, 0, 5, R["judgePending"], 1, 0, 0, 0, 0, 0),  # not applicable: owes nothing
        ],
    )
    con.execute(
        "INSERT INTO core.analytics_runs (run_id, chain_source, analyzer_version, "
        "stage_analyzer_version, measurements_schema_version, materialization_state, "
        "included_trials, total_trials, excluded_lifecycle, excluded_integrity, "
        "excluded_version, excluded_trial_detail, created_at, updated_at) VALUES "
        "('r', 'derived', 12, 12, 1, 'final', 0, 0, 0, 0, 0, [], "
        "to_timestamp(1), to_timestamp(1))"
    )
    run(con, "130")
    got = rows(
        con,
        """SELECT doc_id, total_trials, included_trials, excluded_lifecycle,
        excluded_trial_detail, stage_analyzer_version, source_stage_analyzer_versions,
        materialization_state, epoch_ms(created_at), epoch_ms(updated_at)
        FROM a_doc_facts ORDER BY doc_id""",
    )
    assert got == [
        (
            1,
            3,
            1,
            2,
            [{"detail": "skipped", "count": 1}, {"detail": "timedOut", "count": 1}],
            12,
            None,
            "final",
            1000,
            NOW_MS,
        ),
        (2, 2, 2, 0, [], 12, [11, 12], "provisional", NOW_MS, NOW_MS),
    ]


def test_140_document_json_is_canonical(con: duckdb.DuckDBPyConnection) -> None:
    """The JSON statement, fed by the real pipeline on a small store, writes the bytes the
    strict model writes back (every test of this package checks this too)."""
    insert_trials(
        con,
        [
            TrialSpec(
                "a",
                intent='quote"d',
                provider="p",
                model="m",
                host_key="h",
                host_name="Host\u2028",
                latency={3: 0.25},
                failure_category="setup",
            ),
            TrialSpec("b", status="cancelled", chain=None, outcome=False),
        ],
    )
    insert_setup(con, [SetupCopy("a", duration_ms=12.5)])
    params = analytics.parameters(None, NOW_MS)
    for sql in sqlfiles.folder("analytics"):
        if sql.name < "analytics/200_":
            con.execute(sql.text, sql.bind(params))
    (text,) = rows(con, "SELECT document FROM a_documents")[0]
    assert StageAnalyticsV1.from_json(text).to_json() == text
    doc = json.loads(text)
    # the cancelled trial creates the unlabelled intent slice too (excluded trials do, §5.2)
    assert doc["slices"][2]["slice"] == {"dimension": "intent", "intent": None}
    assert doc["slices"][4]["slice"] == {
        "dimension": "host",
        "hostKey": "h",
        "hostName": "Host\u2028",
    }
    assert doc["setup"][0]["latency"]["totalMs"] == 12.5
    assert list(doc) == [
        "schemaVersion",
        "measurementUnit",
        "runId",
        "suiteId",
        "runGroupId",
        "configRevision",
        "caseSetFingerprint",
        "runCompletedAt",
        "sourceIterationCount",
        "stageAnalyzerVersion",
        "measurementsSchemaVersion",
        "materializationState",
        "createdAt",
        "updatedAt",
        "includedTrials",
        "excludedTrials",
        "totalTrials",
        "excludedTrialDetail",
        "slices",
        "setup",
    ]
