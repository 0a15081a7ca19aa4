"""Every JSON-side bad input of TRACE-FORMAT §5.2: its code, its message, and what the store holds.

A rejected source leaves every ``core.*`` table (the ledger included) exactly as it was, while
the other sources of the same ``import_paths`` call still import. Accepted-but-damaged sources
keep what is whole, quarantine the rest with its raw text, and keep §5.1 in the ledger.
"""

from __future__ import annotations

import gzip
import math
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import orjson
import pytest

from valuechain.ingest.decode import DecodeOptions, decode_export
from valuechain.pipeline.imports import ImportOptions, ImportReport, import_paths
from valuechain.store import Database

Write = Callable[[str, bytes | dict[str, Any]], Path]
Dump = Callable[[Database], dict[str, list[tuple[Any, ...]]]]


def _three_spans(otlp: SimpleNamespace) -> bytes:
    return otlp.dumps(otlp.request(otlp.span(1), otlp.span(2), otlp.span(3)))


def _cut_in_third_span(data: bytes) -> bytes:
    return data[: data.index(b'"spanId":"0000000000000003"') + 5]


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
        lambda o: _cut_in_third_span(_three_spans(o)),
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
        lambda o: _three_spans(o)[:40],
        "E_TRUNCATED_JSON",
        ("0 complete spans", "re-download"),
    ),
    (
        "gzip-of-a-truncated-document",
        lambda o: gzip.compress(_three_spans(o))[:-30],
        "E_TRUNCATED_JSON",
        ("ends inside a value",),
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


def test_truncated_document_message_gives_the_byte_offset(otlp: SimpleNamespace) -> None:
    data = _cut_in_third_span(_three_spans(otlp))
    out = decode_export(data, "cut.json")
    assert out.rejection is not None
    assert out.rejection.pointer == f"byte {len(data)}"
    assert str(out.rejection).startswith(f"cut.json: byte {len(data)}: ")
    assert out.issue_counts() == {"E_TRUNCATED_JSON": 1}


def test_salvage_keeps_exactly_the_complete_spans(
    db: Database, otlp: SimpleNamespace, write: Write
) -> None:
    data = _cut_in_third_span(_three_spans(otlp))
    out = decode_export(data, "cut.json", DecodeOptions(salvage=True))
    assert out.status == "partial"
    assert out.tables["spans"]["span_id"].to_pylist() == [
        bytes.fromhex(f"{n:016x}") for n in (1, 2)
    ]
    assert out.issue_counts() == {"E_TRUNCATED_JSON": 1}
    assert "salvaged 2 complete spans" in out.issues[0].message
    assert out.accounting.check(out.span_count, out.tables["attributes"].num_rows) == []
    path = write("cut.json", data)
    (source,) = import_paths(db, [path], ImportOptions(decode=DecodeOptions(salvage=True))).sources
    assert (source.outcome, source.spans) == ("partial", 2)
    assert db.sql("SELECT status FROM imports").item() == "partial"
    assert db.sql("SELECT name FROM spans ORDER BY name").to_series().to_list() == [
        "span-1",
        "span-2",
    ]
    assert db.sql("SELECT code FROM issues").to_series().to_list() == ["E_TRUNCATED_JSON"]


def test_salvage_with_nothing_complete_still_rejects(otlp: SimpleNamespace) -> None:
    out = decode_export(_three_spans(otlp)[:60], "cut.json", DecodeOptions(salvage=True))
    assert out.status == "rejected"
    assert out.rejection is not None and out.rejection.code == "E_TRUNCATED_JSON"


def test_salvage_of_a_document_with_bare_nan(otlp: SimpleNamespace) -> None:
    data = otlp.dumps(
        otlp.request(
            otlp.span(1, attributes=[{"key": "x", "value": {"doubleValue": "NaN"}}]), otlp.span(2)
        )
    ).replace(b'"NaN"', b"NaN")
    out = decode_export(data[:-20], "cut.json", DecodeOptions(salvage=True))  # inside span 2
    assert out.status == "partial"
    assert out.span_count == 1
    assert out.issue_counts()["W_NONSTANDARD_JSON"] == 1
    assert math.isnan(out.tables["attributes"]["double_value"].to_pylist()[-1])


def _lines(otlp: SimpleNamespace, n: int) -> list[bytes]:
    return [orjson.dumps(otlp.request(otlp.span(i + 1))) for i in range(n)]


def _accounted(db: Database) -> dict[str, Any]:
    (row,) = db.sql("SELECT * FROM imports").to_dicts()
    assert row["records_read"] == (
        row["records_ingested"] + row["records_other_signal"] + row["records_quarantined"]
    )
    assert (
        row["spans_read"] == row["span_rows"] + row["spans_quarantined"] + row["spans_deduplicated"]
    )
    assert row["attributes_read"] == (
        row["attribute_rows"] + row["attributes_quarantined"] + row["attributes_deduplicated"]
    )
    return row


def test_truncated_last_ndjson_line(db: Database, otlp: SimpleNamespace, write: Write) -> None:
    lines = _lines(otlp, 3)
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
    row = _accounted(db)
    assert (row["status"], row["records_read"], row["records_quarantined"]) == ("partial", 3, 1)


def test_corrupt_middle_line(db: Database, otlp: SimpleNamespace, write: Write) -> None:
    lines = _lines(otlp, 4)
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
    _accounted(db)


def test_corrupt_first_line_of_a_stream(otlp: SimpleNamespace) -> None:
    lines = _lines(otlp, 3)
    out = decode_export(b"\n".join([b"{not json", lines[1], lines[2]]) + b"\n", "s.jsonl")
    assert (out.status, out.span_count) == ("partial", 2)
    assert out.issue_counts() == {"E_INVALID_RECORD": 1}


def test_truncated_gzip_keeps_what_was_decompressed(
    db: Database, otlp: SimpleNamespace, write: Write
) -> None:
    lines = _lines(otlp, 400)
    raw = b"\n".join(lines) + b"\n"
    data = gzip.compress(raw)
    cut = data[: len(data) // 2]
    (source,) = import_paths(db, [write("cut.jsonl.gz", cut)]).sources
    assert source.outcome == "partial"
    codes = dict(db.sql("SELECT code, count(*) FROM issues GROUP BY code").rows())
    assert codes == {"E_TRUNCATED_COMPRESSION": 1, "E_TRUNCATED_RECORD": 1}
    message = db.sql("SELECT message FROM issues WHERE code = 'E_TRUNCATED_COMPRESSION'").item()
    assert "ends early" in message
    row = _accounted(db)
    decompressed = row["bytes_decoded"]
    assert 0 < decompressed < len(raw)
    complete = raw[:decompressed].count(b"\n")  # records whose newline made it out
    assert source.spans == complete == row["records_ingested"]
    assert row["status"] == "partial"


def test_decompression_cap(db: Database, otlp: SimpleNamespace, write: Write) -> None:
    raw = b"\n".join(_lines(otlp, 50)) + b"\n"
    cap = len(raw) // 3
    options = ImportOptions(decode=DecodeOptions(max_decompressed_bytes=cap))
    (source,) = import_paths(db, [write("bomb.jsonl.gz", gzip.compress(raw))], options).sources
    assert source.outcome == "partial"
    message = db.sql("SELECT message FROM issues WHERE code = 'E_TOO_LARGE'").item()
    assert f"cap of {cap} bytes" in message
    row = _accounted(db)
    assert row["bytes_decoded"] == cap
    assert source.spans == raw[:cap].count(b"\n") > 0


def test_multi_member_gzip_is_read_whole(otlp: SimpleNamespace) -> None:
    lines = _lines(otlp, 4)
    data = gzip.compress(lines[0] + b"\n" + lines[1] + b"\n") + gzip.compress(
        lines[2] + b"\n" + lines[3]
    )
    out = decode_export(data, "m.gz")
    assert (out.status, out.span_count, out.compression) == ("ok", 4, "gzip")


# ------------------------------------------------------------------ duplicates and trace assembly
def test_exact_duplicate_in_one_file_is_kept_once(
    db: Database, otlp: SimpleNamespace, write: Write
) -> None:
    record = otlp.request(otlp.span(1), otlp.span(2))
    (source,) = import_paths(db, [write("retry.jsonl", otlp.ndjson(record, record))]).sources
    assert (source.spans, source.spans_deduplicated) == (2, 2)
    assert source.issue_counts()["I_DUPLICATE_IDENTICAL"] == 2
    assert db.sql("SELECT count(*) FROM spans").item() == 2
    assert db.sql("SELECT count(*) FROM attributes WHERE owner_type = 'span'").item() == 2
    (issue,) = db.sql("SELECT * FROM issues").to_dicts()
    assert (issue["code"], issue["occurrences"]) == ("I_DUPLICATE_IDENTICAL", 2)
    assert "kept once" in issue["message"]
    row = _accounted(db)
    assert (row["spans_read"], row["span_rows"], row["spans_deduplicated"]) == (4, 2, 2)
    assert row["attributes_deduplicated"] == 2


def test_exact_duplicate_across_two_files(
    db: Database, otlp: SimpleNamespace, write: Write
) -> None:
    first = write(
        "a.json",
        otlp.request(
            otlp.span(1, events=[{"name": "e", "attributes": [{"key": "x", "value": {}}]}])
        ),
    )
    second = write(
        "b.json",
        otlp.request(
            otlp.span(1, events=[{"name": "e", "attributes": [{"key": "x", "value": {}}]}]),
            otlp.span(2),
        ),
    )
    report = import_paths(db, [first, second])
    assert [(s.spans, s.spans_deduplicated) for s in report.sources] == [(1, 0), (1, 1)]
    assert db.sql("SELECT count(*) FROM spans").item() == 2
    assert db.sql("SELECT count(*) FROM events").item() == 1
    assert db.sql("SELECT count(*) FROM attributes WHERE owner_type = 'event'").item() == 1
    ledger = db.sql(
        "SELECT spans_deduplicated, attributes_deduplicated FROM imports ORDER BY source_id"
    )
    assert ledger.rows() == [(0, 0), (1, 2)]  # the span's own attribute and its event's


def test_conflicting_duplicates_in_one_file(
    db: Database, otlp: SimpleNamespace, write: Write
) -> None:
    data = otlp.request(otlp.span(1), otlp.span(1, name="renamed"), otlp.span(2))
    (source,) = import_paths(db, [write("c.json", data)]).sources
    assert source.spans == 3
    rows = db.sql("SELECT span_row, name, dup_group FROM spans ORDER BY span_row").rows()
    assert rows == [(0, "span-1", 0), (1, "renamed", 0), (2, "span-2", None)]
    issues = db.sql("SELECT code, json_path, message FROM issues ORDER BY json_path").rows()
    assert [i[0] for i in issues] == ["W_DUPLICATE_CONFLICT"] * 2
    assert "different content" in issues[0][2]
    assert f"span {1:016x} of trace {otlp.TRACE_ID}" in issues[0][2]


def test_conflicting_duplicates_across_imports_share_one_group(
    db: Database, otlp: SimpleNamespace, write: Write
) -> None:
    assert import_paths(db, [write("a.json", otlp.request(otlp.span(1), otlp.span(2)))]).ok
    assert import_paths(db, [write("b.json", otlp.request(otlp.span(1, name="v2")))]).ok
    assert import_paths(
        db, [write("c.json", otlp.request(otlp.span(1, name="v3"), otlp.span(2)))]
    ).ok
    rows = db.sql(
        "SELECT name, dup_group, source_id FROM spans "
        "WHERE span_id = '0000000000000001' ORDER BY span_row"
    ).rows()
    assert rows == [("span-1", 0, 1), ("v2", 0, 2), ("v3", 0, 3)]
    assert db.sql("SELECT dup_group FROM spans WHERE span_id = '0000000000000002'").item() is None
    conflicts = db.sql(
        "SELECT source_id, count(*) FROM issues "
        "WHERE code = 'W_DUPLICATE_CONFLICT' GROUP BY ALL ORDER BY 1"
    )
    assert conflicts.rows() == [(2, 1), (3, 1)]
    dedup = (
        db.sql("SELECT spans_deduplicated FROM imports ORDER BY source_id").to_series().to_list()
    )
    assert dedup == [0, 0, 1]  # c.json's span 2 is an exact copy


def test_same_span_id_in_two_traces_is_not_a_duplicate(
    db: Database, otlp: SimpleNamespace, write: Write
) -> None:
    other = "0af7651916cd43dd8448eb211c80319c"
    data = otlp.request(otlp.span(1), otlp.span(1, trace_id=other))
    (source,) = import_paths(db, [write("two.json", data)]).sources
    assert (source.spans, source.traces, source.spans_deduplicated) == (2, 2, 0)
    assert db.sql("SELECT count(*) FROM spans WHERE dup_group IS NOT NULL").item() == 0
    assert db.sql("SELECT count(*) FROM issues").item() == 0


def test_orphan_is_kept_and_a_later_parent_clears_it(
    db: Database, otlp: SimpleNamespace, write: Write
) -> None:
    child = otlp.request(otlp.span(2, parentSpanId=f"{1:016x}"))
    assert import_paths(db, [write("child.json", child)]).ok
    assert db.sql("SELECT is_root, is_orphan FROM spans").row(0) == (False, True)
    assert import_paths(db, [write("parent.json", otlp.request(otlp.span(1)))]).ok
    flags = db.sql("SELECT span_id, is_root, is_orphan FROM spans ORDER BY span_id").rows()
    assert flags == [(f"{1:016x}", True, False), (f"{2:016x}", False, False)]


def test_one_trace_across_two_files_is_one_trace(
    db: Database, otlp: SimpleNamespace, write: Write
) -> None:
    a = write("part-1.json", otlp.request(otlp.span(1), otlp.span(2, parentSpanId=f"{1:016x}")))
    b = write("part-2.jsonl", otlp.ndjson(otlp.request(otlp.span(3, parentSpanId=f"{2:016x}"))))
    assert import_paths(db, [a, b]).ok
    traces = db.sql("SELECT * FROM traces").to_dicts()
    assert len(traces) == 1
    assert (traces[0]["trace_id"], traces[0]["span_count"], traces[0]["root_count"]) == (
        otlp.TRACE_ID,
        3,
        1,
    )
    assert traces[0]["source_count"] == 2
    assert db.sql("SELECT count(*) FROM spans WHERE is_orphan").item() == 0


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


def test_value_excerpt_is_at_most_200_characters(otlp: SimpleNamespace) -> None:
    out = decode_export(otlp.dumps(otlp.request(otlp.span(1, spanId="z" * 500))), "x.json")
    (issue,) = out.issues
    assert issue.value_excerpt is not None and len(issue.value_excerpt) == 200
    assert issue.value_excerpt.endswith("…")


def test_every_cut_point_of_a_document_is_a_truncation(otlp: SimpleNamespace) -> None:
    spans = [
        otlp.span(
            1, attributes=[{"key": "b", "value": {"boolValue": True}}, {"key": "n", "value": None}]
        ),
        otlp.span(2, attributes=[{"key": "s", "value": {"stringValue": 'q"\\u00e9'}}]),
        otlp.span(
            3, status={"code": 2}, attributes=[{"key": "d", "value": {"doubleValue": -1.5e-3}}]
        ),
    ]
    data = otlp.dumps(otlp.request(*spans))
    ends = [data.index(otlp.dumps(s)) + len(otlp.dumps(s)) for s in spans]
    for n in range(1, len(data)):
        out = decode_export(data[:n], "cut.json")
        assert out.rejection is not None and out.rejection.code == "E_TRUNCATED_JSON", n
        complete = sum(end <= n for end in ends)
        assert f"; {complete} complete spans precede the cut" in out.rejection.problem, n
        kept = decode_export(data[:n], "cut.json", DecodeOptions(salvage=True))
        assert kept.span_count == complete, n
        assert kept.status == ("partial" if complete else "rejected"), n


def test_issues_of_dropped_duplicates_never_point_at_another_span(
    db: Database, otlp: SimpleNamespace, write: Write
) -> None:
    untimed = otlp.request(otlp.span(1, startTimeUnixNano=..., endTimeUnixNano=...))
    assert import_paths(db, [write("a.jsonl", otlp.ndjson(untimed, untimed))]).ok
    assert import_paths(db, [write("b.jsonl", otlp.ndjson(untimed))]).ok
    assert import_paths(db, [write("c.json", otlp.request(otlp.span(2)))]).ok  # reuses row ids
    dangling = db.sql(
        "SELECT i.code, i.span_row, s.span_id FROM issues i LEFT JOIN spans s USING (span_row) "
        "WHERE i.span_row IS NOT NULL"
    ).rows()
    assert dangling == [("W_MISSING_TIME", 0, f"{1:016x}")]
