"""The native path (ingest/otlp/native.py) against the exact decoder: the differential guard.

Every conformance fixture, every corpus export and every other file under fixtures/ decodes to
the same tables (schema and rows, in order), the same issues and the same accounting through
the native path as through the reference decoder alone; and so does any generated export, as
one document or NDJSON cut in parts of any size. A record the native path refuses is decoded
by the msgspec fast path or the reference, and counted.
"""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st
from ingest_checks import same
from ingest_strategies import FAST, encode, requests

from valuechain.ingest.decode import DecodedSource, DecodeOptions, decode_export
from valuechain.ingest.otlp import native as otlp_native
from valuechain.ingest.source import native_parts
from valuechain.synth import SynthConfig, write_export

ROOT = Path(__file__).resolve().parents[2]
SHARED = Path("/work/shared/conformance/otlp")
FIXTURES = sorted(
    p
    for p in [*(ROOT / "fixtures").rglob("*"), *(SHARED.glob("*") if SHARED.is_dir() else [])]
    if p.is_file() and p.name != "README.md"
)


def _paths(data: bytes, name: str, **options: Any) -> tuple[DecodedSource, DecodedSource]:
    native = decode_export(data, name, DecodeOptions(native_parts=True, **options))
    exact = decode_export(data, name, DecodeOptions(fast=False, **options))
    return native, exact


def _identical(native: DecodedSource, exact: DecodedSource) -> None:
    same(native, exact)  # every table: schema and rows in order, values exact (NaN as NaN)
    for field in ("status", "framing", "compression", "encoding_flavor", "bytes_decoded"):
        assert getattr(native, field) == getattr(exact, field), field
    assert (native.rejection is None) == (exact.rejection is None)
    if native.rejection is not None and exact.rejection is not None:
        assert str(native.rejection) == str(exact.rejection)


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: str(p.relative_to(p.parents[2])))
@pytest.mark.parametrize(
    ("batch_bytes", "workers"),
    [(1 << 30, 0), (2_000, 0), (2_000, 2)],  # 2 workers: a document over a batch is split
)
def test_every_fixture_decodes_identically_through_the_native_path(
    path: Path, batch_bytes: int, workers: int
) -> None:
    options = {"batch_bytes": batch_bytes, "workers": workers}
    native, exact = _paths(path.read_bytes(), path.name, **options)
    _identical(native, exact)
    assert exact.native_records == 0
    default = decode_export(path.read_bytes(), path.name, DecodeOptions(**options))
    _identical(default, exact)


def test_the_fixtures_include_the_conformance_set_and_the_corpus() -> None:
    folders = {str(p.parent.relative_to(ROOT / "fixtures")) for p in FIXTURES if ROOT in p.parents}
    assert {"public/conformance/otlp", "public/corpus", "duplicates/opentelemetry-rust"} <= folders
    assert "sample" in folders


def test_a_synthetic_export_takes_the_native_path_whole_and_in_parts(tmp_path: Path) -> None:
    path = write_export(tmp_path / "a.jsonl", SynthConfig(runs=2, seed=3), ndjson=True).path
    data = path.read_bytes()
    records = data.count(b"\n")
    for batch_bytes in (1 << 30, 50_000):
        native, exact = _paths(data, "a.jsonl", batch_bytes=batch_bytes)
        _identical(native, exact)
        assert native.native_records == records
    document = write_export(tmp_path / "b.json", SynthConfig(runs=1, seed=4)).path
    native, exact = _paths(document.read_bytes(), "b.json")
    _identical(native, exact)
    assert native.native_records == 1


def _first_resources(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The ``first_resource`` of every native decode, as they happen."""
    firsts: list[int] = []
    original = otlp_native.decode

    def decode(table: Any, threshold: int, first_resource: int = 0, **kwargs: Any) -> Any:
        firsts.append(first_resource)
        return original(table, threshold, first_resource, **kwargs)

    monkeypatch.setattr(otlp_native, "decode", decode)
    return firsts


def test_a_large_document_streams_in_runs_of_its_spans(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A single document over one batch is cut between its spans (one resourceSpans item per
    run here): the runs, each decoded on its own, read as the whole document."""
    data = write_export(tmp_path / "c.json", SynthConfig(runs=5, seed=6)).path.read_bytes()
    firsts = _first_resources(monkeypatch)
    for workers in (0, 2):
        firsts.clear()
        native, exact = _paths(data, "c.json", batch_bytes=1_000, workers=workers)
        _identical(native, exact)
        assert native.native_records == 1
        assert len(firsts) > 1 and firsts == sorted(firsts) and firsts[0] == 0


def test_a_document_refused_in_runs_is_read_again_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run the native path refuses (here: a null, which it never takes) refuses the streamed
    reading; the document is read again whole and cut between its items of about the same
    number of spans, each run decoded by a thread — and then read by the exact decoder."""
    path = write_export(tmp_path / "c.json", SynthConfig(runs=5, seed=6)).path
    request = orjson.loads(path.read_bytes())
    request["resourceSpans"][3]["scopeSpans"][0]["spans"][-1]["traceState"] = None
    data = orjson.dumps(request)
    firsts = _first_resources(monkeypatch)
    native, exact = _paths(data, "c.json", batch_bytes=1_000, workers=2)
    _identical(native, exact)
    assert native.native_records == 0  # the whole document holds the null: not native
    assert firsts[:1] == [0]  # a run decoded before the refused one


@pytest.mark.parametrize(
    "shape",
    ["crlf", "blank lines", "bom", "no final newline", "two on one line", "leading spaces"],
)
def test_line_shapes_decode_identically(tmp_path: Path, shape: str) -> None:
    path = write_export(tmp_path / "a.jsonl", SynthConfig(runs=1, seed=5), ndjson=True).path
    lines = path.read_bytes().splitlines()[:4]
    data = {
        "crlf": b"\r\n".join(lines) + b"\r\n",
        "blank lines": lines[0] + b"\n\n" + lines[1] + b"\n   \n" + lines[2],
        "bom": b"\xef\xbb\xbf" + b"\n".join(lines),
        "no final newline": b"\n".join(lines),
        "two on one line": lines[0] + lines[1] + b"\n" + lines[2],
        "leading spaces": b"  " + lines[0] + b"\n" + lines[1],
    }[shape]
    for batch_bytes in (1 << 30, 1_000):
        native, exact = _paths(data, "a.jsonl", batch_bytes=batch_bytes)
        _identical(native, exact)
        assert native.native_records > 0


# ---------------------------------------------------------------------------- refusals
def _span(**fields: Any) -> dict[str, Any]:
    span = {
        "traceId": "5b8efff798038103d269b633813fc60c",
        "spanId": "eee19b7ec3c1b174",
        "name": "s",
        "startTimeUnixNano": "1544712660000000000",
        "endTimeUnixNano": "1544712661000000000",
    }
    span.update(fields)
    return {k: v for k, v in span.items() if v is not ...}


def _request(*spans: dict[str, Any]) -> bytes:
    return orjson.dumps({"resourceSpans": [{"scopeSpans": [{"spans": list(spans)}]}]})


REFUSED = {
    "null": b'{"resourceSpans": [{"scopeSpans": [{"spans": [], "schemaUrl": null}]}]}',
    "NaN": _request(_span(attributes=[{"key": "d", "value": {"doubleValue": 1.5}}])).replace(
        b"1.5", b"NaN"
    ),
    "Infinity": _request(_span(attributes=[{"key": "d", "value": {"doubleValue": 1.5}}])).replace(
        b"1.5", b"Infinity"
    ),
    "-Infinity": _request(_span(attributes=[{"key": "d", "value": {"doubleValue": 1.5}}])).replace(
        b"1.5", b"-Infinity"
    ),
    "NaN in an array": _request(
        _span(
            attributes=[{"key": "d", "value": {"arrayValue": {"values": [{"doubleValue": 1.5}]}}}]
        )
    ).replace(b"1.5", b"NaN"),
    "NaN as a time": _request(_span(startTimeUnixNano=1.5)).replace(b"1.5", b"NaN"),
    "unknown field": _request(_span(extra=1)),
    "number int": _request(_span(attributes=[{"key": "i", "value": {"intValue": 5}}])),
    "enum name": _request(_span(kind="SPAN_KIND_SERVER")),
    "base64 id": _request(_span(traceId=base64.b64encode(bytes(range(1, 17))).decode())),
    "zero id": _request(_span(spanId="0" * 16)),
    "two variants": _request(
        _span(attributes=[{"key": "k", "value": {"stringValue": "a", "boolValue": True}}])
    ),
    "duplicate key": _request(_span(attributes=[{"key": "k", "value": {"stringValue": "a"}}] * 2)),
    "dropped": _request(_span(droppedEventsCount=1)),
    "negative duration": _request(_span(endTimeUnixNano="1")),
    "missing time": _request(_span(startTimeUnixNano=...)),
    "kvlist": _request(_span(attributes=[{"key": "k", "value": {"kvlistValue": {"values": []}}}])),
    "legacy dialect": orjson.dumps(
        {"resourceSpans": [{"instrumentationLibrarySpans": [{"spans": [_span()]}]}]}
    ),
    "empty envelope": b'{"resourceSpans": []}',
    "int beyond int64": _request(
        _span(attributes=[{"key": "i", "value": {"intValue": "9223372036854775808"}}])
    ),
    "time beyond int64": _request(_span(endTimeUnixNano="9223372036854775808")),
    # hostile numbers and keys (issue 38.5): no reader takes them silently
    "a key twice": _request(_span(name="a")).replace(b'"name":"a"', b'"name":"a","name":"b"'),
    "a 10,000-digit integer": _request(_span(kind=1)).replace(
        b'"kind":1', b'"kind":1' + b"0" * 10_000
    ),
    "a double beyond range": _request(
        _span(attributes=[{"key": "d", "value": {"doubleValue": 1.5}}])
    ).replace(b"1.5", b"1e999999"),
}


@pytest.mark.parametrize("name", REFUSED)
def test_what_the_native_path_refuses_falls_back_and_is_counted(name: str) -> None:
    canonical = _request(_span(attributes=[{"key": "a", "value": {"stringValue": 'q"\n'}}]))
    data = b"\n".join([canonical, REFUSED[name], canonical, canonical]) + b"\n"
    for batch_bytes in (1 << 30, 100):
        native, exact = _paths(data, "x.jsonl", batch_bytes=batch_bytes)
        _identical(native, exact)
        assert native.native_records < 4
        assert native.native_records + native.fast_records <= 4


def test_the_words_null_nan_and_infinity_inside_strings() -> None:
    # only a null value is refused unparsed (Arrow reads it as absent); the words NaN,
    # Infinity and null inside a string are text, and the native path takes them — unless
    # the string holds the word as a value would (": null,"), which costs that record only
    words = _request(
        _span(name="NaN", attributes=[{"key": "Infinity", "value": {"stringValue": "-Infinity"}}])
    )
    strings = [_request(_span(name=n)) for n in ("null", "call_x9nullZ", "a nullable b")]
    looks_like_one = _request(_span(name="a: null, b"))
    null = _request(_span(traceState=None))
    data = b"\n".join([words, *strings, looks_like_one, null, words]) + b"\n"
    native, exact = _paths(data, "w.jsonl", batch_bytes=100)  # in parts of lines
    _identical(native, exact)
    assert native.native_records == 5


@pytest.mark.parametrize(
    ("text", "at"),
    [
        (b'{"a":null}', [5]),
        (b'{"a": [1, null ,null]}', [10, 16]),
        (b"null", [0]),
        (b'{"a":"null"}', []),
        (b'{"a":"x nullnull"}', []),
        (b'{"a":"b, null]"}', [9]),  # inside a string, as a value would be: refused anyway
    ],
)
def test_a_null_value_is_found_where_a_value_can_be(text: bytes, at: list[int]) -> None:
    assert list(native_parts.null_tokens(text)) == at


# ---------------------------------------------------------------------------- property
_TEXT = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=6)
_CANONICAL_SCALAR = st.one_of(
    st.builds(lambda s: {"stringValue": s}, _TEXT),
    st.builds(lambda b: {"boolValue": b}, st.booleans()),
    st.builds(lambda i: {"intValue": str(i)}, st.integers(-(1 << 63), (1 << 63) - 1)),
    st.builds(
        lambda f: {"doubleValue": f},
        st.floats(allow_nan=False, allow_infinity=False) | st.integers(-(1 << 60), 1 << 60),
    ),
    st.builds(lambda b: {"bytesValue": base64.b64encode(b).decode()}, st.binary(max_size=6)),
    st.just({}),
)
_CANONICAL_VALUE = st.one_of(
    _CANONICAL_SCALAR,
    st.builds(lambda vs: {"arrayValue": {"values": vs}}, st.lists(_CANONICAL_SCALAR, max_size=3)),
)
_CANONICAL_ATTRIBUTES = st.lists(
    st.builds(lambda k, v: {"key": k, "value": v}, _TEXT, _CANONICAL_VALUE), max_size=4
)


@st.composite
def _canonical_request(draw: st.DrawFn) -> dict[str, Any]:
    spans = []
    for _ in range(draw(st.integers(1, 3))):
        start = draw(st.integers(1, (1 << 63) - 1))
        span = _span(
            spanId=draw(st.binary(min_size=8, max_size=8).filter(any)).hex(),
            name=draw(_TEXT),
            kind=draw(st.integers(0, 5)),
            startTimeUnixNano=str(start),
            endTimeUnixNano=str(draw(st.integers(start, (1 << 63) - 1))),
            attributes=draw(_CANONICAL_ATTRIBUTES),
            events=[{"name": draw(_TEXT), "timeUnixNano": str(start)}] * draw(st.integers(0, 1)),
            links=[{"traceId": "ab" * 16, "spanId": "cd" * 8, "traceState": draw(_TEXT)}]
            * draw(st.integers(0, 1)),
            status={"code": draw(st.integers(0, 2)), "message": draw(_TEXT)},
        )
        spans.append(span)
    scope = {"name": draw(_TEXT), "attributes": draw(_CANONICAL_ATTRIBUTES)}
    resource = {"attributes": draw(_CANONICAL_ATTRIBUTES)}
    return {
        "resourceSpans": [{"resource": resource, "scopeSpans": [{"scope": scope, "spans": spans}]}]
    }


@FAST
@given(
    st.lists(_canonical_request() | requests().map(encode), min_size=1, max_size=4),
    st.sampled_from([1 << 30, 300]),
)
def test_generated_exports_decode_identically(
    batch: list[dict[str, Any]], batch_bytes: int
) -> None:
    ndjson = b"\n".join(orjson.dumps(r) for r in batch) + b"\n"
    _identical(*_paths(ndjson, "g.jsonl", batch_bytes=batch_bytes))
    document = orjson.dumps(batch[0], option=orjson.OPT_INDENT_2)
    _identical(*_paths(document, "g.json"))
    merged = {"resourceSpans": [rs for r in batch for rs in r.get("resourceSpans") or []]}
    whole = orjson.dumps(merged)  # the batch's resources in one document, split by 2 workers
    _identical(*_paths(whole, "m.json", batch_bytes=100, workers=2))
