"""The I/O edge: `sql/evidence/*.sql` read a set of traces' rows out of the store."""

from __future__ import annotations

from pathlib import Path

import orjson
from evidence_builders import FIRST_TRACE, contract, request, resource, trial_spans

from valuechain.pipeline.derive import load_trials
from valuechain.pipeline.imports import ImportOptions, import_file
from valuechain.store import Database
from valuechain.store.sqlfiles import folder


def test_sql_files_state_grain_reads_and_bind_their_params() -> None:
    files = folder("evidence")
    assert [f.name for f in files] == [
        "evidence/010_trial_spans.sql",
        "evidence/020_trial_attributes.sql",
        "evidence/030_trial_sources.sql",
    ]
    for sql in files:
        header = [line for line in sql.text.splitlines() if line.startswith("--")]
        assert any("Grain:" in line for line in header), sql.name
        assert any("Reads:" in line for line in header), sql.name
        assert sql.params == {"trace_ids"}
        body = "\n".join(line.split("--")[0] for line in sql.text.splitlines())
        assert ";" not in body  # one statement per file


def test_a_trace_split_over_two_imports_is_read_whole(shared: Path, tmp_path: Path) -> None:
    spans = trial_spans(shared)
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    first.write_bytes(orjson.dumps(request(spans[:4], resource(shared))))
    second.write_bytes(orjson.dumps(request(spans[4:], resource(shared))))
    whole = contract(shared, spans)
    with Database(":memory:") as db:
        import_file(db, first, 1, ImportOptions())
        import_file(db, second, 2, ImportOptions())
        rows, attributes = db.trial_rows([bytes.fromhex(FIRST_TRACE)])
        assert rows.num_rows == len(spans)
        assert set(attributes.column("owner_type").to_pylist()) == {"span", "resource"}
        assert sorted(db.trial_sources([FIRST_TRACE])) == [1, 2]
        stored = load_trials(db, [FIRST_TRACE.upper()])
        assert load_trials(db, ["ff" * 16]).trials.num_rows == 0
    assert stored.inputs == whole.inputs
    assert stored.producer_chain.equals(whole.producer_chain)
