"""Many small files import as groups — one transaction each — and each file is still its own
source: the store, the ledger and every result read exactly as importing the files one by one
(each its own transaction) gives them, duplicates, conflicts, quarantine and rejects included."""

from __future__ import annotations

import gzip
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import orjson
import pytest

from valuechain.ingest.source.documents import DocumentGroup
from valuechain.pipeline import derive, small_files
from valuechain.pipeline.imports import ImportOptions, ImportReport, import_paths
from valuechain.store import Database


def _trace(n: int) -> str:
    return f"{n:032x}"


@pytest.fixture
def folder(tmp_path: Path, otlp: SimpleNamespace) -> Path:
    """30 tiny files, one trace each, with the cases a group must keep apart by source: spans
    identical to an earlier file's, a conflicting version of one, a quarantined span, a file
    that is no OTLP, a byte-for-byte copy of an earlier file, and one file too large to group
    in the middle of them."""
    out = tmp_path / "in"
    out.mkdir()
    for n in range(30):
        spans = [otlp.span(k, trace_id=_trace(n)) for k in (1, 2)]
        (out / f"f{n:02d}.json").write_bytes(otlp.dumps(otlp.request(*spans)))
    again = [otlp.span(k, trace_id=_trace(3)) for k in (1, 2)] + [otlp.span(9, trace_id=_trace(3))]
    (out / "f05.json").write_bytes(otlp.dumps(otlp.request(*again)))  # two spans of f03 again
    other = otlp.span(2, trace_id=_trace(4), name="changed")  # f04's span 2, other content
    (out / "f07.json").write_bytes(otlp.dumps(otlp.request(other)))
    (out / "f09.json").write_bytes(otlp.dumps(otlp.rich_request()))  # one span quarantined
    (out / "f11.json").write_bytes(b"hello, not a trace")
    (out / "f13.json").write_bytes((out / "f12.json").read_bytes())  # the same bytes
    many = [otlp.span(k, trace_id=_trace(99), name="x" * 200) for k in range(1, 400)]
    (out / "f15.json").write_bytes(otlp.dumps(otlp.request(*many)))
    assert (out / "f15.json").stat().st_size > small_files.SMALL_FILE_BYTES
    return out


class _Commits:
    """The store's connection, counting the transactions it commits."""

    def __init__(self, con: Any) -> None:
        self._con = con
        self.commits = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self._con, name)

    def commit(self) -> Any:
        self.commits += 1
        return self._con.commit()


def _imported(store: Path, folder: Path, **options: Any) -> tuple[ImportReport, int]:
    with Database(store) as db:
        counted = _Commits(db.con)
        db.con = counted  # type: ignore[assignment]
        report = import_paths(db, [folder], ImportOptions(**options))
        db.con = counted._con
    return report, counted.commits


def _contents(store: Path) -> dict[str, list[tuple[Any, ...]]]:
    """Every core table, the ledger's clock column left out."""
    with Database(store, read_only=True) as db:
        names = [
            r[0]
            for r in db.con.execute(
                "SELECT table_name FROM duckdb_tables() WHERE schema_name = 'core'"
            ).fetchall()
        ]
        return {
            name: db.con.execute(
                f"SELECT * {'EXCLUDE (imported_at)' if name == 'sources' else ''} "
                f"FROM core.{name} ORDER BY ALL"
            ).fetchall()
            for name in sorted(names)
        }


def _said(report: ImportReport) -> list[tuple[Any, ...]]:
    return [
        (
            Path(s.path).name,
            s.outcome,
            s.spans,
            s.traces,
            s.spans_deduplicated,
            sorted(s.issue_counts().items()),
            s.error and s.error.problem,
        )
        for s in report.sources
    ]


def test_small_files_import_as_one_by_one_in_a_transaction_a_group(
    folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    derives: list[object] = []
    original = derive.derive_traces
    monkeypatch.setattr(
        derive, "derive_traces", lambda *a, **k: derives.append(a) or original(*a, **k)
    )
    grouped, commits = _imported(tmp_path / "grouped.duckdb", folder, derive=False)
    # f00-f12, then f13 (f12's bytes: cut, so the ledger sees f12 first) and f14, the large
    # f15 on its own, f16-f29
    assert commits == 4
    with monkeypatch.context() as one_by_one:
        one_by_one.setattr(small_files, "SMALL_FILE_BYTES", 0)
        alone, commits_alone = _imported(tmp_path / "alone.duckdb", folder, derive=False)
    assert commits_alone == 28  # each file its own, but the reject and the copy: 28
    assert _said(grouped) == _said(alone)
    assert [s.outcome for s in grouped.sources].count("unchanged") == 1
    assert [s.outcome for s in grouped.sources].count("rejected") == 1
    assert _contents(tmp_path / "grouped.duckdb") == _contents(tmp_path / "alone.duckdb")
    report, _ = _imported(tmp_path / "grouped.duckdb", folder)  # one derive for all pending
    assert len(derives) == 1
    assert report.completed is not None and report.completed.trials > 0
    again, commits_again = _imported(tmp_path / "grouped.duckdb", folder)
    assert commits_again == 0  # the same bytes change nothing
    assert {s.outcome for s in again.sources} == {"unchanged", "rejected"}


def test_a_group_cut_by_its_bytes_bound_goes_on_in_the_next(
    folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(small_files, "GROUP_BYTES", 2_000)  # a few files a group
    grouped, commits = _imported(tmp_path / "grouped.duckdb", folder, derive=False)
    assert 4 < commits < 28
    monkeypatch.setattr(small_files, "SMALL_FILE_BYTES", 0)
    alone, _ = _imported(tmp_path / "alone.duckdb", folder, derive=False)
    assert _said(grouped) == _said(alone)
    assert _contents(tmp_path / "grouped.duckdb") == _contents(tmp_path / "alone.duckdb")


def test_a_groups_documents_are_decoded_together_others_each_alone(
    tmp_path: Path, otlp: SimpleNamespace, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Canonical documents — compact, pretty-printed, after a BOM, with events and links —
    are decoded in the group's one set of columns, between files each decoded alone (gzip,
    NDJSON, two documents, a duplicate JSON key, a span with an issue); the store, ledger and
    results are those of importing them one by one, row ids and span rows of issues included."""
    out = tmp_path / "in"
    out.mkdir()

    def spans(n: int, count: int = 2) -> dict[str, Any]:
        return otlp.request(*[otlp.span(k, trace_id=_trace(n)) for k in range(1, count + 1)])

    files = {
        "a.json": otlp.dumps(spans(1)),
        "b.json": orjson.dumps(spans(2), option=orjson.OPT_INDENT_2),
        "c.json": b"\xef\xbb\xbf \n" + otlp.dumps(spans(3, 3)) + b"\n\n",
        "d.json.gz": gzip.compress(otlp.dumps(spans(4))),
        "e.json": otlp.dumps(otlp.rich_request()),
        "f.jsonl": otlp.ndjson(spans(6), spans(7)),
        "g.json": otlp.dumps(spans(8)) + otlp.dumps(spans(9)),
        "h.json": otlp.dumps(spans(10)).replace(b'"name"', b'"name":"x","name"', 1),
        "i.json": otlp.dumps(otlp.request(otlp.span(1, trace_id=_trace(11), kind=9))),
        "j.json": otlp.dumps(spans(1)).replace(b'"span-2"', b'"other"'),  # conflicts with a
        "k.json": otlp.dumps(spans(12, 4)),
    }
    for name, data in files.items():
        (out / name).write_bytes(data)
    together: list[str] = []
    take = DocumentGroup.take

    def counted(self: DocumentGroup, source: str, data: bytes, sha256: str) -> Any:
        taken = take(self, source, data, sha256)
        if taken is not None:
            together.append(Path(source).name)
        return taken

    monkeypatch.setattr(DocumentGroup, "take", counted)
    grouped, commits = _imported(tmp_path / "grouped.duckdb", out, derive=False)
    assert commits == 1
    assert together == ["a.json", "b.json", "c.json", "j.json", "k.json"]
    monkeypatch.setattr(small_files, "SMALL_FILE_BYTES", 0)
    alone, _ = _imported(tmp_path / "alone.duckdb", out, derive=False)
    assert _said(grouped) == _said(alone)
    assert _contents(tmp_path / "grouped.duckdb") == _contents(tmp_path / "alone.duckdb")
