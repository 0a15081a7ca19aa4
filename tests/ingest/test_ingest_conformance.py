"""The public conformance inputs (TRACE-FORMAT §4) and the spec's example export.

Every file is either ingested with exact span and issue counts or rejected with E_NOT_OTLP and a
message naming what it looks like; never a traceback, never half-parsed. Expected numbers were
read off the files themselves (README "What each file exercises"), not off the ingester.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace

import pytest

from valuechain.ingest.decode import DecodedSource, decode_export
from valuechain.pipeline.imports import import_paths
from valuechain.store import Database

EXAMPLE = "mcpjam-eval-run-2cases-2models-2reps.otlp.json"


@dataclass(frozen=True)
class Expected:
    status: str  # ok | rejected
    spans: int = 0
    traces: int = 0
    issues: dict[str, int] = field(default_factory=dict)
    flavor: str = "otlp-json"
    compression: str = "none"
    framing: str = "single"
    records: tuple[int, int, int, int] = (1, 1, 0, 0)  # read, ingested, other signal, quarantined
    rejection: tuple[str, ...] = ()  # fragments the rejection message must contain


EXPECTED: dict[str, Expected] = {
    "01_otel-proto_examples_trace.json": Expected("ok", spans=1, traces=1),
    "02_tempo_vulture_trace_base64ids.json": Expected(
        # 6 trace ids + 6 span ids + 4 parent ids, all base64: one aggregated row
        "ok",
        spans=6,
        traces=1,
        issues={"I_BASE64_IDS": 16},
        flavor="proto3-generic",
    ),
    "03_jaeger_apiv3_GetTrace_uint64time.json": Expected(
        "ok", spans=1, traces=1, issues={"W_TIME_OUT_OF_RANGE": 2}
    ),
    "04_jaeger_cassandra_otel_traces_01_links_events.json": Expected("ok", spans=1, traces=1),
    "05_jaeger_clickhouse_ptrace_empty_ids.json": Expected(
        "ok", spans=0, traces=0, issues={"E_MISSING_ID": 2}
    ),
    "06_otel-desktop-viewer_span_unknown_anyvalue.json": Expected(
        "ok", spans=1, traces=1, issues={"W_UNKNOWN_FIELD": 1, "W_MISSING_TIME": 1}
    ),
    "07_otel-tui_fileexporter_mixed_signals.ndjson.gz": Expected(
        "ok",
        spans=547,
        traces=141,
        issues={"I_OTHER_SIGNAL": 56},
        compression="gzip",
        framing="stream",
        records=(97, 41, 56, 0),
    ),
    "08_phoenix_pxi_turn_trace_openinference_spanjson.json": Expected(
        "rejected",
        issues={"E_NOT_OTLP": 1},
        records=(1, 0, 0, 1),
        rejection=("Phoenix", "OpenInference", "OTLP exporter"),
    ),
    "09_openinference_console_exporter_out.txt": Expected(
        "rejected",
        issues={"E_NOT_OTLP": 1},
        records=(0, 0, 0, 0),
        rejection=("console-exporter", "ConsoleSpanExporter"),
    ),
    EXAMPLE: Expected("ok", spans=72, traces=8),
}


@pytest.fixture(scope="module")
def path_of(shared: Path) -> dict[str, Path]:
    return {
        name: shared / ("spec/examples" if name == EXAMPLE else "conformance/otlp") / name
        for name in EXPECTED
    }


def test_the_table_covers_every_public_file(shared: Path) -> None:
    files = {p.name for p in (shared / "conformance/otlp").iterdir() if p.name != "README.md"}
    files |= {p.name for p in (shared / "spec/examples").glob("*.json")}
    assert files == set(EXPECTED)


@pytest.fixture(scope="module")
def decoded(path_of: dict[str, Path]) -> dict[str, DecodedSource]:
    return {name: decode_export(path.read_bytes(), name) for name, path in path_of.items()}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_decode_outcome(
    name: str, decoded: dict[str, DecodedSource], otlp: SimpleNamespace
) -> None:
    want, got = EXPECTED[name], decoded[name]
    acct = got.accounting
    assert got.status == want.status
    assert dict(got.issue_counts()) == want.issues
    assert (
        acct.records_read,
        acct.records_ingested,
        acct.records_other_signal,
        acct.records_quarantined,
    ) == want.records
    assert got.accounting.check(got.span_count, otlp.attribute_rows(got)) == []
    if want.status == "rejected":
        assert got.rejection is not None
        assert got.rejection.code == "E_NOT_OTLP"
        for fragment in want.rejection:
            assert fragment in str(got.rejection)
        return
    assert got.rejection is None
    assert got.span_count == want.spans
    assert (got.encoding_flavor, got.compression, got.framing) == (
        want.flavor,
        want.compression,
        want.framing,
    )


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_import_outcome_and_ledger(name: str, db: Database, path_of: dict[str, Path]) -> None:
    want = EXPECTED[name]
    report = import_paths(db, [path_of[name]])
    (source,) = report.sources
    ledger = db.sql("SELECT * FROM imports").to_dicts()
    if want.status == "rejected":
        assert source.outcome == "rejected"
        assert source.error is not None and source.error.code == "E_NOT_OTLP"
        text = source.error.render()  # one line: the file, what it looks like, a hint
        assert "\n" not in text
        assert text.startswith(str(path_of[name]))
        assert "Hint:" in text
        assert ledger == []
        assert db.sql("SELECT count(*) AS n FROM spans").item() == 0
        return
    assert source.outcome == "imported"
    assert (source.spans, source.traces) == (want.spans, want.traces)
    assert dict(source.issue_counts()) == want.issues
    (row,) = ledger
    assert row["status"] == "ok"
    assert row["span_rows"] == want.spans
    assert db.sql("SELECT count(*) AS n FROM spans").item() == want.spans
    assert db.sql("SELECT count(*) AS n FROM traces").item() == want.traces
    stored = db.sql("SELECT code, sum(occurrences) AS n FROM issues GROUP BY code").rows()
    assert dict(stored) == want.issues
    # §5.1, as recorded in the ledger
    assert row["records_read"] == (
        row["records_ingested"] + row["records_other_signal"] + row["records_quarantined"]
    )
    assert row["spans_read"] == (
        row["span_rows"] + row["spans_quarantined"] + row["spans_deduplicated"]
    )
    assert row["attributes_read"] == (
        row["attribute_rows"] + row["attributes_quarantined"] + row["attributes_deduplicated"]
    )
    assert row["attribute_rows"] == db.sql("SELECT count(*) AS n FROM attributes").item()


# ------------------------------------------------------------------ what each file exercises
@pytest.fixture
def imported(db: Database, path_of: dict[str, Path]) -> Callable[[str], Database]:
    def _import(name: str) -> Database:
        assert import_paths(db, [path_of[name]]).ok
        return db

    return _import


def test_01_uppercase_hex_lowered_and_parent_outside_the_file(
    imported: Callable[[str], Database],
) -> None:
    db = imported("01_otel-proto_examples_trace.json")
    row = db.sql("SELECT * FROM spans").to_dicts()[0]
    assert row["trace_id"] == "5b8efff798038103d269b633813fc60c"
    assert row["span_id"] == "eee19b7ec3c1b174"
    assert row["parent_span_id"] == "eee19b7ec3c1b173"
    assert (row["kind_name"], row["is_root"], row["is_orphan"]) == ("server", False, True)
    scope_attrs = db.sql("SELECT key, string_value FROM attributes WHERE owner_type = 'scope'")
    assert scope_attrs.rows() == [("my.scope.attribute", "some scope attribute")]


def test_02_base64_ids_decode_to_the_right_hex_and_two_roots(
    imported: Callable[[str], Database],
) -> None:
    db = imported("02_tempo_vulture_trace_base64ids.json")
    assert db.sql("SELECT encoding_flavor FROM imports").item() == "proto3-generic"
    want_trace = base64.b64decode("MUkZX/sL7AU0e0jv6OzBsA==").hex()
    assert want_trace == "3149195ffb0bec05347b48efe8ecc1b0"
    spans = {r["name"]: r for r in db.sql("SELECT * FROM spans").to_dicts()}
    assert {r["trace_id"] for r in spans.values()} == {want_trace}
    assert spans["vulture-68"]["span_id"] == "4b23de25d1fb6641"  # SyPeJdH7ZkE=
    assert spans["vulture-45"]["parent_span_id"] == "4b23de25d1fb6641"
    assert spans["vulture-36"]["span_id"] == "083a27a20c7b6de3"  # CDonogx7beM=
    roots = sorted(name for name, r in spans.items() if r["is_root"])
    assert roots == ["vulture-36", "vulture-68"]
    assert db.sql("SELECT root_count FROM traces").item() == 2
    assert {r["kind"] for r in spans.values()} == {0}  # kind missing = UNSPECIFIED
    assert {r["status_code"] for r in spans.values()} == {0}  # empty status = UNSET
    unnamed = db.sql("SELECT count(*) AS n FROM events WHERE name IS NULL").item()
    assert unnamed == db.sql("SELECT count(*) AS n FROM events").item() > 0


def test_03_uint64_time_kept_raw_timestamp_null(imported: Callable[[str], Database]) -> None:
    db = imported("03_jaeger_apiv3_GetTrace_uint64time.json")
    row = db.sql("SELECT * FROM spans").to_dicts()[0]
    assert row["start_time_unix_nano"] == 11651379494838206464
    assert row["end_time_unix_nano"] == 11651379494838206464
    assert row["start_time"] is None and row["end_time"] is None
    assert row["duration_ns"] == 0
    assert row["is_root"] is True  # parentSpanId ""
    assert (row["trace_id"], row["span_id"]) == (
        "000000000000009600000000000000a0",
        "00000000000000b4",
    )


def test_04_links_events_bytes_state_flags_status(imported: Callable[[str], Database]) -> None:
    db = imported("04_jaeger_cassandra_otel_traces_01_links_events.json")
    span = db.sql("SELECT * FROM spans").to_dicts()[0]
    assert (span["trace_state"], span["flags"]) == ("some-state", 1)
    assert (span["status_code"], span["status_name"], span["status_message"]) == (
        2,
        "error",
        "random-message",
    )
    blob = db.sql("SELECT value_type, bytes_value FROM attributes WHERE key = 'blob'").row(0)
    assert blob == ("bytes", "00003039")  # AAAwOQ==
    temperature = db.sql("SELECT double_value FROM attributes WHERE key = 'temperature'").item()
    assert temperature == 72.5
    events = db.sql("SELECT ordinal, name, time_unix_nano FROM events ORDER BY ordinal").rows()
    assert events == [(0, None, 1485467191639875000), (1, "testing-event", 1485467191639875000)]
    event_attrs = db.sql(
        "SELECT key, string_value FROM attributes WHERE owner_type = 'event' ORDER BY key"
    ).rows()
    assert event_attrs == [("event-x", "event-y"), ("x", "y")]
    links = db.sql(
        "SELECT linked_trace_id, linked_span_id, target_present FROM links ORDER BY ordinal"
    ).rows()
    assert links == [
        ("00000000000000010000000000000000", "0000000000000004", False),
        ("00000000000000ff0000000000000000", "00000000000000ff", False),  # another trace
    ]
    link_attr = db.sql(
        "SELECT string_value FROM attributes WHERE owner_type = 'link' ORDER BY owner_row"
    ).to_series()
    assert link_attr.to_list() == ["follows_from", "child_of"]


def test_05_quarantined_span_keeps_raw_json_and_every_variant(
    imported: Callable[[str], Database],
) -> None:
    db = imported("05_jaeger_clickhouse_ptrace_empty_ids.json")
    (quarantined,) = db.sql("SELECT * FROM core.quarantine").to_dicts()
    assert quarantined["codes"] == ["E_MISSING_ID", "E_MISSING_ID"]
    assert quarantined["json_path"] == "resourceSpans[0].scopeSpans[0].spans[0]"
    assert '"app.payment.amount"' in quarantined["raw_json"]
    assert '"link.test.bytes.value"' in quarantined["raw_json"]
    ledger = db.sql("SELECT * FROM imports").to_dicts()[0]
    # 6 span + 8 event + 5 link attributes went with the span; 8 + 8 resource/scope stayed
    assert (ledger["spans_quarantined"], ledger["attributes_quarantined"]) == (1, 19)
    assert ledger["attribute_rows"] == 16
    types = db.sql(
        "SELECT owner_type, list(DISTINCT value_type ORDER BY value_type) AS t "
        "FROM attributes GROUP BY owner_type ORDER BY owner_type"
    ).rows()
    assert types == [
        ("resource", ["bool", "bytes", "double", "int", "string"]),
        ("scope", ["bool", "bytes", "double", "int", "string"]),
    ]
    memory = db.sql(
        "SELECT value_type, double_value FROM attributes WHERE key = 'host.memory.swap'"
    )
    assert memory.row(0) == ("double", 2048.0)  # an integral double stays a double


def test_06_unknown_anyvalue_key_reads_as_empty_and_is_kept(
    imported: Callable[[str], Database],
) -> None:
    db = imported("06_otel-desktop-viewer_span_unknown_anyvalue.json")
    attr = db.sql("SELECT * FROM attributes WHERE key = 'service.name'").to_dicts()[0]
    assert attr["value_type"] == "empty"
    assert attr["string_value"] is None
    unknown = db.sql("SELECT json_path, raw_json FROM core.unknown_fields").rows()
    assert unknown == [
        ("resourceSpans[0].resource.attributes[0].value.anyValue", '"test-with-curl"')
    ]
    span = db.sql("SELECT start_time_unix_nano, duration_ns FROM spans").row(0)
    assert span == (None, None)


def test_07_collector_capture(imported: Callable[[str], Database]) -> None:
    db = imported("07_otel-tui_fileexporter_mixed_signals.ndjson.gz")
    ledger = db.sql("SELECT * FROM imports").to_dicts()[0]
    assert (ledger["compression"], ledger["framing"]) == ("gzip", "stream")
    assert (ledger["bytes_raw"], ledger["bytes_decoded"]) == (140836, 2323119)
    assert db.sql("SELECT count(*) FROM traces").item() == 141
    # 101 of the 141 traces are spread over several lines (records) of the file
    split = db.sql(
        "SELECT count(*) FROM (SELECT trace_id FROM spans GROUP BY trace_id "
        "HAVING count(DISTINCT record_index) > 1)"
    ).item()
    assert split == 101
    exceptions = db.sql(
        "SELECT e.event_row, list(a.key ORDER BY a.key) AS keys FROM events e "
        "JOIN attributes a ON a.owner_type = 'event' AND a.owner_row = e.event_row "
        "WHERE e.name = 'exception' GROUP BY e.event_row"
    )
    assert exceptions.height == 39
    assert all(
        {"exception.type", "exception.message", "exception.stacktrace"} <= set(keys)
        for keys in exceptions["keys"]
    )
    assert db.sql("SELECT count(*) FROM attributes WHERE key = 'exception.escaped'").item() > 0
    links = db.sql(
        "SELECT count(*) AS n, count(*) FILTER (target_present) AS present, "
        "count(*) FILTER (linked_trace_id <> trace_id) AS cross_trace FROM links"
    ).row(0)
    assert links == (53, 53, 53)


def test_spec_example_reads_every_mcp_app_role(imported: Callable[[str], Database]) -> None:
    db = imported(EXAMPLE)
    roles = dict(db.sql("SELECT mcp_app_role, count(*) FROM spans GROUP BY ALL").rows())
    assert roles["trial"] == 8
    assert sum(roles.values()) == 72
    assert db.sql("SELECT count(*) FROM spans WHERE is_orphan").item() == 0


def test_vendored_files_are_the_public_bytes(shared: Path) -> None:
    """Every conformance file still has the SHA-256 its README records (never edited)."""
    readme = (shared / "conformance/otlp/README.md").read_text()
    recorded = dict(
        reversed(line.split()[:2])
        for line in readme.splitlines()
        if len(line.split()) >= 2 and len(line.split()[0]) == 64 and line.split()[1][0].isdigit()
    )
    assert len(recorded) == 9
    for name, digest in recorded.items():
        assert (
            hashlib.sha256((shared / "conformance/otlp" / name).read_bytes()).hexdigest() == digest
        )
