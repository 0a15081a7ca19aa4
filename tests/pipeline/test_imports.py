"""An import end to end: re-imports, strict, paths, directories and collector rotation order."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from valuechain.pipeline.imports import ImportOptions, import_paths
from valuechain.store import Database

Write = Callable[[str, bytes | dict[str, Any]], Path]


Dump = Callable[[Database], dict[str, list[tuple[Any, ...]]]]


def test_reimporting_the_same_bytes_changes_nothing(
    db: Database, otlp: SimpleNamespace, write: Write, dump: Dump
) -> None:
    path = write("a.json", otlp.rich_request())
    options = ImportOptions(
        decode=dataclasses.replace(ImportOptions().decode, large_value_threshold=50)
    )
    (first,) = import_paths(db, [path], options).sources
    assert first.outcome == "imported"
    before = dump(db)
    assert all(
        before[t]
        for t in (
            "spans",
            "events",
            "links",
            "attributes",
            "large_values",
            "quarantine",
            "unknown_fields",
            "issues",
        )
    )
    copy = write("copy-of-a.json", path.read_bytes())
    report = import_paths(db, [path, copy], options)
    assert [s.outcome for s in report.sources] == ["unchanged", "unchanged"]
    assert report.ok
    assert dump(db) == before


def test_strict_rejects_a_source_with_an_error_issue(
    db: Database, otlp: SimpleNamespace, write: Write, dump: Dump
) -> None:
    ok = write("ok.json", otlp.request(otlp.span(1)))
    warned = write("warned.json", otlp.request(otlp.span(2, kind=77)))  # warning only
    bad = write("bad.json", otlp.request(otlp.span(3), otlp.span(4, spanId="s01")))
    before = dump(db)
    report = import_paths(db, [bad], ImportOptions(strict=True))
    (source,) = report.sources
    assert source.outcome == "rejected"
    assert source.error is not None and source.error.code == "E_BAD_ID_ENCODING"
    assert "(--strict)" in source.error.problem
    assert "short label" in source.error.problem
    assert source.error.pointer == "line 1: resourceSpans[0].scopeSpans[0].spans[1].spanId"
    assert dump(db) == before
    report = import_paths(db, [ok, warned, bad], ImportOptions(strict=True))
    assert [s.outcome for s in report.sources] == ["imported", "imported", "rejected"]
    report = import_paths(db, [bad])  # without --strict the good span is kept
    assert [s.outcome for s in report.sources] == ["imported"]
    assert db.sql("SELECT count(*) FROM core.quarantine").item() == 1


def test_strict_rejects_a_partial_stream(
    db: Database, otlp: SimpleNamespace, write: Write, dump: Dump
) -> None:
    data = otlp.ndjson(otlp.request(otlp.span(1)))[:-1] + b"\n" + b'{"resourceSpans": ['
    before = dump(db)
    (source,) = import_paths(db, [write("live.jsonl", data)], ImportOptions(strict=True)).sources
    assert source.outcome == "rejected"
    assert source.error is not None and source.error.code == "E_TRUNCATED_RECORD"
    assert source.error.pointer == "line 2"
    assert dump(db) == before


def test_strict_fails_on_a_partial_source_already_in_the_store(
    db: Database, otlp: SimpleNamespace, write: Write, dump: Dump
) -> None:
    data = otlp.ndjson(otlp.request(otlp.span(1)))[:-1] + b"\n" + b'{"resourceSpans": ['
    live = write("live.jsonl", data)
    clean = write("clean.json", otlp.request(otlp.span(2)))
    assert [s.outcome for s in import_paths(db, [live, clean]).sources] == ["partial", "imported"]
    before = dump(db)
    report = import_paths(db, [live, clean], ImportOptions(strict=True))
    assert [s.outcome for s in report.sources] == ["rejected", "unchanged"]
    assert not report.ok
    error = report.sources[0].error
    assert error is not None and error.code == "E_TRUNCATED_RECORD"
    assert "already in the store, accepted as partial with 1 error issue;" in error.problem
    assert "(--strict)" in error.problem and "kept as it is" in str(error)
    assert dump(db) == before  # the gate fails; the store keeps the stored copy untouched
    assert import_paths(db, [live]).sources[0].outcome == "unchanged"  # not strict: as before


def test_import_ids_group_the_sources_of_one_call(
    db: Database, otlp: SimpleNamespace, write: Write
) -> None:
    a, b = write("a.json", otlp.request(otlp.span(1))), write("b.json", otlp.request(otlp.span(2)))
    assert import_paths(db, [a, b]).ok
    assert import_paths(db, [write("c.json", otlp.request(otlp.span(3)))]).ok
    assert db.sql("SELECT import_id FROM imports ORDER BY source_id").to_series().to_list() == [
        1,
        1,
        2,
    ]


def test_directories_globs_and_missing_paths(
    db: Database, otlp: SimpleNamespace, write: Write, tmp_path: Path
) -> None:
    write("dir/a.json", otlp.request(otlp.span(1)))
    write("dir/sub/b.jsonl", otlp.ndjson(otlp.request(otlp.span(2))))
    write("dir/.hidden/c.json", otlp.request(otlp.span(3)))
    write("dir/notes.txt", b"not an export")
    write("glob/x.json", otlp.request(otlp.span(4)))
    write("glob/y.json", otlp.request(otlp.span(5)))
    report = import_paths(
        db, [tmp_path / "dir", str(tmp_path / "glob" / "*.json"), tmp_path / "nope.json"]
    )
    outcomes = {Path(s.path).name: s.outcome for s in report.sources}
    assert outcomes == {
        "a.json": "imported",
        "b.jsonl": "imported",
        "x.json": "imported",
        "y.json": "imported",
        "nope.json": "rejected",
    }
    missing = next(s for s in report.sources if s.outcome == "rejected")
    assert missing.error is not None and missing.error.code == "E_UNREADABLE"
    assert "no such file" in missing.error.render()
    # said, not silently dropped
    assert [s.path for s in report.skipped] == [tmp_path / "dir" / "notes.txt"]


def test_a_directory_without_export_files_is_rejected_not_silently_empty(
    db: Database, write: Write, tmp_path: Path
) -> None:
    write("logs/readme.txt", b"nothing to import")
    report = import_paths(db, [tmp_path / "logs"])
    (source,) = report.sources
    assert source.outcome == "rejected" and source.error is not None
    assert "no export files in this directory" in source.error.render()
    assert ".jsonl" in source.error.render()
    assert [s.path for s in report.skipped] == [tmp_path / "logs" / "readme.txt"]


def test_rotated_collector_files_are_read_oldest_first(
    db: Database, otlp: SimpleNamespace, write: Write, tmp_path: Path
) -> None:
    write("out/data.json", otlp.ndjson(otlp.request(otlp.span(3))))
    write("out/data-2024-01-02T00-00-00.000.json", otlp.ndjson(otlp.request(otlp.span(2))))
    write("out/data-2024-01-01T00-00-00.000.json", otlp.ndjson(otlp.request(otlp.span(1))))
    assert import_paths(db, [tmp_path / "out"]).ok
    order = db.sql("SELECT path FROM imports ORDER BY source_id").to_series().to_list()
    assert [Path(p).name for p in order] == [
        "data-2024-01-01T00-00-00.000.json",
        "data-2024-01-02T00-00-00.000.json",
        "data.json",
    ]
