"""`Store.sql` reads the store and nothing else: escapes and changes are refused (issue 11)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import duckdb
import polars as pl
import pytest
from sandbox_cases import CHANGES, ESCAPES, READS, outside_files, snapshot

import valuechain
from valuechain.errors import StoreError, UsageError
from valuechain.store import Database
from valuechain.store.sandbox import a_statement, check_reads_only


@pytest.fixture(scope="module")
def store_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One store for the module: no test may change it, and each checks that none did."""
    folder = tmp_path_factory.mktemp("store")
    export = folder / "a.json"
    spans = [
        {"traceId": "5b8efff798038103d269b633813fc60c", "spanId": f"{n:016x}", "name": f"span-{n}"}
        for n in (1, 2)
    ]
    export.write_text(json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]}))
    with valuechain.open(folder / "s.duckdb") as store:
        assert store.import_paths([export]).ok
    return folder / "s.duckdb"


@pytest.fixture(params=[False, True], ids=["read-write", "read-only"])
def opened(request: pytest.FixtureRequest, store_file: Path) -> Iterator[valuechain.Store]:
    with valuechain.open(store_file, read_only=request.param) as store:
        yield store


def _intact(store: valuechain.Store) -> None:
    assert store.db.fetch_one("SELECT count(*) FROM core.spans") == (2,)
    assert store.db.fetch_one("SELECT count(*) FROM core.sources") == (1,)
    assert store.sql("SELECT count(*) AS n FROM spans").item() == 2


@pytest.mark.parametrize(("name", "query", "fragment"), ESCAPES, ids=[e[0] for e in ESCAPES])
def test_sql_reaches_nothing_beyond_the_store(
    opened: valuechain.Store, tmp_path: Path, name: str, query: str, fragment: str
) -> None:
    names = outside_files(tmp_path / "outside")
    before = snapshot(tmp_path / "outside")
    secret_frame = pl.DataFrame({"password": ["hunter2"]})  # a replacement scan would find it
    with pytest.raises(UsageError) as refused:
        opened.sql(query.format(**names))
    assert fragment in refused.value.render()
    assert "hunter2" not in refused.value.render() and secret_frame.height == 1
    assert snapshot(tmp_path / "outside") == before
    _intact(opened)


@pytest.mark.parametrize(("query", "fragment"), CHANGES, ids=[c[0] for c in CHANGES])
def test_sql_never_changes_the_store(opened: valuechain.Store, query: str, fragment: str) -> None:
    with pytest.raises(UsageError) as refused:
        opened.sql(query)
    assert fragment in refused.value.render()
    assert "the store is opened read-only here" in refused.value.render()
    _intact(opened)


@pytest.mark.parametrize("query", READS)
def test_reads_keep_working(opened: valuechain.Store, query: str) -> None:
    assert opened.sql(query).height >= 1
    _intact(opened)


def test_the_issue_11_repro_leaves_the_ledger_and_the_spans_together(store_file: Path) -> None:
    with pytest.raises(UsageError, match="DELETE"):
        valuechain.open(store_file).sql("DELETE FROM core.spans WHERE true")
    with valuechain.open(store_file) as store:  # opens: ledger and spans still agree
        _intact(store)


def test_a_read_with_a_side_effect_is_rolled_back(opened: valuechain.Store) -> None:
    before = opened.db.fetch_one("SELECT current_setting('memory_limit')")
    assert opened.sql("SELECT count(*) AS n FROM checkpoint()").height == 1
    assert opened.db.fetch_one("SELECT current_setting('memory_limit')") == before
    _intact(opened)


def test_parameters_bind(opened: valuechain.Store) -> None:
    frame = opened.sql("SELECT count(*) AS n FROM spans WHERE name = $name", {"name": "span-1"})
    assert frame.item() == 1


def test_only_reads_pass_the_parser_gate() -> None:
    check_reads_only("SELECT 1")
    with pytest.raises(UsageError, match="no statement"):
        check_reads_only("-- nothing but a comment")
    with pytest.raises(UsageError, match="2 statements given; one at a time"):
        check_reads_only("SELECT 1; SELECT 2")
    with pytest.raises(UsageError, match="syntax error") as syntax:
        check_reads_only("SELEC 1")
    assert "read-only" not in syntax.value.render()  # the hint only where it applies


def test_errors_give_the_hint_that_applies(opened: valuechain.Store) -> None:
    with pytest.raises(UsageError) as missing:
        opened.sql("SELECT * FROM no_such_view")
    assert "no_such_view" in missing.value.render() and "SHOW TABLES" in missing.value.render()
    assert "read-only" not in missing.value.render()
    with pytest.raises(UsageError) as blocked:
        opened.sql("SELECT * FROM read_text('/etc/hostname')")
    assert "--allow-files" in blocked.value.render()


def test_allow_files_opens_one_folder_for_reading(store_file: Path, tmp_path: Path) -> None:
    names = outside_files(tmp_path / "outside")
    allowed = tmp_path / "allowed"
    allowed.mkdir()
    (allowed / "cases.csv").write_text("case,n\na,1\nb,2\n")
    (allowed / "link.csv").symlink_to(names["secret_csv"])
    before = snapshot(tmp_path)
    with valuechain.open(store_file, read_only=True, allow_files=allowed) as store:
        read = store.sql(f"SELECT sum(n) AS n FROM read_csv('{allowed}/cases.csv')")
        assert read.item() == 3
        assert store.sql(f"SELECT count(*) FROM '{allowed}/cases.csv'").item() == 2
        for escape in (
            f"SELECT * FROM read_text('{allowed}/../outside/secret.csv')",  # out by ..
            f"SELECT * FROM read_text('{allowed}/link.csv')",  # out by a symlink
            f"SELECT * FROM read_text('{names['secret_csv']}')",
            f"COPY (SELECT 1) TO '{allowed}/written.csv'",  # the folder is for reading
        ):
            with pytest.raises(UsageError):
                store.sql(escape)
    assert snapshot(tmp_path) == before


def test_the_stores_own_spill_folder_is_no_way_out(opened: valuechain.Store) -> None:
    beside = Path(opened.path).with_name("a.json")  # the export, next to the store
    assert beside.is_file()
    with pytest.raises(UsageError, match="disabled by configuration"):
        opened.sql(f"SELECT * FROM read_text('{opened.path}.tmp/../{beside.name}')")


def test_every_connection_is_sandboxed_not_only_user_sql(store_file: Path) -> None:
    with Database(store_file) as db:
        with pytest.raises(duckdb.PermissionException):
            db.con.execute("SELECT * FROM read_text('/etc/hostname')")
        with pytest.raises(duckdb.InvalidInputException, match="locked"):
            db.con.execute("SET enable_external_access = true")


def test_a_second_handle_cannot_widen_the_first(store_file: Path, tmp_path: Path) -> None:
    with valuechain.open(store_file) as first:
        with pytest.raises(StoreError, match="already open in this process"):
            valuechain.open(store_file, allow_files=tmp_path)
        _intact(first)


# Every statement type DuckDB names, as the refusal names it: "an" before a vowel's sound.
# (SELECT passes; PRAGMA and CALL have a message of their own.)
NAMED = {
    "INVALID": "an INVALID statement",
    "INSERT": "an INSERT statement",
    "UPDATE": "an UPDATE statement",
    "CREATE": "a CREATE statement",
    "DELETE": "a DELETE statement",
    "PREPARE": "a PREPARE statement",
    "EXECUTE": "an EXECUTE statement",
    "ALTER": "an ALTER statement",
    "TRANSACTION": "a TRANSACTION statement",
    "COPY": "a COPY statement",
    "ANALYZE": "an ANALYZE statement",
    "VARIABLE_SET": "a SET VARIABLE statement",
    "CREATE_FUNC": "a CREATE FUNCTION statement",
    "EXPLAIN": "an EXPLAIN statement",
    "DROP": "a DROP statement",
    "EXPORT": "an EXPORT statement",
    "VACUUM": "a VACUUM statement",
    "SET": "a SET statement",
    "LOAD": "a LOAD statement",
    "RELATION": "a RELATION statement",
    "EXTENSION": "an EXTENSION statement",
    "LOGICAL_PLAN": "a LOGICAL PLAN statement",
    "ATTACH": "an ATTACH statement",
    "DETACH": "a DETACH statement",
    "MULTI": "a MULTI statement",
    "COPY_DATABASE": "a COPY DATABASE statement",
    "MERGE_INTO": "a MERGE INTO statement",
}


def test_every_refusable_statement_type_is_named_here() -> None:
    refusable = {t.name for t in duckdb.StatementType} - {"SELECT", "PRAGMA", "CALL"}
    assert refusable == set(NAMED)  # a new DuckDB type gets its article decided here


@pytest.mark.parametrize(("kind", "named"), sorted(NAMED.items()))
def test_a_refusal_names_the_statement_with_its_article(kind: str, named: str) -> None:
    assert a_statement(kind) == named


@pytest.mark.parametrize(
    ("word", "article"), [("UNION", "a"), ("USE", "a"), ("UPDATE", "an"), ("UNPIVOT", "an")]
)
def test_a_u_keyword_takes_the_article_of_its_sound(word: str, article: str) -> None:
    assert a_statement(word) == f"{article} {word} statement"


@pytest.mark.parametrize(
    ("sql", "said"),
    [
        ("ATTACH 'elsewhere.duckdb' AS other", "an ATTACH statement is refused"),
        ("UPDATE core.spans SET name = 'x'", "an UPDATE statement is refused"),
        ("DELETE FROM core.spans", "a DELETE statement is refused"),
    ],
)
def test_the_refusal_reads_as_english(sql: str, said: str) -> None:
    with pytest.raises(UsageError) as refused:
        check_reads_only(sql)
    assert refused.value.problem.startswith(said)
