"""What an import reports beyond its sources (issue 15): hex ids, dangling links listed as
skipped with their reason, and progress by labelled phase with bytes counted as they are read."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from valuechain.ingest.source.read import READ_CHUNK
from valuechain.pipeline.imports import ImportOptions, import_paths
from valuechain.pipeline.progress import Phase
from valuechain.store import Database

Write = Callable[[str, bytes | dict[str, Any]], Path]


def test_trace_ids_in_the_report_are_lower_case_hex(
    db: Database, otlp: SimpleNamespace, write: Write
) -> None:
    report = import_paths(db, [write("a.json", otlp.request(otlp.span(1), otlp.span(2)))])
    (source,) = report.sources
    assert source.trace_ids and all(re.fullmatch(r"[0-9a-f]{32}", t) for t in source.trace_ids)
    stored = db.sql("SELECT DISTINCT trace_id FROM spans")["trace_id"].to_list()
    assert list(source.trace_ids) == sorted(stored)  # the same text the views show


def test_a_dangling_symlink_is_listed_as_skipped_with_its_reason(
    db: Database, otlp: SimpleNamespace, write: Write, tmp_path: Path
) -> None:
    write("dir/a.json", otlp.request(otlp.span(1)))
    (tmp_path / "dir" / "gone.json").symlink_to(tmp_path / "nowhere.json")
    report = import_paths(db, [tmp_path / "dir"])
    assert [s.outcome for s in report.sources] == ["imported"]
    (skipped,) = report.skipped
    assert skipped.path == tmp_path / "dir" / "gone.json"
    assert skipped.why == f"a symlink to {tmp_path / 'nowhere.json'}, which does not exist"


def test_a_named_dangling_symlink_is_rejected_with_its_reason(db: Database, tmp_path: Path) -> None:
    (tmp_path / "gone.json").symlink_to(tmp_path / "nowhere.json")
    (source,) = import_paths(db, [tmp_path / "gone.json"]).sources
    assert source.outcome == "rejected" and source.error is not None
    assert "a symlink to" in source.error.render() and "does not exist" in source.error.render()


class Recorder:
    """An `ImportProgress` that writes down every call."""

    def __init__(self) -> None:
        self.events: list[tuple[Phase, int | None, str, list[int]]] = []

    def start(self, phase: Phase, total: int | None, label: str = "") -> None:
        self.events.append((phase, total, label, []))

    def advance(self, done: int) -> None:
        self.events[-1][3].append(done)


def test_progress_names_each_phase_and_counts_bytes_as_they_are_read(
    db: Database, otlp: SimpleNamespace, write: Write
) -> None:
    spans = [otlp.span(n, attributes=[{"key": "pad", "value": {"stringValue": "x" * 4000}}])
             for n in range(1, 800)]  # fmt: skip
    path = write("big.json", otlp.request(*spans))
    size = path.stat().st_size
    assert size > 2 * READ_CHUNK
    recorder = Recorder()
    import_paths(db, [path], ImportOptions(), recorder)
    phases = [phase for phase, *_ in recorder.events]
    assert phases == [Phase.DECODE, Phase.COMMIT, Phase.DERIVE, Phase.MATERIALIZE]  # read once
    by_phase = {phase: (total, label, done) for phase, total, label, done in recorder.events}
    total, label, done = by_phase[Phase.DECODE]
    assert total == size and label == "1/1 big.json"
    assert sum(done) == size and len(done) >= 3  # moves within the source, chunk by chunk
    traces, _, derived = by_phase[Phase.DERIVE]
    assert traces == 1 and sum(derived) == 1
    runs, _, materialized = by_phase[Phase.MATERIALIZE]
    assert runs == 1 and sum(materialized) == 1
    again = Recorder()  # bytes of a stored size are hashed first: the same ones are not decoded
    import_paths(db, [write("copy.json", path.read_bytes())], ImportOptions(), again)
    ((phase, total, label, done),) = again.events
    assert (phase, total, label) == (Phase.HASH, size, "1/1 copy.json")
    assert sum(done) == size and len(done) >= 3


def test_a_plain_function_hears_the_bytes_decoded(
    db: Database, otlp: SimpleNamespace, write: Write
) -> None:
    path = write("a.json", otlp.request(otlp.span(1)))
    heard: list[int] = []
    import_paths(db, [path], ImportOptions(), heard.append)
    assert sum(heard) == path.stat().st_size  # once: hashing is not decoding
