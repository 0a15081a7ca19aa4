"""The SQL files: every one loads, has a header and binds exactly the parameters it names."""

from __future__ import annotations

from valuechain.store import sqlfiles


def test_every_sql_file_loads_and_has_a_header() -> None:
    for folder in ("schema", "views", "ingest"):
        files = sqlfiles.folder(folder)
        assert files
        for sql in files:
            assert sql.text.startswith("--"), sql.name
            assert "Grain" in sql.text, sql.name


def test_sql_files_state_grain_reads_and_bind_their_params() -> None:
    files = sqlfiles.folder("evidence")
    batch_reads = {"trace_ids", "first_row", "last_row"}
    assert {f.name: f.params for f in files} == {
        "evidence/000_resource_attributes.sql": set(),
        "evidence/010_trial_spans.sql": batch_reads,
        "evidence/020_trial_attributes.sql": batch_reads,
        "evidence/030_trial_sources.sql": {"source_ids"},
        "evidence/090_drop_resource_attributes.sql": set(),
    }
    for sql in files:
        header = [line for line in sql.text.splitlines() if line.startswith("--")]
        assert any("Grain:" in line for line in header), sql.name
        assert any("Reads:" in line for line in header), sql.name
        body = "\n".join(line.split("--")[0] for line in sql.text.splitlines())
        assert ";" not in body  # one statement per file


def test_the_run_lists_bind_their_params() -> None:
    """Which traces make which runs: every trace, or the runs of a few (`trace_runs`)."""
    names = ("query/trace_runs.sql", "query/run_members.sql", "query/stored_trials.sql")
    assert [sqlfiles.statement(n).params for n in names] == [{"every"}, {"run_keys"}, set()]
