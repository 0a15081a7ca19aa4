"""Duplicates and trace assembly through the store: exact copies are kept once, conflicting
ones are grouped, a trace spread over files and imports is one trace, and the ledger accounts
for every span across imports (TRACE-FORMAT §5.1).
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import orjson
from hypothesis import given
from hypothesis import strategies as st
from ingest_builders import Write
from ingest_checks import accounted, check_decoded
from ingest_strategies import STORE, all_spans, encode, requests

from valuechain.ingest.decode import decode_export
from valuechain.pipeline.imports import ImportOptions, import_paths
from valuechain.store import Database


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
    row = accounted(db)
    assert (row["spans_read"], row["span_rows"], row["spans_deduplicated"]) == (4, 2, 2)
    assert row["attributes_deduplicated"] == 3  # both spans' own, and the repeated resource's
    assert db.sql("SELECT count(*) FROM core.resources").item() == 1
    assert db.sql("SELECT count(*) FROM core.scopes").item() == 1


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
    # the span's own attribute, its event's, and the resource's (stored once: 11.7)
    assert ledger.rows() == [(0, 0), (1, 3)]
    assert db.sql("SELECT count(*) FROM attributes WHERE owner_type = 'resource'").item() == 1


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


@STORE
@given(
    first=requests(),
    second=requests(),
    shared=st.integers(min_value=0, max_value=3),
    ids=st.sampled_from(["hex", "b64"]),
)
def test_the_ledger_accounts_for_every_span_across_imports(
    first: dict[str, Any], second: dict[str, Any], shared: int, ids: str
) -> None:
    # the second source re-sends some spans of the first one (a retry, an overlapping export)
    resent = all_spans(first)[:shared]
    second["resourceSpans"][0]["scopeSpans"][0]["spans"].extend(resent)
    second["resourceSpans"][0]["scopeSpans"][0]["scope"] = first["resourceSpans"][0]["scopeSpans"][
        0
    ]["scope"]
    second["resourceSpans"][0]["resource"] = first["resourceSpans"][0]["resource"]
    with Database(":memory:") as db, tempfile.TemporaryDirectory() as folder:
        for name, request in (("a.json", first), ("b.json", second)):
            data = orjson.dumps(encode(request, ids))
            check_decoded(decode_export(data, name))
            path = Path(folder) / name
            path.write_bytes(data)
            import_paths(db, [path], ImportOptions())  # rejected or unchanged: nothing written
        for row in db.sql("SELECT * FROM imports").to_dicts():
            assert (
                row["spans_read"]
                == row["span_rows"] + row["spans_quarantined"] + row["spans_deduplicated"]
            )
            assert row["attributes_read"] == (
                row["attribute_rows"]
                + row["attributes_quarantined"]
                + row["attributes_deduplicated"]
            )
        stored = db.sql("SELECT sum(span_rows) AS n, sum(attribute_rows) AS a FROM imports").row(0)
        assert (stored[0] or 0) == db.sql("SELECT count(*) FROM core.spans").item()
        assert (stored[1] or 0) == db.sql("SELECT count(*) FROM core.attributes").item()
        distinct = db.sql(
            "SELECT count(*) FROM (SELECT DISTINCT trace_id, span_id, content_hash FROM core.spans)"
        ).item()
        assert (
            distinct == db.sql("SELECT count(*) FROM core.spans").item()
        )  # no exact duplicate kept
