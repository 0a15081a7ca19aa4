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
    assert [f.name for f in files] == [
        "evidence/010_trial_spans.sql",
        "evidence/020_trial_attributes.sql",
        "evidence/030_trial_sources.sql",
    ]
    for sql in files:
        header = [line for line in sql.text.splitlines() if line.startswith("--")]
        assert any("Grain:" in line for line in header), sql.name
        assert any("Reads:" in line for line in header), sql.name
        assert sql.params == {"trace_ids", "first_row", "last_row"}
        body = "\n".join(line.split("--")[0] for line in sql.text.splitlines())
        assert ";" not in body  # one statement per file
