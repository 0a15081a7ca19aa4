"""ingest/bytes/salvage.py: a truncated single document (TRACE-FORMAT §5.2 ``E_TRUNCATED_JSON``)
is rejected with the byte offset and the count of complete spans, or, with ``--salvage``,
keeps exactly those spans.
"""

from __future__ import annotations

import math
from types import SimpleNamespace

from ingest_builders import Write, cut_in_third_span, three_spans

from valuechain.ingest.decode import DecodeOptions, decode_export
from valuechain.pipeline.imports import ImportOptions, import_paths
from valuechain.store import Database


def test_truncated_document_message_gives_the_byte_offset(otlp: SimpleNamespace) -> None:
    data = cut_in_third_span(three_spans(otlp))
    out = decode_export(data, "cut.json")
    assert out.rejection is not None
    assert out.rejection.pointer == f"byte {len(data)}"
    assert str(out.rejection).startswith(f"cut.json: byte {len(data)}: ")
    assert out.issue_counts() == {"E_TRUNCATED_JSON": 1}


def test_salvage_keeps_exactly_the_complete_spans(
    db: Database, otlp: SimpleNamespace, write: Write
) -> None:
    data = cut_in_third_span(three_spans(otlp))
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
    out = decode_export(three_spans(otlp)[:60], "cut.json", DecodeOptions(salvage=True))
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
