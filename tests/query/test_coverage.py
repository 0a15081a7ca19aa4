"""Coverage (issue 19): what each suite's checks can decide, link by link, and the Q5 lint.

Suites cut from the TRACE-FORMAT §3.9 example (coverage_suites.py) cover no link, some links
(the seed's own example: matcher, `noToolErrors`, `responseContains` — nothing for Tool call)
and every authorable link; a lint suite carries what Q5 asks to flag. The numbers are the
view's (`suite_coverage`); `Store.coverage` only picks the runs.
"""

from __future__ import annotations

import io
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb
import orjson
import polars as pl
import pytest
from coverage_suites import CaseChecks, check, import_suites, suite_export
from rich.console import Console

import valuechain
from valuechain.contract.coverage import OBSERVATION_KINDS, CoverageRule, SuiteCoverage
from valuechain.contract.predicates import KIND_TABLE, PREDICATE_STAGE
from valuechain.contract.vocab import Stage
from valuechain.derive.routing import routed_stage
from valuechain.errors import UsageError
from valuechain.report.coverage import coverage_json, lint_json, render_coverage

GOLDEN = Path(__file__).resolve().parents[2] / "fixtures" / "golden" / "coverage"
EARLY, LATE = "2026-07-01T10:00:00Z", "2026-07-02T10:00:00Z"

NONE = {"C1": CaseChecks(matcher=False)}
SOME = {  # the seed's example case, plus a negative case with an advisory observation
    "C1": CaseChecks(
        predicates=[
            check("noToolErrors"),
            check("responseContains"),
            check("argumentsMatchToolSchema", "advisory"),  # a suite-standard preset: advisory
        ],
        argument_matching="ignore",
    ),
    "C2": CaseChecks(
        predicates=[
            check("toolNeverCalled"),
            check("noDeprecatedToolCalled", "advisory"),
            check("toolCalledWith", "advisory"),  # advisory: stays a row, files at selection
        ]
    ),
}
ALL = {
    "C1": CaseChecks(
        predicates=[
            check("toolDescriptionsPresent"),
            check("argumentsMatchToolSchema"),
            check("noToolErrors"),
            check("responseContains"),
        ],
        judge=True,
        expected_output=True,
    ),
    "C2": CaseChecks(predicates=[check("toolNeverCalled"), check("finalAssistantMessageNonEmpty")]),
}
LINT = {
    "C1": CaseChecks(predicates=[check("noToolErrors")], matcher=False),  # Q5: nothing grades UV
    "C2": CaseChecks(
        predicates=[
            check("toolCalledWith"),  # a gating one should be matcher expectations
            check("noEndingQuestion", None),  # an observation without a role: gating
            check("toolErrorNamesInput", "advisory"),  # an observation as it should be
        ]
    ),
}


@pytest.fixture(scope="module")
def store(shared: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[valuechain.Store]:
    path = tmp_path_factory.mktemp("coverage") / "store.duckdb"
    import_suites(
        path,
        {
            "none": suite_export(shared, "s_none", "r_none", NONE, completed=EARLY),
            "some_old": suite_export(shared, "s_some", "r_some_old", NONE, completed=EARLY),
            "some": suite_export(shared, "s_some", "r_some", SOME, completed=LATE),
            "all": suite_export(shared, "s_all", "r_all", ALL, completed=EARLY),
            "lint": suite_export(shared, "s_lint", "r_lint", LINT, completed=EARLY),
        },
    )
    with valuechain.open(path, read_only=True) as opened:
        yield opened


def links(store: valuechain.Store, run: str) -> dict[str, dict[str, Any]]:
    return {r["stage"]: r for r in store.coverage(run=run).iter_rows(named=True)}


# (run, stage) → (authoring cases, check kinds, advisory, unmeasured by suite)
EXPECTED = [
    ("r_none", "connection", 0, [], [], False),
    ("r_none", "discovery", 0, [], [], False),
    ("r_none", "selection", 0, [], [], True),
    ("r_none", "call", 0, [], [], True),
    ("r_none", "response", 0, [], [], True),
    ("r_none", "userValue", 0, [], [], True),
    ("r_some", "connection", 0, [], [], False),
    ("r_some", "discovery", 0, [], [], False),
    (
        "r_some",
        "selection",
        2,
        ["toolCalls:match", "toolNeverCalled"],
        ["noDeprecatedToolCalled", "toolCalledWith"],
        False,
    ),
    ("r_some", "call", 0, [], ["argumentsMatchToolSchema"], True),
    ("r_some", "response", 1, ["noToolErrors"], [], False),
    ("r_some", "userValue", 1, ["responseContains"], [], False),
    ("r_all", "connection", 0, [], [], False),
    ("r_all", "discovery", 1, ["toolDescriptionsPresent"], [], False),
    ("r_all", "selection", 2, ["toolCalls:match", "toolNeverCalled"], [], False),
    ("r_all", "call", 1, ["argumentsMatchToolSchema", "toolCalls:arguments"], [], False),
    ("r_all", "response", 1, ["noToolErrors"], [], False),
    (
        "r_all",
        "userValue",
        2,
        ["finalAssistantMessageNonEmpty", "judge:goalCompletion", "responseContains"],
        [],
        False,
    ),
    ("r_lint", "selection", 1, ["toolCalls:match"], [], False),
    ("r_lint", "call", 0, [], [], True),  # C2 is negative: no expected call to match
    ("r_lint", "response", 1, ["noToolErrors"], ["toolErrorNamesInput"], False),
    ("r_lint", "userValue", 1, ["toolCalledWith"], ["noEndingQuestion"], False),
]


@pytest.mark.parametrize(("run", "stage", "cases", "kinds", "advisory", "unmeasured"), EXPECTED)
def test_what_each_link_is_decided_by(
    store: valuechain.Store,
    run: str,
    stage: str,
    cases: int,
    kinds: list[str],
    advisory: list[str],
    unmeasured: bool,
) -> None:
    row = links(store, run)[stage]
    assert (row["authoring_cases"], row["check_kinds"], row["advisory"]) == (cases, kinds, advisory)
    assert row["unmeasured_by_suite"] is unmeasured


def test_the_seeds_example_leaves_tool_call_unmeasured(store: valuechain.Store) -> None:
    """Seed 000: matcher + noToolErrors + responseContains says nothing about Tool call; the
    fix it names, argumentsMatchToolSchema, is suggested — an advisory one does not count."""
    call = links(store, "r_some")["call"]
    assert call["unmeasured_by_suite"]
    assert call["suggested_kinds"] == ["argumentsMatchToolSchema", "toolInputMatches"]
    assert call["advisory"] == ["argumentsMatchToolSchema"]


def test_connection_is_the_runners_never_a_gap(store: valuechain.Store) -> None:
    for run in ("r_none", "r_some", "r_all"):
        connection = links(store, run)["connection"]
        assert connection["runner_decided"] and not connection["unmeasured_by_suite"]
        assert connection["suggested_kinds"] == []  # nothing can be authored there
        assert connection["measured"] > 0


def test_discovery_suggests_catalogue_checks_until_one_is_authored(
    store: valuechain.Store,
) -> None:
    catalogue = [k for k, v12, _ in KIND_TABLE if v12 == "discovery" and k not in OBSERVATION_KINDS]
    assert links(store, "r_none")["discovery"]["suggested_kinds"] == catalogue
    assert links(store, "r_all")["discovery"]["suggested_kinds"] == []


def test_suggestions_are_the_links_own_gating_kinds(store: valuechain.Store) -> None:
    for stage, row in links(store, "r_none").items():
        expected = [
            kind
            for kind, link in PREDICATE_STAGE[12].items()
            if link == stage and kind not in OBSERVATION_KINDS
        ]
        assert row["suggested_kinds"] == (expected if stage != "connection" else [])
    assert "noRepeatedIdenticalCall" not in links(store, "r_none")["call"]["suggested_kinds"]


def test_trial_counts_are_the_derived_chains_states(store: valuechain.Store) -> None:
    frame = store.coverage(run="r_some")
    states = store.sql(
        "SELECT stage, state, count(*) AS n FROM stage_chain "
        "WHERE run_id = 'r_some' AND source = 'derived' AND analyzer_version = 12 GROUP BY ALL"
    )
    count = {(r["stage"], r["state"]): r["n"] for r in states.iter_rows(named=True)}
    for row in frame.iter_rows(named=True):
        s = row["stage"]
        assert row["measured"] == count.get((s, "passed"), 0) + count.get((s, "failed"), 0)
        assert row["not_applicable"] == count.get((s, "notApplicable"), 0)
        assert row["not_measured"] == count.get((s, "notMeasured"), 0)
        assert row["not_reached"] == count.get((s, "notReached"), 0)
        buckets = ("measured", "not_applicable", "not_measured", "not_reached")
        assert sum(row[b] for b in buckets) == row["trials"] == 8


def test_a_suite_without_checks_measures_nothing_it_authored(store: valuechain.Store) -> None:
    rows = links(store, "r_none")
    assert rows["selection"]["measured"] == 0 and rows["selection"]["not_measured"] > 0
    for stage in ("call", "response", "userValue"):  # nothing authored: not applicable
        assert rows[stage]["not_applicable"] == rows[stage]["trials"] == 4


def test_default_reads_each_suites_latest_run(store: valuechain.Store) -> None:
    runs = store.coverage().select("suite_id", "run_id").unique(maintain_order=True)
    assert runs.rows() == [
        ("s_all", "r_all"),
        ("s_lint", "r_lint"),
        ("s_none", "r_none"),
        ("s_some", "r_some"),  # completed later than r_some_old
    ]
    assert store.coverage(suite="s_some")["run_id"].unique().to_list() == ["r_some"]
    older = store.coverage(run="r_some_old")
    assert older["run_id"].unique().to_list() == ["r_some_old"]
    assert older.height == 6 and older["stage"].to_list()[0] == "connection"


@pytest.mark.parametrize(
    ("kwargs", "problem"),
    [
        ({"suite": "s_some", "run": "r_some"}, "name one or the other"),
        ({"run": "r_missing"}, "no eval run with this id"),
        ({"suite": "s_missing"}, "no eval run of this suite"),
    ],
)
def test_bad_requests_are_usage_errors(
    store: valuechain.Store, kwargs: dict[str, str], problem: str
) -> None:
    with pytest.raises(UsageError, match=problem):
        store.coverage(**kwargs)
    with pytest.raises(UsageError, match=problem):
        store.coverage_lint(**kwargs)


# --------------------------------------------------------------------------- observations
def test_observation_kinds_are_never_counted(store: valuechain.Store) -> None:
    """Gating or advisory, an observation kind is listed beside its link, never covering it."""
    checks = store.sql("SELECT * FROM core.coverage_checks WHERE observation")
    assert checks.height > 0
    assert checks["decides"].is_null().all()
    frame = store.coverage()
    for row in frame.iter_rows(named=True):
        assert not set(row["check_kinds"]) & OBSERVATION_KINDS


# --------------------------------------------------------------------------- the lint
def test_the_lint_names_every_q5_case(store: valuechain.Store) -> None:
    lint = store.coverage_lint(run="r_lint")
    assert lint.select("case_id", "rule", "stage", "kinds", "trials").rows() == [
        ("c_f0rec4stParis", CoverageRule.USER_VALUE_UNGRADABLE, "userValue", ["noToolErrors"], 4),
        ("c_n0DeleteMeta", CoverageRule.GATING_OBSERVATION, "userValue", ["noEndingQuestion"], 4),
        ("c_n0DeleteMeta", CoverageRule.TOOL_CALLED_WITH_ROW, "userValue", ["toolCalledWith"], 4),
    ]


def test_the_ungradable_link_is_permanently_unmeasured(store: valuechain.Store) -> None:
    states = store.sql(
        "SELECT DISTINCT c.state FROM stage_chain c JOIN trials t USING (trial_id, run_id) "
        "WHERE t.run_id = 'r_lint' AND t.case_id = 'c_f0rec4stParis' AND c.stage = 'userValue' "
        "AND c.source = 'derived'"
    )
    assert set(states["state"]) <= {"notMeasured", "notReached"}


def test_an_advisory_check_can_make_user_value_ungradable(store: valuechain.Store) -> None:
    """Q5: assertionCount counts an advisory toolCalledWith (not a routed selection kind), so
    C2 of r_some has userValue applicable that nothing of it can grade."""
    lint = store.coverage_lint(run="r_some")
    assert lint.select("case_id", "rule", "kinds").rows() == [
        ("c_n0DeleteMeta", CoverageRule.USER_VALUE_UNGRADABLE, ["toolCalledWith"])
    ]


def test_clean_suites_have_no_lint(store: valuechain.Store) -> None:
    for run in ("r_none", "r_all"):
        assert store.coverage_lint(run=run).is_empty()
    assert set(store.coverage_lint()["run_id"]) == {"r_lint", "r_some"}


# --------------------------------------------------------------------------- every kind
@pytest.fixture(scope="module")
def one_kind_each(
    shared: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[valuechain.Store]:
    """One suite per catalogue kind (and one unknown kind): C1 with that one gating check."""
    kinds = [kind for kind, _, _ in KIND_TABLE] + ["someFutureKind"]
    docs = {
        kind: suite_export(
            shared,
            f"s_{kind}",
            f"r_{kind}",
            {"C1": CaseChecks([check(kind)], matcher=False)},
            completed=EARLY,
        )
        for kind in kinds
    }
    merged = docs[kinds[0]]
    scope = merged["resourceSpans"][0]["scopeSpans"][0]
    for kind in kinds[1:]:
        scope["spans"] += docs[kind]["resourceSpans"][0]["scopeSpans"][0]["spans"]
    path = tmp_path_factory.mktemp("kinds") / "store.duckdb"
    import_suites(path, {"kinds": merged})
    with valuechain.open(path, read_only=True) as opened:
        yield opened


@pytest.mark.parametrize("kind", [k for k, _, _ in KIND_TABLE] + ["someFutureKind"])
def test_a_gating_kind_decides_the_link_it_routes_to(
    one_kind_each: valuechain.Store, kind: str
) -> None:
    """The link a kind covers is derivation's route (CONTRACT §2.5), observations excepted."""
    rows = links(one_kind_each, f"r_{kind}")
    deciding = [s for s, r in rows.items() if kind in r["check_kinds"]]
    beside = [s for s, r in rows.items() if kind in r["advisory"]]
    if kind in OBSERVATION_KINDS:
        assert (deciding, beside) == ([], [PREDICATE_STAGE[12][kind]])
    else:
        assert (deciding, beside) == ([routed_stage(kind, 12).value], [])


# --------------------------------------------------------------------------- documents
def screen(store: valuechain.Store, **kwargs: Any) -> str:
    console = Console(file=io.StringIO(), width=80, color_system=None, highlight=False)
    console.print(render_coverage(store.coverage(**kwargs), store.coverage_lint(**kwargs)))
    text = console.file.getvalue()  # type: ignore[attr-defined]
    assert isinstance(text, str)
    return text


def assert_golden(name: str, data: bytes, update: bool) -> None:
    """``data`` is the golden file ``name`` (rewritten with --update-golden)."""
    if update:
        (GOLDEN / name).write_bytes(data)
    assert data == (GOLDEN / name).read_bytes()


def test_json_is_golden_and_exactly_the_issues_shape(
    store: valuechain.Store, update_golden: bool
) -> None:
    data = coverage_json(store.coverage())
    assert_golden("suites.json", data, update_golden)
    docs = orjson.loads(data)
    for doc in docs:
        SuiteCoverage.model_validate(doc)
        assert list(doc) == ["suiteId", "runId", "links"]
        assert [link["stage"] for link in doc["links"]] == [s.value for s in Stage]
        for link in doc["links"]:
            assert list(link) == [
                "stage",
                "authoringCases",
                "checkKinds",
                "measured",
                "notApplicable",
                "notMeasured",
                "advisory",
                "unmeasuredBySuite",
                "suggestedKinds",
            ]


def test_lint_json_is_golden(store: valuechain.Store, update_golden: bool) -> None:
    assert_golden("lint.json", lint_json(store.coverage_lint()), update_golden)


def test_table_is_golden_and_fits_80_columns(store: valuechain.Store, update_golden: bool) -> None:
    text = screen(store)
    assert all(len(line) <= 80 for line in text.splitlines())
    assert_golden("suites.txt", text.encode(), update_golden)


def test_the_table_says_unmeasured_and_what_would_measure_it(store: valuechain.Store) -> None:
    text = screen(store, run="r_some")
    assert "Tool call: UNMEASURED BY THIS SUITE" in text
    assert "argumentsMatchToolSchema" in text
    assert "Connection: the runner decides it" in text
    assert "never counted: noDeprecatedToolCalled" in text


def test_an_empty_store_covers_nothing(tmp_path: Path) -> None:
    with valuechain.open(tmp_path / "empty.duckdb") as empty:
        assert empty.coverage().is_empty()
        assert coverage_json(empty.coverage()) == b"[]\n"
        assert isinstance(empty.coverage_lint(), pl.DataFrame)


def test_trials_without_a_current_chain_are_said_not_dropped(
    store: valuechain.Store, tmp_path: Path
) -> None:
    copy = tmp_path / "copy.duckdb"
    shutil.copy(store.path, copy)
    with duckdb.connect(str(copy)) as con:  # as if one trial were derived at 11 only
        con.execute(
            "DELETE FROM core.stage_chain WHERE trial_id = "
            "(SELECT min(trial_id) FROM core.trials WHERE run_id = 'r_none')"
        )
    with valuechain.open(copy, read_only=True) as older:
        connection = links(older, "r_none")["connection"]
        assert connection["trials"] == 4 and connection["measured"] == 3
        assert "1 of 4 trials have no derived chain at analyzer 12" in screen(older, run="r_none")
