"""Ingest at scale: every framing of TRACE-FORMAT §1.8/§5.3 gives the same tables, parts and
batches give what one pass gives, the fast path is byte-identical to the reference decoder,
broken binary records are quarantined with their byte range, and memory stays bounded.
"""

from __future__ import annotations

import base64
import dataclasses
import gzip
import json
import math
import os
import struct
import subprocess
import sys
import textwrap
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import orjson
import pyarrow as pa
import pyarrow.compute
import pytest

from valuechain.contract import tables
from valuechain.ingest.bytes import framing
from valuechain.ingest.bytes.compression import Unpacker, zstd_compress
from valuechain.ingest.decode import DecodedSource, DecodeOptions, decode_export
from valuechain.ingest.otlp.proto import parse_request
from valuechain.ingest.source.parts import PartDecoder
from valuechain.pipeline import ImportOptions, commit, import_paths
from valuechain.store import Database
from valuechain.synth import SynthConfig, _proto, write_export

TABLES = (
    "resources",
    "scopes",
    "spans",
    "attributes",
    "events",
    "links",
    "large_values",
    "quarantine",
    "unknown_fields",
    "issues",
)
SMALL = SynthConfig(runs=2, cases=3, models=2, reps=2, seed=7)
FRAMINGS: dict[str, dict[str, Any]] = {
    "ndjson-gzip": {"ndjson": True, "gzip": True},
    "ndjson-zstd-native": {"ndjson": True, "zstd": "native"},
    "json-zstd-legacy": {"zstd": "legacy"},
    "proto-length-prefixed": {"proto": True},
    "proto-zstd-legacy": {"proto": True, "zstd": "legacy"},
    "proto-zstd-native": {"proto": True, "zstd": "native"},
}
EXPECTED = {
    "ndjson-gzip": ("gzip", "stream", "otlp-json"),
    "ndjson-zstd-native": ("zstd-native", "stream", "otlp-json"),
    "json-zstd-legacy": ("zstd-legacy", "length-prefixed", "otlp-json"),
    "proto-length-prefixed": ("none", "length-prefixed", "otlp-proto"),
    "proto-zstd-legacy": ("zstd-legacy", "length-prefixed", "otlp-proto"),
    "proto-zstd-native": ("zstd-native", "length-prefixed", "otlp-proto"),
}


def rows(table: pa.Table) -> list[dict[str, Any]]:
    """Rows with NaN made comparable (NaN never equals itself); types checked separately."""
    for i, column in enumerate(table.schema):
        if pa.types.is_timestamp(column.type):
            table = table.set_column(i, column.name, table[column.name].cast(pa.int64()))
    return [
        {k: "NaN" if isinstance(v, float) and math.isnan(v) else v for k, v in row.items()}
        for row in table.to_pylist()
    ]


def same(a: DecodedSource, b: DecodedSource) -> None:
    assert a.tables.keys() == b.tables.keys()
    for name in a.tables:
        assert a.tables[name].schema == b.tables[name].schema, name
        assert rows(a.tables[name]) == rows(b.tables[name]), name
    assert a.accounting == b.accounting
    assert a.issues == b.issues


@pytest.fixture(scope="module")
def exports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("framings")
    paths = {"ndjson": write_export(folder / "a.jsonl", SMALL, ndjson=True).path}
    for name, flags in FRAMINGS.items():
        paths[name] = write_export(folder / f"{name}.out", SMALL, **flags).path
    paths["document"] = write_export(folder / "doc.json", SMALL).path
    return paths


@pytest.mark.parametrize("batch_bytes", [1 << 30, 30_000])
@pytest.mark.parametrize("framing", list(FRAMINGS))
def test_every_framing_gives_the_tables_of_ndjson(
    exports: dict[str, Path], framing: str, batch_bytes: int
) -> None:
    reference = decode_export(exports["ndjson"].read_bytes(), "a", DecodeOptions(fast=False))
    options = DecodeOptions(batch_bytes=batch_bytes)
    decoded = decode_export(exports[framing].read_bytes(), "a", options)
    assert decoded.status == "ok"
    same(reference, decoded)
    assert (decoded.compression, decoded.framing, decoded.encoding_flavor) == EXPECTED[framing]


def test_a_bare_pb_and_a_document_hold_the_same_spans(exports: dict[str, Path]) -> None:
    ndjson = decode_export(exports["ndjson"].read_bytes(), "a")
    lines = exports["ndjson"].read_bytes().splitlines()
    # a bare .pb: one ExportTraceServiceRequest holding every ResourceSpans of the export
    data = b"".join(_first_record_as_pb(line) for line in lines)
    request = parse_request(data)  # concatenated messages merge: one request
    assert len(request.resource_spans) == len(lines)
    bare = decode_export(data, "a.pb")
    assert (bare.status, bare.framing, bare.encoding_flavor) == ("ok", "single", "otlp-proto")
    assert bare.accounting.records_read == 1
    for name in ("spans", "attributes"):
        drop = ["record_index", "json_path", "resource_row", "scope_row"] if name == "spans" else []
        left = ndjson.tables[name].drop_columns(drop)
        right = bare.tables[name].drop_columns(drop)
        if name == "attributes":  # resource and scope rows are numbered per request
            left, right = (
                t.filter(pa.compute.equal(t["owner_type"], "span")) for t in (left, right)
            )
        assert left.equals(right), name
    document = decode_export(exports["document"].read_bytes(), "doc.json")
    key = ("trace_id", "span_id", "content_hash")
    assert sorted(zip(*(document.tables["spans"][k].to_pylist() for k in key), strict=True)) == (
        sorted(zip(*(ndjson.tables["spans"][k].to_pylist() for k in key), strict=True))
    )


def _first_record_as_pb(line: bytes) -> bytes:
    return _proto(orjson.loads(line))


# ---------------------------------------------------------------------------- fast vs reference
ODD_RECORDS: list[Any] = [
    {"resource_spans": []},  # snake_case, empty
    {"resourceMetrics": []},
    [1, 2],
    "NOT JSON AT ALL",
]


def _array(*items: str | dict[str, Any]) -> dict[str, Any]:
    """An attribute holding an arrayValue; a str item is a plain stringValue."""
    values = [{"stringValue": i} if isinstance(i, str) else i for i in items]
    return {"key": "k", "value": {"arrayValue": {"values": values}}}


def _odd_lines(otlp: SimpleNamespace) -> list[bytes]:
    span = otlp.span
    b64 = base64.b64encode(bytes.fromhex(otlp.TRACE_ID)).decode()
    requests = [
        otlp.request(span(1, kind="SPAN_KIND_SERVER")),
        otlp.request(span(2, traceId=b64)),
        otlp.request(span(3, attributes=[{"key": "a", "value": {"intValue": 5}}])),
        otlp.request(span(4, attributes=[{"key": "a", "value": {"stringValue": "x"}}] * 2)),
        otlp.request(span(5, endTimeUnixNano="1")),
        otlp.request(span(6, droppedAttributesCount=2)),
        otlp.request(span(7, startTimeUnixNano=...)),
        otlp.request(span(8, attributes=[{"key": "d", "value": {"doubleValue": "NaN"}}])),
        otlp.request(span(9, attributes=[{"key": "b", "value": {"bytesValue": "AAEC"}}])),
        otlp.request(span(10, attributes=[{"key": "s", "value": {"stringValue": "x" * 50}}])),
        otlp.request(span(11, events=[{"name": "e", "timeUnixNano": "0"}], links=[])),
        otlp.request(span(12, unknown=1)),
        otlp.request(span(13, attributes=[{"key": "k", "value": {"arrayValue": {}}}])),
        otlp.request(span(16, attributes=[_array("a", 'é\n\u2028"', "")])),  # plain strings
        otlp.request(span(17, attributes=[_array({"stringValue": "a", "intValue": "1"})])),
        otlp.request(span(18, attributes=[_array({"stringValue": None}, {"boolValue": True})])),
        otlp.request(span(19, attributes=[_array({"arrayValue": {"values": []}}, "x")])),
        otlp.request(
            span(20, attributes=[{"key": "k", "value": {"arrayValue": {"values": [], "x": 1}}}])
        ),
        otlp.request(span(1)),  # an exact duplicate of a canonical span
        otlp.request(span(1, name="changed")),  # a conflicting one
    ]
    lines = [orjson.dumps(r) for r in requests]
    lines += [orjson.dumps(r) for r in ODD_RECORDS]
    lines.append(b'{"resourceSpans": [], "x": NaN}')
    lines.append(json.dumps(otlp.request(span(14, name="\ud800"))).encode())
    lines.append(b"  " + orjson.dumps(otlp.request(span(15))))
    return lines


@pytest.mark.parametrize("seed", [1, 2])
def test_fast_path_is_byte_identical_to_the_reference(
    tmp_path: Path, otlp: SimpleNamespace, seed: int
) -> None:
    path = write_export(tmp_path / "a.jsonl", SynthConfig(runs=2, seed=seed), ndjson=True).path
    lines = path.read_bytes().splitlines()
    odd = _odd_lines(otlp)
    mixed = [x for pair in zip(lines, odd + [b""] * len(lines), strict=False) for x in pair]
    data = b"\n".join(mixed) + b"\n" + b'{"resourceSpans": [{"scopeSpans": [{"spans": [{"tr'
    for batch_bytes in (1 << 30, 40_000):
        options = DecodeOptions(batch_bytes=batch_bytes, large_value_threshold=40)
        reference = decode_export(data, "x", DecodeOptions(fast=False, large_value_threshold=40))
        fast = decode_export(data, "x", options)
        same(reference, fast)
        assert (fast.status, fast.framing) == (reference.status, reference.framing)
        assert fast.accounting.records_quarantined > 0


def test_protobuf_records_through_the_fast_path_match_the_reference(
    tmp_path: Path, otlp: SimpleNamespace
) -> None:
    from google.protobuf import json_format  # noqa: PLC0415
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (  # noqa: PLC0415
        ExportTraceServiceRequest,
    )

    span = otlp.span
    odd = [  # what protobuf can carry that the fast path must hand to the reference
        otlp.request(span(1, droppedAttributesCount=2)),
        otlp.request(span(2, endTimeUnixNano="1")),
        otlp.request(span(3, attributes=[{"key": "a", "value": {"stringValue": "x"}}] * 2)),
        otlp.request(span(4, attributes=[{"key": "s", "value": {"stringValue": "x" * 3000}}])),
        otlp.request(span(5, events=[{"name": "e", "timeUnixNano": "0"}])),
        otlp.request(span(6, attributes=[{"key": "k", "value": {"kvlistValue": {"values": []}}}])),
        otlp.request(span(7, attributes=[_array("a", "é")])),
        {"resourceSpans": [{"scopeSpans": []}]},
    ]
    for request in odd:  # protobuf's JSON mapping reads bytes fields as base64
        for rs in request["resourceSpans"]:
            for ss in rs["scopeSpans"]:
                for s in ss["spans"]:
                    for key in ("traceId", "spanId"):
                        s[key] = base64.b64encode(bytes.fromhex(s[key])).decode()
    payloads = [
        json_format.ParseDict(r, ExportTraceServiceRequest()).SerializeToString() for r in odd
    ]
    synth = write_export(tmp_path / "a.pb", SynthConfig(runs=1, seed=4), proto=True).path
    data = synth.read_bytes() + _records(*payloads)
    options = DecodeOptions(large_value_threshold=2000, batch_bytes=30_000)
    reference = decode_export(data, "x.pb", dataclasses.replace(options, fast=False))
    fast = decode_export(data, "x.pb", options)
    same(reference, fast)
    assert fast.issue_counts() == reference.issue_counts() != {}
    taken = PartDecoder(options).run_part(framing.Records(data, 0, True))
    assert 0 < taken.fast_records < reference.accounting.records_read  # both paths were used
    for bare in payloads:  # a bare .pb holding one request takes the same two paths
        one = decode_export(bare, "x.pb", dataclasses.replace(options, fast=False))
        same(one, decode_export(bare, "x.pb", options))
    assert PartDecoder(options).run_part(framing.Whole(payloads[6])).fast_records == 1


def test_fast_path_takes_the_canonical_records(tmp_path: Path) -> None:
    path = write_export(tmp_path / "a.jsonl", SMALL, ndjson=True).path
    data = path.read_bytes()
    result = PartDecoder(DecodeOptions()).run_part(framing.Lines(data, 0, 1, True))
    assert result.fast_records == data.count(b"\n") > 0


# ---------------------------------------------------------------------------- store
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
        decoded = decode_export(path.read_bytes(), str(path), DecodeOptions(batch_bytes=1 << 30))
        commit(one, decoded, 1, ImportOptions(derive=False))
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


# ---------------------------------------------------------------------------- collector files
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


# ---------------------------------------------------------------------------- broken binary
def _records(*payloads: bytes) -> bytes:
    return b"".join(struct.pack(">I", len(p)) + p for p in payloads)


def _pb(otlp: SimpleNamespace, n: int) -> bytes:
    return _proto(otlp.request(otlp.span(n)))


def test_a_protobuf_record_that_does_not_parse_is_quarantined_with_its_byte_range(
    otlp: SimpleNamespace,
) -> None:
    good, bad = _pb(otlp, 1), b"\x0a\xff\xff\xff\x0fnot a protobuf"
    data = _records(good, bad, _pb(otlp, 2))
    decoded = decode_export(data, "a.pb")
    assert decoded.status == "partial"
    assert decoded.span_count == 2
    start, end = 4 + len(good), 4 + len(good) + 4 + len(bad)
    (issue,) = [i for i in decoded.issues if i.code.value == "E_INVALID_PROTO_RECORD"]
    assert f"bytes {start}–{end}" in issue.message
    assert issue.byte_offset == start
    quarantine = decoded.tables["quarantine"].to_pylist()
    assert base64.b64decode(orjson.loads(quarantine[0]["raw_json"])) == data[start:end]
    assert decoded.accounting.check(decoded.span_count, decoded.tables["attributes"].num_rows) == []


def test_a_cut_length_prefixed_file_keeps_its_whole_records(otlp: SimpleNamespace) -> None:
    data = _records(_pb(otlp, 1), _pb(otlp, 2))
    decoded = decode_export(data[:-5], "live.pb")
    assert (decoded.status, decoded.span_count) == ("partial", 1)
    assert decoded.issue_counts()["E_TRUNCATED_RECORD"] == 1


def test_truncated_zstd_keeps_the_complete_records(tmp_path: Path) -> None:
    native = write_export(tmp_path / "a.zst", SMALL, ndjson=True, zstd="native").path
    whole = decode_export(native.read_bytes(), "a")
    data = native.read_bytes()
    cut = decode_export(data[: len(data) * 2 // 3], "a")
    assert cut.status == "partial"
    assert 0 < cut.span_count < whole.span_count
    assert cut.issue_counts()["E_TRUNCATED_COMPRESSION"] == 1
    legacy = write_export(tmp_path / "b.bin", SMALL, zstd="legacy").path.read_bytes()
    (size,) = struct.unpack_from(">I", legacy)
    first = legacy[: 4 + size]
    broken = first + struct.pack(">I", 40) + zstd_compress(os.urandom(1000))[:40]
    decoded = decode_export(broken, "b")
    assert decoded.status == "partial"
    assert decoded.issue_counts()["E_TRUNCATED_COMPRESSION"] == 1
    assert decoded.accounting.records_ingested == 1


def test_gzip_streaming_matches_the_one_shot_decompressor(otlp: SimpleNamespace) -> None:
    data = gzip.compress(otlp.ndjson(*[otlp.request(otlp.span(n)) for n in range(50)]))
    for blob in (data, data + b"\x00\x00" + data, data[:-7], data + b"junk"):
        one = Unpacker([blob], 10_000)  # the whole input in one piece
        data_one = b"".join(one)
        stream = Unpacker([blob[i : i + 100] for i in range(0, len(blob), 100)], 10_000)
        assert b"".join(stream) == data_one
        assert (stream.problem, stream.message) == (one.problem, one.message)


# ---------------------------------------------------------------------------- memory
def test_memory_stays_bounded_on_a_large_input(tmp_path: Path) -> None:
    path = tmp_path / "big.jsonl"
    config = SynthConfig(runs=4, cases=20, models=4, reps=13, seed=3)
    summary = write_export(path, config, ndjson=True)
    assert summary.bytes_written > 90 * 2**20
    script = textwrap.dedent(
        f"""
        import resource, sys
        from valuechain.pipeline import ImportOptions, import_paths
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


def test_decode_table_types_are_the_contract() -> None:
    decoded = decode_export(b'{"resourceSpans":[]}\n' * 2, "x")
    for name, table in decoded.tables.items():
        assert isinstance(table, pa.Table)
        assert table.schema == tables.SPAN_TABLES[name], name
