"""Operating a store (issue 20): delete a run or a source, purge content, vacuum.

Deletion keeps every other run's funnel identical and the store consistent (the open-time
ledger check); a trace shared by two sources is derived again from what remains, exactly as a
store that only ever held the remaining source derives it. Purging content leaves chains and
funnels unchanged. Every --dry-run changes nothing, byte for byte.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest

from valuechain.errors import UsageError
from valuechain.pipeline.derive import derive_traces
from valuechain.pipeline.imports import import_paths
from valuechain.pipeline.operations import delete, purge_content
from valuechain.store import Database
from valuechain.store.consistency import ledger_mismatches
from valuechain.store.maintenance import vacuum_store
from valuechain.synth import SynthConfig, write_export

Dump = Callable[[Database], dict[str, list[tuple[Any, ...]]]]

# the materialized tables, without their wall-clock stamps
_FUNNEL_TABLES = {
    "analytics_runs": "* EXCLUDE (created_at, updated_at)",
    "analytics_slices": "*",
    "stage_funnel": "*",
    "run_summary": "*",
}


def funnels(db: Database, runs: list[str] | None = None) -> dict[str, list[tuple[Any, ...]]]:
    """Every run's materialized figures (and chains), optionally only of ``runs``."""
    out = {}
    for table, columns in {**_FUNNEL_TABLES, "stage_chain": "*", "trial_outcome": "*"}.items():
        rows = db.con.execute(f"SELECT {columns} FROM core.{table} ORDER BY ALL").fetchall()
        out[table] = [r for r in rows if runs is None or r[0] in runs or r[1] in runs]
    return out


def documents(db: Database) -> dict[tuple[str, str], dict[str, Any]]:
    rows = db.con.execute(
        "SELECT run_id, chain_source, document FROM core.analytics_documents"
    ).fetchall()
    out = {}
    for run, source, text in rows:
        doc = orjson.loads(text)
        doc.pop("createdAt", None)
        doc.pop("updatedAt", None)
        out[(run, source)] = doc
    return out


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two exports: three runs in one file, one run in another."""
    folder = tmp_path_factory.mktemp("ops")
    write_export(
        folder / "a.jsonl", SynthConfig(runs=3, cases=3, models=2, reps=1, seed=3), ndjson=True
    )
    write_export(
        folder / "b.jsonl", SynthConfig(runs=1, cases=2, models=1, reps=2, seed=5), ndjson=True
    )
    with Database(folder / "template.duckdb") as db:
        assert import_paths(db, [folder / "a.jsonl", folder / "b.jsonl"]).ok
    return folder


@pytest.fixture
def store(template: Path, tmp_path: Path) -> Path:
    for name in ("a.jsonl", "b.jsonl"):
        shutil.copy(template / name, tmp_path / name)
    shutil.copy(template / "template.duckdb", tmp_path / "s.duckdb")
    return tmp_path / "s.duckdb"


def _runs(db: Database) -> list[str]:
    return [
        r
        for (r,) in db.con.execute("SELECT DISTINCT run_id FROM core.trials ORDER BY 1").fetchall()
    ]


def _source_path(db: Database, name: str) -> str:
    """The ledger path of the template's source ``name`` (imported from the template folder)."""
    rows = db.con.execute("SELECT path FROM core.sources").fetchall()
    (path,) = [p for (p,) in rows if p.endswith(name)]
    return str(path)


def test_deleting_a_run_keeps_every_other_funnel_identical(store: Path, dump: Dump) -> None:
    with Database(store) as db:
        runs = _runs(db)
        doomed, kept = runs[0], runs[1:]
        before_docs = documents(db)
        before = funnels(db, kept)
        removal = delete(db, run=doomed)
        assert removal.trials > 0 and removal.spans > 0 and removal.runs == 1
        assert removal.sources == 0 and removal.sources_reduced == 1  # a.jsonl holds 3 runs
        assert funnels(db, kept) == before
        after_docs = documents(db)
        assert {k: v for k, v in before_docs.items() if k[0] != doomed} == after_docs
        assert _runs(db) == kept
        assert not ledger_mismatches(db.con)
        gone = db.con.execute(
            "SELECT (SELECT count(*) FROM core.trials WHERE run_id = $r)"
            " + (SELECT count(*) FROM core.analytics_documents WHERE run_id = $r)"
            " + (SELECT count(*) FROM core.stage_chain WHERE run_id = $r)",
            {"r": doomed},
        ).fetchall()
        assert gone == [(0,)]
        (op,) = db.con.execute("SELECT operation, target FROM core.store_operations").fetchall()
        assert op == ("delete", f"run {doomed}")
    with Database(store, read_only=True):  # the ledger check of a read-only open passes too
        pass


def test_deleting_a_source_removes_it_from_the_ledger_and_it_can_come_back(store: Path) -> None:
    with Database(store) as db:
        original = funnels(db)
        path = _source_path(db, "b.jsonl")
        removal = delete(db, source=path)
        assert removal.sources == 1 and removal.traces == removal.trials > 0
        assert not ledger_mismatches(db.con)
        assert db.con.execute("SELECT count(*) FROM core.sources").fetchall() == [(1,)]
        # resources and scopes it alone used went; the other source's stay
        assert db.con.execute(
            "SELECT count(*) FROM core.resources r WHERE NOT EXISTS "
            "(SELECT 1 FROM core.spans s WHERE s.resource_row = r.resource_row)"
        ).fetchall() == [(0,)]
        assert import_paths(db, [path]).sources[0].outcome == "imported"
        assert funnels(db)["stage_chain"] == original["stage_chain"]
        assert funnels(db)["stage_funnel"] == original["stage_funnel"]


def _split(lines: list[bytes]) -> tuple[bytes, bytes]:
    """Two files sharing every trace: the first span of each request in one, the rest in
    the other."""
    first, rest = [], []
    for line in lines:
        request = orjson.loads(line)
        scope = request["resourceSpans"][0]["scopeSpans"][0]
        spans = scope["spans"]
        for part, chosen in ((first, spans[:1]), (rest, spans[1:])):
            scope["spans"] = chosen
            part.append(orjson.dumps(request) + b"\n")
    return b"".join(first), b"".join(rest)


def test_deleting_a_shared_source_derives_the_rest_as_if_alone(tmp_path: Path) -> None:
    export = tmp_path / "whole.jsonl"
    write_export(export, SynthConfig(runs=1, cases=2, models=1, reps=2, seed=9), ndjson=True)
    head, tail = _split(export.read_bytes().splitlines())
    (tmp_path / "head.jsonl").write_bytes(head)
    (tmp_path / "tail.jsonl").write_bytes(tail)
    with Database(tmp_path / "alone.duckdb") as alone:
        assert import_paths(alone, [tmp_path / "tail.jsonl"]).ok
        expected, expected_docs = funnels(alone), documents(alone)
    with Database(tmp_path / "both.duckdb") as db:
        assert import_paths(db, [tmp_path / "head.jsonl", tmp_path / "tail.jsonl"]).ok
        assert funnels(db) != expected  # the head's spans matter
        removal = delete(db, source=str(tmp_path / "head.jsonl"))
        assert removal.traces == 0 and removal.traces_rederived > 0
        assert funnels(db) == expected
        assert documents(db) == expected_docs
        assert not ledger_mismatches(db.con)


def test_a_source_is_named_by_sha256_prefix_and_unknown_targets_are_usage_errors(
    store: Path,
) -> None:
    with Database(store) as db:
        (sha,) = db.con.execute(
            "SELECT sha256 FROM core.sources WHERE path LIKE '%b.jsonl'"
        ).fetchall()[0]
        assert delete(db, source=sha[:10], dry_run=True).sources == 1
        with pytest.raises(UsageError, match="no imported source"):
            delete(db, source="nope.json")
        with pytest.raises(UsageError, match="no trial of this run"):
            delete(db, run="run_nope")
        with pytest.raises(UsageError, match="exactly one"):
            delete(db)


_GATED = (
    "key IN ('input.value', 'output.value') OR key LIKE 'llm.input_messages.%' "
    "OR key LIKE '%tool_call.function.arguments' OR key LIKE 'llm.output_messages.%.content'"
)


def test_purging_content_keeps_chains_and_funnels(store: Path) -> None:
    with Database(store) as db:
        before, before_docs = funnels(db), documents(db)
        gated = f"SELECT count(*) FROM core.attributes WHERE {_GATED}"
        assert db.con.execute(gated).fetchall()[0][0] > 0
        names = "SELECT count(*) FROM core.attributes WHERE key LIKE '%name%'"
        kept = db.con.execute(names).fetchall()
        purge = purge_content(db)
        assert purge.dropped > 0 and purge.rewritten > 0
        assert db.con.execute(gated).fetchall() == [(0,)]
        assert db.con.execute(names).fetchall() == kept
        expect = db.con.execute(
            "SELECT string_value FROM core.attributes WHERE key = 'mcp.app.expect.tool_calls'"
        ).fetchall()
        assert expect and all(set(c) == {"toolName"} for (v,) in expect for c in orjson.loads(v))
        assert funnels(db) == before
        assert documents(db) == before_docs
        assert not ledger_mismatches(db.con)
        # and derived again from what is left, the chains are still the same
        derive_traces(db, None, content_changed=True)
        assert funnels(db)["stage_chain"] == before["stage_chain"]
        assert purge_content(db).dropped == 0  # idempotent


def test_a_purge_counts_the_rows_it_changes(store: Path) -> None:
    rows = "SELECT owner_type, owner_row, ordinal, string_value FROM core.attributes"
    names = ("expected", "missing", "unexpected", "out_of_order", "argument_mismatches")
    keys = ["mcp.app.expect.tool_calls", *(f"mcp.app.match.result.{n}" for n in names)]
    lists = f"SELECT count(*) FROM core.attributes WHERE key IN {tuple(keys)}"
    with Database(store) as db:
        before = {tuple(r[:3]): r[3] for r in db.con.execute(rows).fetchall()}
        (tool_call_lists,) = db.con.execute(lists).fetchall()[0]
        purge = purge_content(db)
        after = {tuple(r[:3]): r[3] for r in db.con.execute(rows).fetchall()}
    gone = before.keys() - after.keys()
    cut = [k for k in after if after[k] != before[k]]
    assert (purge.dropped, purge.rewritten) == (len(gone), len(cut))
    # the lists of tool names only (empty ones among them) were read, and left as they were
    assert 0 < purge.rewritten < tool_call_lists
    assert f"cut {len(cut)} tool-call lists that held more than tool names" in purge.describe()


@pytest.mark.parametrize(
    "operation",
    [
        pytest.param(lambda db, runs: delete(db, run=runs[0], dry_run=True), id="delete-run"),
        pytest.param(
            lambda db, runs: delete(db, source=_source_path(db, "a.jsonl"), dry_run=True),
            id="delete-source",
        ),
        pytest.param(lambda db, runs: purge_content(db, dry_run=True), id="purge-content"),
    ],
)
def test_every_dry_run_changes_nothing(
    store: Path, dump: Dump, operation: Callable[[Database, list[str]], Any]
) -> None:
    with Database(store) as db:
        runs = _runs(db)
        before = dump(db)
    data = store.read_bytes()
    with Database(store, read_only=True) as db:  # a dry run works on a read-only open
        result = operation(db, runs)
        assert result.dry_run
    assert store.read_bytes() == data
    with Database(store) as db:
        assert dump(db) == before


def test_the_dry_run_counts_are_what_the_deletion_removes(store: Path) -> None:
    with Database(store) as db:
        run = _runs(db)[1]
        planned = delete(db, run=run, dry_run=True)
        done = delete(db, run=run)
    assert {**vars_of(planned), "dry_run": False} == vars_of(done)


def vars_of(obj: Any) -> dict[str, Any]:
    return {name: getattr(obj, name) for name in obj.__slots__}


def test_vacuum_reclaims_space_and_keeps_every_row(store: Path, dump: Dump) -> None:
    with Database(store) as db:
        for run in _runs(db)[:3]:
            delete(db, run=run)
        before = dump(db)
    dry = vacuum_store(store, memory_limit="1GB", dry_run=True)
    assert dry.before == dry.after == store.stat().st_size
    result = vacuum_store(store, memory_limit="1GB")
    assert result.after < result.before
    assert sorted(p.name for p in store.parent.iterdir() if p.name.startswith(".")) == []
    with Database(store) as db:
        after = dump(db)
        operations = after.pop("store_operations")
        before.pop("store_operations")
        assert after == before
        assert [op[1] for op in operations] == ["delete", "delete", "delete", "vacuum"]


def test_deleting_one_side_of_a_conflicting_duplicate_settles_the_other(
    tmp_path: Path, otlp: Any, write: Callable[[str, Any], Path]
) -> None:
    with Database(tmp_path / "s.duckdb") as db:
        first = write("a.json", otlp.request(otlp.span(1, name="first")))
        second = write("b.json", otlp.request(otlp.span(1, name="second"), otlp.span(2)))
        assert import_paths(db, [first, second]).ok
        grouped = "SELECT count(*) FROM core.spans WHERE dup_group IS NOT NULL"
        assert db.con.execute(grouped).fetchall() == [(2,)]
        removal = delete(db, source=str(second))
        assert removal.spans == 2 and removal.traces_rederived == 1
        assert db.con.execute(grouped).fetchall() == [(0,)]
        assert db.con.execute("SELECT name FROM core.spans").fetchall() == [("first",)]
        assert db.con.execute(
            "SELECT count(*) FROM core.issues WHERE code = 'W_DUPLICATE_CONFLICT'"
        ).fetchall() == [(0,)]
        assert not ledger_mismatches(db.con)
