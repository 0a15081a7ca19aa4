"""The whole import, through the store (TRACE-FORMAT §5.2, §5.3).

A rejected source leaves every ``core.*`` table (the ledger included) exactly as it was, while
the other sources of the same ``import_paths`` call still import. Accepted-but-damaged sources
keep what is whole, quarantine the rest with its raw text, and keep §5.1 in the ledger. A source
read in parts, or by worker processes, stores exactly what one pass stores, in bounded memory.
"""

from __future__ import annotations

import gzip
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import orjson
import pytest
from ingest_builders import SMALL, Dump, Write, cut_in_third_span, ndjson_lines, three_spans
from ingest_checks import accounted

from valuechain.ingest.decode import DecodeOptions
from valuechain.pipeline.imports import ImportOptions, ImportReport, import_paths
from valuechain.store import Database
from valuechain.synth import SynthConfig, write_export

CONSOLE_SPAN = b"""{
    "name": "ChatCompletion",
    "context": {
        "trace_id": "0x160cb466f2d2afeff4d545250f65282c",
        "span_id": "0x126e46b0568ab38c",
        "trace_state": "[]"
    },
    "kind": "SpanKind.INTERNAL",
    "parent_id": null
}
"""


REJECTED: list[tuple[str, Callable[[SimpleNamespace], bytes], str, tuple[str, ...]]] = [
    (
        "truncated-document",
        lambda o: cut_in_third_span(three_spans(o)),
        "E_TRUNCATED_JSON",
        ("ends inside a value", "2 complete spans precede the cut", "--salvage"),
    ),
    (
        "truncated-pretty-document-inside-a-literal",
        lambda o: (
            orjson.dumps(
                o.request(
                    o.span(1), o.span(2, attributes=[{"key": "b", "value": {"boolValue": True}}])
                ),
                option=orjson.OPT_INDENT_2,
            ).rsplit(b"true", 1)[0]
            + b"tr"
        ),
        "E_TRUNCATED_JSON",
        ("ends inside a value", "1 complete spans precede the cut"),
    ),
    (
        "truncated-before-any-span",
        lambda o: three_spans(o)[:40],
        "E_TRUNCATED_JSON",
        ("0 complete spans", "re-download"),
    ),
    (
        "gzip-of-a-truncated-document",
        lambda o: gzip.compress(cut_in_third_span(three_spans(o))),
        "E_TRUNCATED_JSON",
        ("ends inside a value",),
    ),
    (
        "truncated-gzip-of-a-document",
        lambda o: gzip.compress(three_spans(o))[:-30],
        "E_TRUNCATED_COMPRESSION",
        ("the gzip stream ends early", "ends inside a value"),
    ),
    (
        "phoenix-span-json",
        lambda o: o.dumps(
            [
                {
                    "name": "pxi.turn",
                    "context": {"trace_id": "t-1", "span_id": "s01"},
                    "span_kind": "AGENT",
                    "parent_id": None,
                }
            ]
        ),
        "E_NOT_OTLP",
        ("Phoenix/OpenInference span JSON", "OpenInference instrumentation"),
    ),
    (
        "console-exporter-span",
        lambda o: CONSOLE_SPAN,
        "E_NOT_OTLP",
        ("console-exporter", "ConsoleSpanExporter"),
    ),
    (
        "console-exporter-dump",
        lambda o: b" \nSYNC\n \n" + CONSOLE_SPAN,
        "E_NOT_OTLP",
        ("console-exporter dump (not JSON)", "byte 0"),
    ),
    (
        "jaeger-ui-json",
        lambda o: o.dumps({"data": [{"traceID": "abc", "spans": [], "processes": {}}]}),
        "E_NOT_OTLP",
        ("Jaeger UI JSON", "api_v3"),
    ),
    (
        "langfuse-trace-json",
        lambda o: o.dumps({"id": "trace-1", "name": "chat", "observations": []}),
        "E_NOT_OTLP",
        ("Langfuse",),
    ),
    (
        "some-other-object",
        lambda o: o.dumps({"spans": [], "version": 2}),
        "E_NOT_OTLP",
        ("without resourceSpans", "spans, version"),
    ),
    (
        "metrics-and-logs-only",
        lambda o: o.ndjson(
            {"resourceMetrics": []}, {"resourceLogs": []}, {"resource_profiles": []}
        ),
        "E_NO_TRACES",
        ("no trace records", "3 records of other signals"),
    ),
    ("empty-file", lambda o: b"", "E_NO_TRACES", ("empty", "finished writing")),
    ("whitespace-and-bom", lambda o: b"\xef\xbb\xbf \n\t\n", "E_NO_TRACES", ("empty",)),
    ("binary-garbage", lambda o: bytes(range(256)) * 4, "E_NOT_OTLP", ("binary data",)),
]


@pytest.fixture
def stocked(db: Database, otlp: SimpleNamespace, write: Write) -> Database:
    """A store that already holds a source, so 'unchanged' is not trivially an empty store."""
    first = otlp.request(otlp.span(1), otlp.span(2, parentSpanId=f"{1:016x}"))
    assert import_paths(db, [write("earlier.json", first)]).ok
    return db


@pytest.mark.parametrize(
    ("make", "code", "fragments"),
    [pytest.param(make, code, fragments, id=name) for name, make, code, fragments in REJECTED],
)
def test_rejected_source_leaves_the_store_unchanged(
    stocked: Database,
    otlp: SimpleNamespace,
    write: Write,
    dump: Dump,
    make: Callable[[SimpleNamespace], bytes],
    code: str,
    fragments: tuple[str, ...],
) -> None:
    bad = write("bad.json", make(otlp))
    before = dump(stocked)
    (source,) = import_paths(stocked, [bad]).sources
    assert source.outcome == "rejected"
    assert source.error is not None
    assert source.error.code == code
    message = source.error.render()
    assert message.startswith(str(bad))
    assert "\n" not in message
    for fragment in fragments:
        assert fragment in message
    assert dump(stocked) == before


@pytest.mark.parametrize("make", [pytest.param(make, id=name) for name, make, _, _ in REJECTED])
def test_other_sources_of_the_same_call_still_import(
    db: Database, otlp: SimpleNamespace, write: Write, make: Callable[[SimpleNamespace], bytes]
) -> None:
    good_a = write("a.json", otlp.request(otlp.span(1)))
    bad = write("b.json", make(otlp))
    good_c = write("c.json", otlp.request(otlp.span(2)))
    report = import_paths(db, [good_a, bad, good_c])
    assert [s.outcome for s in report.sources] == ["imported", "rejected", "imported"]
    assert not report.ok
    assert db.sql("SELECT path FROM imports ORDER BY source_id").to_series().to_list() == [
        str(good_a),
        str(good_c),
    ]
    assert db.sql("SELECT span_id FROM spans ORDER BY span_id").to_series().to_list() == [
        f"{1:016x}",
        f"{2:016x}",
    ]
    # nothing of the rejected source anywhere (its rows would carry no ledger source_id)
    for table in ("quarantine", "unknown_fields", "issues", "resources", "spans"):
        orphans = db.sql(
            f"SELECT count(*) FROM core.{table} "
            "WHERE source_id NOT IN (SELECT source_id FROM core.sources)"
        ).item()
        assert orphans == 0


def test_truncated_last_ndjson_line(db: Database, otlp: SimpleNamespace, write: Write) -> None:
    lines = ndjson_lines(otlp, 3)
    tail = lines[2][: len(lines[2]) // 2]
    data = lines[0] + b"\n" + lines[1] + b"\n" + tail
    (source,) = import_paths(db, [write("live.jsonl", data)]).sources
    assert (source.outcome, source.spans) == ("partial", 2)
    (issue,) = db.sql("SELECT * FROM issues").to_dicts()
    start = len(lines[0]) + len(lines[1]) + 2
    assert (issue["code"], issue["line"], issue["byte_offset"], issue["record_index"]) == (
        "E_TRUNCATED_RECORD",
        3,
        start,
        2,
    )
    assert f"bytes {start}–{len(data)}" in issue["message"]
    (quarantined,) = db.sql("SELECT * FROM core.quarantine").to_dicts()
    assert quarantined["raw_json"] == tail.decode()
    assert quarantined["codes"] == ["E_TRUNCATED_RECORD"]
    row = accounted(db)
    assert (row["status"], row["records_read"], row["records_quarantined"]) == ("partial", 3, 1)


def test_corrupt_middle_line(db: Database, otlp: SimpleNamespace, write: Write) -> None:
    lines = ndjson_lines(otlp, 4)
    data = b"\n".join([lines[0], b'{"resourceSpans": [oops]}', lines[2], lines[3]]) + b"\n"
    (source,) = import_paths(db, [write("mid.jsonl", data)]).sources
    assert (source.outcome, source.spans) == ("partial", 3)
    (issue,) = db.sql("SELECT * FROM issues").to_dicts()
    assert (issue["code"], issue["line"], issue["byte_offset"]) == (
        "E_INVALID_RECORD",
        2,
        len(lines[0]) + 1,
    )
    assert "not valid JSON" in issue["message"]
    assert db.sql("SELECT raw_json FROM core.quarantine").item() == '{"resourceSpans": [oops]}'
    assert db.sql("SELECT name FROM spans ORDER BY name").to_series().to_list() == [
        "span-1",
        "span-3",
        "span-4",
    ]
    accounted(db)


def test_truncated_gzip_keeps_what_was_decompressed(
    db: Database, otlp: SimpleNamespace, write: Write
) -> None:
    lines = ndjson_lines(otlp, 400)
    raw = b"\n".join(lines) + b"\n"
    data = gzip.compress(raw)
    cut = data[: len(data) // 2]
    (source,) = import_paths(db, [write("cut.jsonl.gz", cut)]).sources
    assert source.outcome == "partial"
    codes = dict(db.sql("SELECT code, count(*) FROM issues GROUP BY code").rows())
    assert codes == {"E_TRUNCATED_COMPRESSION": 1, "E_TRUNCATED_RECORD": 1}
    message = db.sql("SELECT message FROM issues WHERE code = 'E_TRUNCATED_COMPRESSION'").item()
    assert "ends early" in message
    row = accounted(db)
    decompressed = row["bytes_decoded"]
    assert 0 < decompressed < len(raw)
    complete = raw[:decompressed].count(b"\n")  # records whose newline made it out
    assert source.spans == complete == row["records_ingested"]
    assert row["status"] == "partial"


def test_decompression_cap(db: Database, otlp: SimpleNamespace, write: Write) -> None:
    raw = b"\n".join(ndjson_lines(otlp, 50)) + b"\n"
    cap = len(raw) // 3
    options = ImportOptions(decode=DecodeOptions(max_decompressed_bytes=cap))
    (source,) = import_paths(db, [write("bomb.jsonl.gz", gzip.compress(raw))], options).sources
    assert source.outcome == "partial"
    message = db.sql("SELECT message FROM issues WHERE code = 'E_TOO_LARGE'").item()
    assert f"cap of {cap} bytes" in message
    row = accounted(db)
    assert row["bytes_decoded"] == cap
    assert source.spans == raw[:cap].count(b"\n") > 0


def test_every_issue_row_says_where_and_how_to_fix(
    db: Database, otlp: SimpleNamespace, write: Write
) -> None:
    bad = otlp.request(otlp.span(1, spanId="0x01"), otlp.span(2, kind=42))
    path = write("where.jsonl", b"\n" + otlp.ndjson(bad))
    report: ImportReport = import_paths(db, [path])
    assert report.ok
    rows = db.sql("SELECT * FROM issues ORDER BY json_path").to_dicts()
    assert [r["code"] for r in rows] == ["E_BAD_ID_ENCODING", "W_UNKNOWN_ENUM"]
    for row in rows:
        assert (row["record_index"], row["line"], row["byte_offset"]) == (0, 2, 1)
        assert row["source"] == str(path)
        assert row["hint"]
        assert row["severity"] == {"E": "error", "W": "warning"}[row["code"][0]]
    assert rows[0]["json_path"] == "resourceSpans[0].scopeSpans[0].spans[0].spanId"
    assert rows[0]["value_excerpt"] == "0x01"
    assert rows[1]["value_excerpt"] == "42"


def test_a_streamed_import_stores_what_one_pass_stores(
    tmp_path: Path, otlp: SimpleNamespace, dump: Any
) -> None:
    lines = [orjson.dumps(otlp.request(otlp.span(n))) for n in range(1, 40)]
    lines += [orjson.dumps(otlp.request(otlp.span(n))) for n in (3, 5)]  # duplicates, later
    lines += [orjson.dumps(otlp.request(otlp.span(7, name="other")))]  # a conflict, later
    lines += [orjson.dumps(otlp.request(otlp.span(8, kind="SPAN_KIND_CLIENT")))]
    path = tmp_path / "a.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    decode = DecodeOptions(batch_bytes=2_000, workers=0)
    with Database() as one, Database() as streamed:
        whole = DecodeOptions(batch_bytes=1 << 30, workers=0)
        assert import_paths(one, [path], ImportOptions(decode=whole, derive=False)).ok
        report = import_paths(streamed, [path], ImportOptions(decode=decode, derive=False))
        assert report.ok
        left, right = dump(one), dump(streamed)
        for table in left:
            rows_left, rows_right = left[table], right[table]
            if table == "sources":  # imported_at differs
                rows_left = [r[:-1] for r in rows_left]
                rows_right = [r[:-1] for r in rows_right]
            assert rows_left == rows_right, table
        codes = dict(
            streamed.con.execute(
                "SELECT code, sum(occurrences) FROM core.issues GROUP BY 1"
            ).fetchall()
        )
        assert codes["I_DUPLICATE_IDENTICAL"] == 2
        assert codes["W_DUPLICATE_CONFLICT"] == 4  # two keys, two versions each


def test_a_rejected_streamed_source_leaves_the_store_unchanged(
    tmp_path: Path, otlp: SimpleNamespace, dump: Any
) -> None:
    # many parts of records that are all other signals: rejected only at the very end
    path = tmp_path / "metrics.jsonl"
    path.write_bytes(
        b"".join(orjson.dumps({"resourceMetrics": [{"x": n}]}) + b"\n" for n in range(300))
    )
    with Database() as db:
        before = dump(db)
        report = import_paths(
            db,
            [path],
            ImportOptions(decode=DecodeOptions(batch_bytes=500, workers=0), derive=False),
        )
        assert not report.ok
        assert report.sources[0].error is not None
        assert report.sources[0].error.code == "E_NO_TRACES"
        assert dump(db) == before


def test_the_process_pool_gives_the_same_store(tmp_path: Path, dump: Any) -> None:
    path = write_export(tmp_path / "a.jsonl", SMALL, ndjson=True).path
    results = []
    for workers in (0, 2):
        with Database() as db:
            options = ImportOptions(
                decode=DecodeOptions(batch_bytes=50_000, workers=workers), derive=False
            )
            assert import_paths(db, [path], options).ok
            snapshot = dump(db)
            snapshot["sources"] = [r[:-1] for r in snapshot["sources"]]
            results.append(snapshot)
    assert results[0] == results[1]


def test_a_collector_directory(tmp_path: Path, otlp: SimpleNamespace) -> None:
    out = tmp_path / "collector"
    out.mkdir()
    trace = "aa" * 16
    older = otlp.ndjson(otlp.request(otlp.span(1, trace_id=trace)))
    newer = otlp.ndjson(otlp.request(otlp.span(2, trace_id=trace, parentSpanId=f"{1:016x}")))
    live = otlp.ndjson(otlp.request(otlp.span(3, trace_id=trace))) + b'{"resourceSpans":[{"sco'
    (out / "traces-2026-01-02T00-00-00.000.json").write_bytes(newer)
    (out / "traces-2026-01-01T00-00-00.000.json").write_bytes(older)
    (out / "traces.json").write_bytes(live)
    with Database() as db:
        report = import_paths(db, [out], ImportOptions(derive=False))
        assert [Path(s.path).name for s in report.sources] == [
            "traces-2026-01-01T00-00-00.000.json",
            "traces-2026-01-02T00-00-00.000.json",
            "traces.json",
        ]
        assert [s.outcome for s in report.sources] == ["imported", "imported", "partial"]
        assert report.sources[2].issue_counts()["E_TRUNCATED_RECORD"] == 1
        assert db.sql("SELECT count(*) AS n FROM traces").item() == 1  # one trace, three files
        assert db.sql("SELECT count(*) FROM core.spans").item() == 3


def test_memory_stays_bounded_on_a_large_input(tmp_path: Path) -> None:
    path = tmp_path / "big.jsonl"
    config = SynthConfig(runs=4, cases=20, models=4, reps=13, seed=3)
    summary = write_export(path, config, ndjson=True)
    assert summary.bytes_written > 90 * 2**20
    script = textwrap.dedent(
        f"""
        import resource, sys
        from valuechain.pipeline.imports import ImportOptions, import_paths
        from valuechain.ingest.decode import DecodeOptions
        from valuechain.store import Database
        with Database({str(tmp_path / "s.duckdb")!r}) as db:
            options = ImportOptions(decode=DecodeOptions(workers=0), derive=False)
            report = import_paths(db, [{str(path)!r}], options)
            assert report.ok, report
        print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024)
        """
    )
    src = str(Path(__file__).resolve().parents[2] / "src")
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": src, "PATH": "/usr/bin:/bin"},
        check=True,
    )
    peak_mb = int(done.stdout.strip().splitlines()[-1])
    # the whole file decoded at once costs several times its size; bounded parts do not
    assert peak_mb < 900, peak_mb
